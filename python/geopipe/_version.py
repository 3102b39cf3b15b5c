"""The package's version: the C++ build's (``project(geopipe VERSION ...)`` in CMakeLists.txt).

One number for the executables, the Python package, the modulefile and the Debian package; a
test (``python.version``) fails when this file and CMakeLists.txt disagree.
"""

__version__ = "0.1.0"
