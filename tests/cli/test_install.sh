#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the binary runs, the docs, example sweeps and the
# Python analysis package are where docs/design.md ("Build and install") says, and the package
# geopipe (import geopipe, python3 -m geopipe plot --help), the old module geopipe_results and the
# installed scripts import with Debian's python3 from the installed tree.
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
# geopipe-full finds its MPI module (run/mpi_api.h) in <prefix>/<libdir>/geopipe/ from its own
# directory: a sweep under mpirun runs from the installed tree (layout ranks=2 in its file).
[ -n "$(find "$prefix" -name geopipe-mpi.so -path '*/geopipe/geopipe-mpi.so')" ] || fail "geopipe-mpi.so not installed"
if ldd "$prefix/bin/geopipe-full" | grep -q libmpi; then fail "the installed geopipe-full links MPI"; fi
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe \
  "$prefix/bin/geopipe" sweep "$prefix/share/geopipe/sweeps/quick.toml" -o "$prefix/mpi.h5" -q -t 1 \
  || fail "a sweep under mpirun -np 2 does not run from the installed tree"
/usr/bin/python3 -c 'import h5py, sys; assert h5py.File(sys.argv[1], "r").attrs["layout"] == "ranks=2 threads=1"' \
  "$prefix/mpi.h5" || fail "the installed tree's sweep under mpirun did not run on 2 ranks"
module=$(find "$prefix" -name geopipe_results.py)
[ -n "$module" ] || fail "Python module not installed"
pydir=$(dirname "$module")
[ -f "$pydir/geopipe/__init__.py" ] || fail "the package geopipe is not installed next to geopipe_results.py ($pydir)"
[ -f "$pydir/geopipe/__main__.py" ] || fail "geopipe/__main__.py not installed"
# From a directory outside the repository, so that only the installed tree can provide the imports.
cd "$prefix"
PYTHONPATH="$pydir" /usr/bin/python3 -c 'import geopipe_results as gr; assert callable(gr.load)' \
  || fail "the installed module does not import"
PYTHONPATH="$pydir" /usr/bin/python3 - "$pydir" <<'PY' || fail "the installed package geopipe does not import (or not from $pydir)"
import os, sys
import geopipe, geopipe_results
pydir = os.path.realpath(sys.argv[1])
for m in (geopipe, geopipe_results):
    assert os.path.realpath(m.__file__).startswith(pydir + os.sep), (m.__name__, m.__file__, pydir)
for name in ("load", "load_jobs", "to_xarray", "plot", "paired_change", "summary", "t975", "sobol_indices"):
    assert callable(getattr(geopipe, name)), name
assert geopipe_results.paired_change is geopipe.paired_change and geopipe_results.load is geopipe.load
PY
help=$(PYTHONPATH="$pydir" /usr/bin/python3 -m geopipe plot --help) || fail "python3 -m geopipe plot --help failed"
grep -q '^usage: geopipe plot' <<<"$help" || fail "python3 -m geopipe plot --help: no usage line: $help"
PYTHONPATH="$pydir" /usr/bin/python3 -m geopipe plot 2>/dev/null && fail "python3 -m geopipe plot without arguments exited 0"
# The installed scripts find the installed package (<prefix>/share/geopipe/scripts -> the python dir).
MPLBACKEND=Agg /usr/bin/python3 "$prefix/share/geopipe/scripts/plot_paper.py" --help >/dev/null \
  || fail "the installed plot_paper.py does not start"
MPLBACKEND=Agg /usr/bin/python3 "$prefix/share/geopipe/scripts/report.py" --help >/dev/null \
  || fail "the installed report.py does not start"
echo "install: ok ($(find "$prefix" -type f | wc -l) files)"
