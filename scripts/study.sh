#!/usr/bin/env bash
# Runs the BACE-Pipe sensitivity study end to end:
#   scripts/study.sh [--out DIR] [--np N] [--threads T] [--sweeps DIR] [--geopipe BIN]
# builds geopipe if needed, runs the bace-*-sobol.toml and bace-*-morris.toml sweeps of
# sweeps/studies/ with --resume into DIR/h5/ (standalone, or under `mpirun -np N` with --np;
# a complete result file runs nothing), then scripts/study_report.py writes the analyses'
# JSON, one figure per analysis and DIR/REPORT.md (default DIR = results/studies; the HDF5
# files in DIR/h5/ are not committed). --sweeps runs the bace-*.toml files of another
# directory (the tests use reduced copies); --geopipe uses that binary instead of building.
# Analysis uses Debian's /usr/bin/python3 (h5py, numpy, pandas, scipy, matplotlib).
set -euo pipefail
cd "$(dirname "$0")/.."
NP=0
THREADS=0
OUT=results/studies
SWEEPS=sweeps/studies
G=""
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
bad() { echo "study.sh: $1 (expected --out DIR, --np N, --threads T, --sweeps DIR, --geopipe BIN; -h for help)" >&2; exit 2; }
args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --np|--threads|--out|--sweeps|--geopipe)
      [ $# -ge 2 ] && [ -n "$2" ] || bad "$1 needs a value"
      case "$1" in
        --np) [[ "$2" =~ ^[0-9]+$ ]] || bad "--np '$2' is not a non-negative integer"; NP=$2 ;;
        --threads) [[ "$2" =~ ^[0-9]+$ ]] || bad "--threads '$2' is not a non-negative integer"; THREADS=$2 ;;
        --out) OUT=$2 ;;
        --sweeps) SWEEPS=$2 ;;
        --geopipe) G=$2 ;;
      esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) bad "unknown argument '$1'" ;;
  esac
done
PY=/usr/bin/python3
if [ -z "$G" ]; then
  G=build/src/geopipe
  if [ ! -x "$G" ]; then
    cmake -S . -B build -G Ninja >/dev/null
  fi
  cmake --build build --target geopipe -j2 >/dev/null  # build, or bring up to date with the sources
fi
[ -x "$G" ] || bad "--geopipe '$G' is not an executable"
# The study's sweeps: bace-*-sobol.toml and bace-*-morris.toml (not the test-function sweeps
# ishigami-sobol / sobol-g-* that live in the same directory).
sweeps=()
for sweep in "$SWEEPS"/bace-*.toml; do
  case "$sweep" in
    *-sobol.toml|*-morris.toml) [ -f "$sweep" ] && sweeps+=("$sweep") ;;
  esac
done
[ ${#sweeps[@]} -gt 0 ] || { echo "study.sh: no bace-*-sobol.toml or bace-*-morris.toml in $SWEEPS" >&2; exit 2; }
mkdir -p "$OUT/h5"
log=$(mktemp "${TMPDIR:-/tmp}/geopipe-study.XXXXXX")
trap 'rm -f "$log"' EXIT
launcher=()
if [ "$NP" -gt 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  launcher=(mpirun --oversubscribe -np "$NP")
fi
exec 3>&1
start=$(date +%s.%N)
files=()
for sweep in "${sweeps[@]}"; do
  name=$(basename "$sweep" .toml)
  h5="$OUT/h5/$name.h5"
  echo "== $name" >&2
  # --resume: reuse every result already in the file (by content key), run only what is missing
  # (its stderr, progress and the final count of reused / computed scenarios, is also kept for the report)
  "${launcher[@]}" "$G" sweep "$sweep" -o "$h5" --resume --threads "$THREADS" --progress-interval 30 \
    2>&1 >&3 | tee -a "$log" >&2
  files+=("$h5")
done
wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
cmd="scripts/study.sh${args[*]:+ ${args[*]}}"
MPLBACKEND=Agg $PY scripts/study_report.py --out "$OUT" --geopipe "$G" --wall "$wall" --command "$cmd" \
  --sweep-log "$log" "${files[@]}"
echo "wrote $OUT/REPORT.md, $(cd "$OUT" && ls ./*.png | wc -l) figures and $(cd "$OUT" && ls ./*.json | wc -l) JSON files (sweeps: $wall s)" >&2
