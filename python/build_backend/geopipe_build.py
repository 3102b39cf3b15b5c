"""A PEP 517/660 build backend for the package geopipe, standard library only (pyproject.toml).

It builds a pure-Python wheel (py3-none-any) of the directory ``geopipe/`` beside
pyproject.toml, an editable wheel (a ``.pth`` file naming this directory) and an sdist. The
metadata come from pyproject.toml's ``[project]`` table (read with tomllib, Python >= 3.11 to
build; the package itself needs >= 3.9) and the version from ``geopipe/_version.py``. Needing no
requirement, it builds under pip's build isolation without an index (offline).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE = "geopipe"
TAG = "py3-none-any"


def _project() -> dict:
    import tomllib  # Python >= 3.11 (Debian 12 has 3.11)

    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    with open(os.path.join(HERE, PACKAGE, "_version.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError("geopipe/_version.py: no line __version__ = \"X.Y.Z\"")
    return m.group(1)


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {_version()}", f"Summary: {p['description']}",
             f"Requires-Python: {p['requires-python']}", f"License: {p['license']['text']}"]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    readme = os.path.join(HERE, p["readme"])
    with open(readme, encoding="utf-8") as f:
        body = f.read()
    return "\n".join(lines + ["Description-Content-Type: text/markdown", "", body])


def _sources():
    """(path in the archive, path on disk) of every .py file of the package, sorted."""
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                disk = os.path.join(root, name)
                out.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    return out


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    name, version = _project()["name"], _version()
    dist_info = f"{name}-{version}.dist-info"
    files = files + [(f"{dist_info}/METADATA", _metadata().encode()),
                     (f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: geopipe_build\nRoot-Is-Purelib: true\n"
                                            f"Tag: {TAG}\n".encode()),
                     (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())]
    record = "".join(f"{path},{_digest(data)},{len(data)}\n" for path, data in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))
    wheel = f"{name}-{version}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = 0o644 << 16
            z.writestr(info, data, zipfile.ZIP_DEFLATED)
    return wheel


# ---- PEP 517 -------------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for path, disk in _sources():
        with open(disk, "rb") as f:
            files.append((path, f.read()))
    return _write_wheel(wheel_directory, files)


def build_sdist(sdist_directory, config_settings=None):
    name, version = _project()["name"], _version()
    base = f"{name}-{version}"
    out = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, out), "w:gz", format=tarfile.PAX_FORMAT) as t:
        entries = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
                   ("README.md", os.path.join(HERE, "README.md")),
                   ("build_backend/geopipe_build.py", os.path.abspath(__file__))] + _sources()
        for path, disk in entries:
            t.add(disk, arcname=f"{base}/{path}", recursive=False)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size, info.mtime, info.mode = len(pkg_info), int(time.time()), 0o644
        t.addfile(info, io.BytesIO(pkg_info))
    return out


# ---- PEP 660 (pip install -e) ----------------------------------------------------------------------

def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file: the directory holding geopipe/ goes on sys.path, so edits take effect at once.
    return _write_wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", (HERE + "\n").encode())])
