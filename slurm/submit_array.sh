#!/bin/bash
# Submits a very large sweep as NSHARDS shards (slurm/array.sbatch), split into several job
# arrays when NSHARDS exceeds the site's MaxArraySize, plus one merge + summarize job
# (slurm/merge.sbatch) that starts when every array task succeeded (afterok).
#
#   slurm/submit_array.sh [--tasks K,K,...] [--throttle T] SWEEP.toml OUTDIR NSHARDS ALL.h5 [-- sbatch options for the shards]
#
#   --tasks K,...  submit only these shards (e.g. to rerun failed ones) and a new merge job;
#                  cancel the old merge job, which waits forever (DependencyNeverSatisfied).
#   --throttle T   at most T tasks of each array run at once (--array=...%T).
# Prints the submitted job ids, one `array <id> shards A-B` line per array and `merge <id>`.
# GEOPIPE, GEOPIPE_FAIL_SHARDS etc. are passed through the environment (sbatch exports it).
# MAX_ARRAY_SIZE overrides the value read from `scontrol show config`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tasks="" throttle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) tasks=$2; shift 2 ;;
    --throttle) throttle=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 4 ]; then sed -n '2,16p' "$0" >&2; exit 2; fi
SWEEP=$1 OUTDIR=$2 N=$3 ALL=$4
shift 4
[ "${1:-}" = "--" ] && shift
extra=("$@")
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "submit_array.sh: NSHARDS must be a positive integer" >&2; exit 2; }
mkdir -p "$OUTDIR"

max=${MAX_ARRAY_SIZE:-$(scontrol show config | awk -F= '/^MaxArraySize/ {gsub(/[[:space:]]/, "", $2); print $2}')}
[[ "$max" =~ ^[1-9][0-9]*$ ]] || max=1001   # Slurm's default
# array indices must be < MaxArraySize, so one array holds at most `max` shards: 0..max-1,
# and shard K runs as index K - OFFSET of the array starting at OFFSET.
pct=""; [ -n "$throttle" ] && pct="%$throttle"

ids=()
submit() {  # $1 = offset, $2 = array index spec
  local id
  id=$(sbatch --parsable --array="$2$pct" "${extra[@]}" "$here/array.sbatch" "$SWEEP" "$OUTDIR" "$N" "$1")
  id=${id%%;*}
  ids+=("$id")
  echo "array $id offset $1 indices $2"
}

if [ -n "$tasks" ]; then
  # group the requested shards by array chunk
  declare -A chunk=()
  for k in ${tasks//,/ }; do
    [[ "$k" =~ ^[0-9]+$ ]] && [ "$k" -lt "$N" ] || { echo "submit_array.sh: bad shard '$k'" >&2; exit 2; }
    off=$(( k / max * max ))
    chunk[$off]="${chunk[$off]:+${chunk[$off]},}$((k - off))"
  done
  for off in "${!chunk[@]}"; do submit "$off" "${chunk[$off]}"; done
else
  for ((off = 0; off < N; off += max)); do
    cnt=$(( N - off < max ? N - off : max ))
    submit "$off" "0-$((cnt - 1))"
  done
fi
dep=$(IFS=:; echo "afterok:${ids[*]}")
mid=$(sbatch --parsable --dependency="$dep" "$here/merge.sbatch" "$OUTDIR" "$N" "$ALL")
echo "merge ${mid%%;*}"
