# The Debian package of geopipe: `cpack -G DEB` in a build directory writes
# geopipe_<version>_<arch>.deb, which installs what `cmake --install` installs, under /usr:
# /usr/bin/geopipe{,-full}, the MPI module in /usr/lib/geopipe/, the Python package in
# /usr/lib/python3.X/dist-packages (on Debian's python3 path), the docs in /usr/share/doc/geopipe,
# the shipped sweeps and Slurm scripts in /usr/share/geopipe, the modulefiles. Its dependencies:
# the shared libraries of the executables and the MPI module, found by dpkg-shlibdeps (Open MPI,
# oneTBB, libstdc++, ...), and the Python modules the package imports. Test: package.deb.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "geopipe")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "geopipe")
set(CPACK_PACKAGE_CONTACT "geopipe developers <geopipe@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "simulator and sweep runner for pipeline-parallel LLM training across geo-distributed GPU regions")
set(CPACK_PACKAGE_DESCRIPTION "geopipe simulates multi-tenant pipeline-parallel training across regions with \
heterogeneous inter-region bandwidth and electricity prices, runs parameter sweeps of thousands of scenarios \
under MPI into one HDF5 file, and analyses them in Python (import geopipe).")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy, python3-pandas, python3-h5py")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, python3-scipy, python3-matplotlib, python3-xarray")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, lmod | environment-modules")
set(CPACK_STRIP_FILES ON)
# Only the project's own install rules (no test or third-party component).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};ALL;/")
include(CPack)
