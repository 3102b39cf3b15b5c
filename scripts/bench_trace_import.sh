#!/usr/bin/env bash
# Benchmark of `geopipe trace import` (docs/performance.md, "Trace import"): generates a
# synthetic Helios-format job log of ROWS rows (default 1,000,000) in a temporary directory
# (removed at exit; nothing is shipped), imports it REPEATS times (default 3) with
# /usr/bin/time -v and prints the median wall time and peak RSS as a markdown table.
#
#   scripts/bench_trace_import.sh [BUILD_DIR] [ROWS] [REPEATS]
#
# The log mimics Helios' cluster_log.csv: datetime submit/start/end times, GPU counts 0-64
# (mostly 1), states COMPLETED/FAILED/CANCELLED/TIMEOUT/NODE_FAIL, ~0.1 % repeated lines; a
# fixed seed, so every run reads the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
ROWS=${2:-1000000}
REPEATS=${3:-3}
G=$B/src/geopipe
[ -x "$G" ] || { echo "build first: cmake --build $B" >&2; exit 2; }
[[ "$ROWS" =~ ^[0-9]+$ && "$REPEATS" =~ ^[0-9]+$ ]] || { echo "usage: $0 [BUILD_DIR] [ROWS] [REPEATS]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen_start=$(date +%s.%N)
/usr/bin/python3 - "$ROWS" "$tmp/helios.csv" <<'PY'
import random, sys, time
rows, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(20260401)
gpus = [0] * 5 + [1] * 55 + [2] * 10 + [4] * 10 + [8] * 12 + [16] * 5 + [32] * 2 + [64]
states = ["COMPLETED"] * 60 + ["FAILED"] * 15 + ["CANCELLED"] * 20 + ["TIMEOUT"] * 3 + ["NODE_FAIL"] * 2
fmt = lambda t: time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))
t = 1585699200  # 2020-04-01 00:00:00 UTC
with open(path, "w") as f:
    f.write("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n")
    last = ""
    for i in range(rows):
        if last and rng.random() < 0.001:  # a repeated line
            f.write(last)
            continue
        t += rng.randint(0, 4)
        n = rng.choice(gpus)
        queue = rng.randint(0, 600)
        dur = int(rng.lognormvariate(7, 2)) % 864000
        last = (f"{i},u{rng.randint(0, 999)},vc{rng.randint(0, 19)},{n},{max(1, 6 * n)},{max(1, (n + 7) // 8)},"
                f"{rng.choice(states)},{fmt(t)},{fmt(t + queue)},{fmt(t + queue + dur)},{dur},{queue}\n")
        f.write(last)
PY
gen_s=$(echo "$(date +%s.%N) - $gen_start" | bc)
size_mb=$(du -m "$tmp/helios.csv" | cut -f1)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for r in $(seq "$REPEATS"); do
  rm -f "$tmp/jobs.csv"
  /usr/bin/time -v "$G" trace import --format helios "$tmp/helios.csv" -o "$tmp/jobs.csv" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/err" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/err")
  echo "$wall" >>"$tmp/wall"
  echo "$rss" >>"$tmp/rss"
  echo "round $r/$REPEATS: ${wall} s, $((rss / 1024)) MB" >&2
done
summary=$(sed -n 's/^trace import (--format helios): [^:]*: //p' "$tmp/err")
out_mb=$(du -m "$tmp/jobs.csv" | cut -f1)
echo "geopipe $("$G" --version | cut -d' ' -f2), $(nproc) cores, $(date -u +%F), $REPEATS repeats (median)"
echo
echo "| measurement | value |"
echo "|---|---|"
echo "| input | $ROWS rows of Helios' format, $size_mb MB (generated in ${gen_s%.*} s) |"
echo "| import | $summary |"
echo "| wall time | $(median <"$tmp/wall") s |"
echo "| peak RSS | $(( $(median <"$tmp/rss") / 1024 )) MB |"
echo "| output | $out_mb MB |"
