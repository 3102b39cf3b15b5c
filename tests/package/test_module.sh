#!/usr/bin/env bash
# The environment modules `cmake --install` writes (README, "Install"), loaded by Lmod (Debian's
# lmod package) from a prefix moved after the install (relocatable): the Lua modulefile and the
# Tcl one each put geopipe on PATH and the package on PYTHONPATH, set GEOPIPE_*; the installed
# Slurm script finds geopipe through the module (run with bash, no Slurm: GEOPIPE_LAUNCHER=none);
# unloading removes it all.
#   test_module.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f /usr/share/lmod/lmod/init/bash ] || fail "Lmod is not installed (scripts/setup.sh installs lmod)"
cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
p=$tmp/moved
[ -f "$p/share/lmod/modulefiles/geopipe/$version.lua" ] || fail "no Lua modulefile"
[ -f "$p/share/modulefiles/geopipe/$version" ] || fail "no Tcl modulefile"
for dir in share/lmod/modulefiles share/modulefiles; do
  env -i HOME="$tmp" PATH=/usr/bin:/bin bash -c '
    set -euo pipefail
    p=$1 dir=$2 version=$3
    source /usr/share/lmod/lmod/init/bash
    module use "$p/$dir"
    module load geopipe
    [ "$(command -v geopipe)" = "$p/bin/geopipe" ] || { echo "geopipe on PATH: $(command -v geopipe)"; exit 1; }
    geopipe --version | grep -q "^geopipe " || { echo "geopipe --version"; exit 1; }
    [ "$GEOPIPE_HOME" = "$p" ] && [ "$GEOPIPE_EXECUTABLE" = "$p/bin/geopipe" ] || { echo "GEOPIPE_HOME=$GEOPIPE_HOME"; exit 1; }
    [ -f "$GEOPIPE_SWEEPS_DIR/quick.toml" ] && [ -f "$GEOPIPE_DOC_DIR/model.md" ] && [ -x "$GEOPIPE_SLURM_DIR/sweep.sbatch" ] \
      || { echo "GEOPIPE_SWEEPS_DIR, _DOC_DIR or _SLURM_DIR"; exit 1; }
    cd "$HOME"
    /usr/bin/python3 -c "import geopipe, os, sys; assert geopipe.__file__.startswith(sys.argv[1]), geopipe.__file__; assert geopipe.__version__ == sys.argv[2]" "$p" "$version" \
      || { echo "import geopipe"; exit 1; }
    /usr/bin/python3 -m geopipe --version | grep -q "^executable: $p/bin/geopipe " || { echo "python3 -m geopipe --version"; exit 1; }
    # the installed Slurm script, as a batch job would run it, finds geopipe through the module
    GEOPIPE_LAUNCHER=none bash "$GEOPIPE_SLURM_DIR/sweep.sbatch" "$GEOPIPE_SWEEPS_DIR/quick.toml" "$HOME/q.h5" -q >"$HOME/sbatch.log" 2>&1 \
      || { echo "sweep.sbatch under the module: $(tail -3 "$HOME/sbatch.log")"; exit 1; }
    /usr/bin/python3 -c "import geopipe, sys; assert len(geopipe.load(sys.argv[1])) == 480" "$HOME/q.h5" || { echo "the sweep result"; exit 1; }
    rm -f "$HOME/q.h5"
    module unload geopipe
    if command -v geopipe >/dev/null; then echo "still on PATH after unload"; exit 1; fi
    [ -z "${GEOPIPE_HOME:-}" ] || { echo "GEOPIPE_HOME after unload"; exit 1; }
  ' _ "$p" "$dir" "$version" >"$tmp/log" 2>&1 || fail "$dir: $(tail -3 "$tmp/log")"
done
echo "module: ok (Lua and Tcl modulefiles under Lmod, prefix moved after the install)"
