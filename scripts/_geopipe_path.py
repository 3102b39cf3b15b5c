"""Makes ``import geopipe`` work for the scripts beside this file (imported for that effect only).

From the repository, ``<repo>/python`` (preferred when present); from an installed tree
(``<prefix>/share/geopipe/scripts``), ``<prefix>/lib/python3.X/dist-packages``, appended after
the default path so that an importable ``geopipe`` wins.
"""

import os
import sys


def _put_geopipe_on_path():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.join(os.path.dirname(here), "python")
    if os.path.isfile(os.path.join(repo, "geopipe", "__init__.py")):
        if repo not in sys.path:
            sys.path.insert(0, repo)
        return
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    ver = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    lib = os.path.join(prefix, "lib")
    for d in (os.path.join(lib, ver, "dist-packages"), os.path.join(lib, "python3", "dist-packages"),
              os.path.join(lib, ver, "site-packages")):
        if os.path.isfile(os.path.join(d, "geopipe", "__init__.py")) and d not in sys.path:
            sys.path.append(d)
            return


_put_geopipe_on_path()
