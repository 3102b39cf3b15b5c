#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the binary runs, the docs, example sweeps and the
# Python analysis module are where docs/design.md ("Build and install") says, and the module
# imports with Debian's python3 from the installed tree.
#   test_install.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }
"$prefix/bin/geopipe" --version | grep -q '^geopipe ' || fail "installed binary does not run"
for f in share/doc/geopipe/README.md share/doc/geopipe/design.md share/doc/geopipe/model.md \
         share/doc/geopipe/hdf5-format.md share/geopipe/sweeps/quick.toml \
         share/geopipe/sweeps/base/six-regions.toml; do
  [ -f "$prefix/$f" ] || fail "missing $f"
done
"$prefix/bin/geopipe" sweep "$prefix/share/geopipe/sweeps/quick.toml" --dry-run | grep -q "scenarios" \
  || fail "installed example sweep does not load"
module=$(find "$prefix" -name geopipe_results.py)
[ -n "$module" ] || fail "Python module not installed"
PYTHONPATH="$(dirname "$module")" /usr/bin/python3 -c 'import geopipe_results as gr; assert callable(gr.load)' \
  || fail "the installed module does not import"
echo "install: ok ($(find "$prefix" -type f | wc -l) files)"
