#!/usr/bin/env bash
# The Python package installed by pip, offline, into a virtual environment that sees Debian's
# numpy, pandas and h5py (README, "Install"): `pip install ./python` and `pip install -e python`
# with no index reachable (PIP_NO_INDEX), the package's version the C++ build's, `python -m
# geopipe --version` naming the executable it finds ($GEOPIPE_EXECUTABLE, PATH) or saying it
# finds none, and the source tree left as it was (the in-tree backend writes nothing there).
#   test_pip.sh SOURCE_DIR GEOPIPE_BINARY VERSION
set -euo pipefail
src=$1 bin=$2 version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
before=$(cd "$src/python" && find . | sort)
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" || fail "python3 -m venv (Debian's python3-venv) failed"
"$tmp/venv/bin/pip" install -q "$src/python" >"$tmp/log" 2>&1 || fail "pip install ./python: $(tail -5 "$tmp/log")"
cd "$tmp"  # outside the repository: only the installed package can be imported
"$tmp/venv/bin/python" - "$tmp/venv" "$version" <<'PY' || fail "the pip-installed package does not import from the venv"
import os, sys
import geopipe
venv, version = sys.argv[1:]
assert os.path.realpath(geopipe.__file__).startswith(os.path.realpath(venv) + os.sep), geopipe.__file__
assert geopipe.__version__ == version, (geopipe.__version__, version)
for name in ("load", "paired_change", "plot", "to_xarray", "find_executable", "sobol_indices"):
    assert callable(getattr(geopipe, name)), name
from importlib.metadata import version as dist_version, requires
assert dist_version("geopipe") == version
assert set(r.split(";")[0].strip() for r in requires("geopipe")) >= {"numpy", "pandas"}, requires("geopipe")
PY
# the executable: named by $GEOPIPE_EXECUTABLE, found on PATH, or a clear one-line error, exit 1
out=$(GEOPIPE_EXECUTABLE="$bin" "$tmp/venv/bin/python" -m geopipe --version) || fail "python -m geopipe --version"
grep -q "^geopipe (Python package) $version$" <<<"$out" || fail "no package version line: $out"
grep -q "^executable: $(readlink -f "$bin") (geopipe $version (" <<<"$out" || fail "the executable is not named, or of another version: $out"
out=$(env PATH="$(dirname "$bin"):/usr/bin:/bin" "$tmp/venv/bin/python" -m geopipe --version) || fail "found on PATH"
grep -q "^executable: .*/geopipe (geopipe " <<<"$out" || fail "not found on PATH: $out"
set +e
env -u GEOPIPE_EXECUTABLE PATH=/usr/bin:/bin "$tmp/venv/bin/python" -m geopipe --version >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "no executable: exit $rc, expected 1"
grep -q "^geopipe: error: the geopipe executable is not on PATH and \$GEOPIPE_EXECUTABLE is not set" "$tmp/err" \
  || fail "no executable: $(cat "$tmp/err")"
# an editable install imports from the source tree
/usr/bin/python3 -m venv --system-site-packages "$tmp/edit"
"$tmp/edit/bin/pip" install -q -e "$src/python" >"$tmp/log" 2>&1 || fail "pip install -e python: $(tail -5 "$tmp/log")"
"$tmp/edit/bin/python" -c 'import geopipe, os, sys; assert os.path.realpath(geopipe.__file__) == os.path.realpath(sys.argv[1]), geopipe.__file__' \
  "$src/python/geopipe/__init__.py" || fail "the editable install does not import from the source tree"
# the sdist holds what a wheel is built from
/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import geopipe_build; print(geopipe_build.build_sdist(sys.argv[2]))' \
  "$src/python/build_backend" "$tmp" >"$tmp/sdist" || fail "build_sdist"
tar tzf "$tmp/$(cat "$tmp/sdist")" >"$tmp/list"
for f in pyproject.toml README.md PKG-INFO build_backend/geopipe_build.py geopipe/__init__.py geopipe/_version.py; do
  grep -qx "geopipe-$version/$f" "$tmp/list" || fail "the sdist lacks $f"
done
after=$(cd "$src/python" && find . -not -path '*/__pycache__*' | sort)
[ "$(grep -v __pycache__ <<<"$before")" = "$after" ] || fail "pip wrote into the source tree: $(diff <(grep -v __pycache__ <<<"$before") <(echo "$after"))"
echo "pip: ok (pip install ./python and -e offline, version $version, executable found or refused)"
