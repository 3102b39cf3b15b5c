"""Finding the ``geopipe`` executable from Python.

The package reads result files on its own; only what the C++ tool computes (``geopipe run``,
``geopipe sweep``, ...) needs the executable. It is, in this order:

1. ``$GEOPIPE_EXECUTABLE``, when set (a path to ``geopipe``; ``geopipe-full`` must be beside it,
   as in every build tree and installation);
2. ``geopipe`` on ``PATH`` (after ``module load geopipe``, a Debian package, or ``cmake --install``
   into a prefix whose ``bin`` is on ``PATH``).

``find_executable()`` raises ``ExecutableNotFound`` with what it tried and how to fix it.
"""

from __future__ import annotations

import os
import shutil
import subprocess

ENV = "GEOPIPE_EXECUTABLE"


class ExecutableNotFound(RuntimeError):
    """The geopipe executable is neither at $GEOPIPE_EXECUTABLE nor on PATH."""


def find_executable() -> str:
    """The path of the ``geopipe`` executable (see the module's documentation)."""
    given = os.environ.get(ENV)
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return os.path.abspath(given)
        why = "no such file" if not os.path.exists(given) else "not an executable file"
        raise ExecutableNotFound(f"${ENV} = {given!r}: {why} (expected the path of the geopipe executable, "
                                 f"e.g. build/src/geopipe)")
    found = shutil.which("geopipe")
    if found:
        return os.path.abspath(found)
    raise ExecutableNotFound(f"the geopipe executable is not on PATH and ${ENV} is not set (expected "
                             f"'module load geopipe', the Debian package, a prefix of 'cmake --install' on PATH, "
                             f"or {ENV}=/path/to/build/src/geopipe)")


def executable_version(path: str | None = None) -> str:
    """What ``geopipe --version`` prints (``geopipe <git describe>``), of ``path`` or the found one."""
    exe = path or find_executable()
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.strip()
