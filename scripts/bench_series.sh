#!/usr/bin/env bash
# Time series in the engine (docs/performance.md, "Time series"): one scenario with and without a
# 10,000-step capacity series on every link, measured side by side.
#   scripts/bench_series.sh [BUILD_DIR] [REPEATS] [JOBS] [STEP_S]
# The base is sweeps/base/six-regions.toml (15 links, JOBS jobs, default 200, bace-pipe). Each
# link direction gets a series of 10,000 steps, STEP_S apart (default 10 s: 27.8 h, about the
# 200-job makespan; wrapped), of its capacity x a factor drawn uniformly in [0.8, 1.2] per step
# (written by this script into a temp dir, seeded: the same files every run). The two runs
# alternate REPEATS times (default 5); the medians of the process's wall time (loading the
# 150,000 rows included) and of the simulation's (the run's wall_s) and their ratios are printed
# as a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
REPEATS=${2:-5}
JOBS=${3:-200}
STEP_S=${4:-10}
G=$B/src/geopipe
[ -x "$G" ] || { echo "build first: cmake --build $B" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" sweeps/base/six-regions.toml "$STEP_S" <<'PY'
import random, re, sys
tmp, base, step = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = open(base).read()
rng = random.Random(10000)
out, k = [], 0
for block in re.split(r'(?m)^(?=\[)', text):
    m = re.search(r'(?m)^bandwidth_gbps\s*=\s*([0-9.eE+-]+)', block) if block.startswith('[[network.link]]') else None
    if m:
        bw = float(m.group(1))
        rv = re.search(r'(?m)^reverse_bandwidth_gbps\s*=\s*([0-9.eE+-]+)', block)
        rbw = float(rv.group(1)) if rv else bw
        name = f'link{k}.csv'
        with open(f'{tmp}/{name}', 'w') as f:
            f.write('time_s,bandwidth_gbps,reverse_bandwidth_gbps\n')
            for s in range(10000):
                f.write(f'{step * s:.10g},{bw * rng.uniform(0.8, 1.2):.6g},{rbw * rng.uniform(0.8, 1.2):.6g}\n')
        block = re.sub(r'(?m)^(reverse_)?bandwidth_gbps\s*=.*\n', '', block)
        block = block.replace('[[network.link]]\n', f'[[network.link]]\nbandwidth_trace = "{name}"\n', 1)
        k += 1
    out.append(block)
series = ''.join(out).replace('[sim]\n', '[sim]\nseries_end = "wrap"\n', 1)
if '[sim]' not in text:
    series = series.replace('[network]\n', '[sim]\nseries_end = "wrap"\n\n[network]\n', 1)
open(f'{tmp}/plain.toml', 'w').write(text)
open(f'{tmp}/series.toml', 'w').write(series)
PY
run() {
  /usr/bin/time -f "%e %M" -o "$tmp/last" "$G" run "$tmp/$1.toml" --scheduler bace-pipe --set workload.num_jobs="$JOBS" --json >"$tmp/$1.json" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  cat "$tmp/last" >>"$tmp/$1.times"
  /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['metrics']['wall_s'])" "$tmp/$1.json" >>"$tmp/$1.sim"
}
for _ in $(seq "$REPEATS"); do run plain; run series; done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
events() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['results'][0]; print(int(r['metrics']['events']))" "$1"; }
p=$(cut -d' ' -f1 "$tmp/plain.times" | median); s=$(cut -d' ' -f1 "$tmp/series.times" | median)
pm=$(cut -d' ' -f2 "$tmp/plain.times" | median); sm=$(cut -d' ' -f2 "$tmp/series.times" | median)
ps=$(median <"$tmp/plain.sim"); ss=$(median <"$tmp/series.sim")
echo "| six-regions, $JOBS jobs, bace-pipe, steps ${STEP_S} s apart | process wall s (median of $REPEATS) | simulation wall s | peak RSS MB | events |"
echo "|---|---|---|---|---|"
echo "| constant links | $p | $ps | $((pm / 1024)) | $(events "$tmp/plain.json") |"
echo "| 10,000-step series on all 15 links (30 directions) | $s | $ss | $((sm / 1024)) | $(events "$tmp/series.json") |"
echo "| ratio | $(awk -v a="$s" -v b="$p" 'BEGIN { printf "%.2f", a / b }') | $(awk -v a="$ss" -v b="$ps" 'BEGIN { printf "%.2f", a / b }') | | |"
