#!/usr/bin/env bash
# Instructions per bace-pipe decision of the pathfinder benchmark's instances, counted by
# callgrind (docs/performance.md, "The pathfinder's inner loop"): exact and independent of the
# machine's load, so two builds compare without alternating runs.
#
#   scripts/pathfinder_instructions.sh [BUILD] [FILTER ...]
#
# BUILD: a build directory with tests/bench/bench_pathfinder (default build). FILTER: Google
# Benchmark filters of BM_DecisionModel cases (default: the 6-region cases with 4, 16 and 64
# stages, GPipe and 1F1B). For each, callgrind counts only Pathfinder::search (both searches
# of a decision) over the benchmark's iterations and prints their mean.
set -euo pipefail
build=${1:-build}
shift || true
bench="$build/tests/bench/bench_pathfinder"
[ -x "$bench" ] || { echo "pathfinder_instructions.sh: no $bench (build the bench_pathfinder target)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "pathfinder_instructions.sh: valgrind is needed" >&2; exit 2; }
filters=("$@")
if [ ${#filters[@]} -eq 0 ]; then
  for b in 0 1; do for s in 4 16 64; do filters+=("BM_DecisionModel/R:6/S:$s/1f1b_balanced:$b\$"); done; done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| case | decisions | instructions per decision |"
echo "|---|---|---|"
for f in "${filters[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" --toggle-collect='geopipe::Pathfinder::search(*' \
    "$bench" --benchmark_filter="$f" --benchmark_min_time=0.2 --benchmark_format=csv >"$tmp/out" 2>"$tmp/err"
  grep -q '^"BM_DecisionModel' "$tmp/out" || { echo "pathfinder_instructions.sh: no benchmark matched '$f'" >&2; exit 2; }
  total=$(sed -n 's/.*refs: *//p' "$tmp/err" | tr -d ',')
  # Calls of Pathfinder::search (the benchmark's own iteration estimates included), from the
  # profile's call records; a decision is two of them.
  searches=$(/usr/bin/python3 - "$tmp/cg" <<'PY'
import re, sys
names, cur, n = {}, None, 0
for line in open(sys.argv[1]):
    m = re.match(r'c?fn=\((\d+)\)(?: (.*))?', line)
    if m:
        if m.group(2): names[m.group(1)] = m.group(2)
        if line.startswith('cfn='): cur = names.get(m.group(1), '')
        continue
    if line.startswith('calls=') and cur is not None and cur.startswith('geopipe::Pathfinder::search('):
        n += int(line.split('=')[1].split()[0])
        cur = None
print(n)
PY
)
  echo "| ${f%\$} | $((searches / 2)) | $(awk -v t="$total" -v n="$searches" 'BEGIN {printf "%.3fM", 2 * t / n / 1e6}') |"
done
