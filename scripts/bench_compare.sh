#!/usr/bin/env bash
# Side-by-side performance of two versions of geopipe, measured in one run (docs/performance.md,
# "Round 2"): the pathfinder's bace-pipe decision by regions x stages (GPipe with the even split,
# and 1F1B with the balanced split), a 1,000,000-job bace-pipe scenario (time, peak RSS), the
# start of one process per command, and a sweep's time against the sum of its scenarios' own
# (the whole sweep's overhead, and the per-scenario one: the same sweep with 5x the seeds; the
# sweep's fixed cost fitted on the two sizes). The two versions alternate within each
# measurement, so load on this shared machine hits both alike.
# Prints markdown tables.
#   scripts/bench_compare.sh BEFORE [AFTER_BUILD] [--quick] [--sweep-only]
# BEFORE is a revision, built in a temporary worktree (~10 min on 2 cores) with this checkout's
# tests/bench/bench_pathfinder.cpp (same benchmark program, old library), or a build directory
# that holds one (src/geopipe; with --sweep-only nothing else is needed). AFTER_BUILD defaults
# to build/ (configured and built first). --quick: 100,000 jobs instead of a million, fewer
# repeats. --sweep-only: only the sweep overhead. Needs Google Benchmark, g++ and /usr/bin/time
# (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
BEFORE=$1
AFTER=build
QUICK="" SWEEP_ONLY=""
for a in "${@:2}"; do
  case $a in
    --quick) QUICK=1 ;;
    --sweep-only) SWEEP_ONLY=1 ;;
    *) AFTER=$a ;;
  esac
done
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
targets=(geopipe bench_pathfinder); [ -n "$SWEEP_ONLY" ] && targets=(geopipe)

if [ -x "$BEFORE/src/geopipe" ]; then
  OLD=$BEFORE
elif git rev-parse --verify -q "$BEFORE^{commit}" >/dev/null; then
  echo "building $BEFORE ..." >&2
  git worktree add -q --detach "$tmp/src" "$BEFORE"
  cp tests/bench/bench_pathfinder.cpp "$tmp/src/tests/bench/bench_pathfinder.cpp"
  cmake -S "$tmp/src" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$tmp/build" -j2 --target "${targets[@]}" >/dev/null
  OLD=$tmp/build
else
  echo "bench_compare.sh: neither a revision nor a build directory: $BEFORE" >&2; exit 2
fi
echo "building $AFTER ..." >&2
cmake --build "$AFTER" -j2 --target "${targets[@]}" >/dev/null
NEW=$AFTER
ROUNDS=3
JOBS=1000000
[ -n "$QUICK" ] && { ROUNDS=1; JOBS=100000; }

if [ -z "$SWEEP_ONLY" ]; then

# 1. The pathfinder: each binary's run of the decision benchmarks, alternating, ROUNDS times.
filter='BM_(PathfinderCostMin|DecisionModel)/'
for r in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    b=$OLD; [ $side = new ] && b=$NEW
    echo "pathfinder round $r: $side" >&2
    "$b/tests/bench/bench_pathfinder" --benchmark_filter="$filter" --benchmark_min_time=0.2 \
      --benchmark_format=json >"$tmp/pf-$side-$r.json" 2>/dev/null
  done
done

# 2. A scenario of JOBS bace-pipe jobs: wall time and peak RSS, alternating.
run_cmd=(run sweeps/base/six-regions.toml --scheduler bace-pipe --set "workload.num_jobs=$JOBS")
for r in $(seq 1 2); do
  for side in old new; do
    b=$OLD; [ $side = new ] && b=$NEW
    echo "$JOBS jobs round $r: $side" >&2
    /usr/bin/time -f "%e %M" -o "$tmp/big-$side-$r.txt" "$b/src/geopipe" "${run_cmd[@]}" >/dev/null
  done
done

# 3. Process start: scripts/start_time.py, every command of both binaries and three floors (an
# exec of /bin/true, of a C++ "hello" with libstdc++ linked statically, and of the same hello
# linked wholly statically, like the front end since "Process start, third step") round robin in
# one run.
# Every executable is first copied the same way (one sequential write, then sync): the same
# binary starts up to ~0.4 ms (9 %) slower from the file the linker wrote than from a copy
# (docs/performance.md, "Process start, second step"), which would favour one side.
runs=300; [ -n "$QUICK" ] && runs=100
same_write() { cat "$1" >"$2" && chmod +x "$2"; }  # FROM TO: one sequential write
printf '#include <iostream>\nint main() { std::cout << "hello\\n"; }\n' >"$tmp/hello.cpp"
g++ -O2 -static-libstdc++ -static-libgcc "$tmp/hello.cpp" -o "$tmp/hello.linked"
g++ -O2 -static "$tmp/hello.cpp" -o "$tmp/hello-static.linked"
same_write "$tmp/hello.linked" "$tmp/hello"
same_write "$tmp/hello-static.linked" "$tmp/hello-static"
for side in old new; do
  b=$OLD; [ $side = new ] && b=$NEW
  mkdir -p "$tmp/start-$side/src"
  for exe in geopipe geopipe-full; do  # (a build from before the front end has no geopipe-full)
    if [ -e "$b/src/$exe" ]; then same_write "$b/src/$exe" "$tmp/start-$side/src/$exe"; fi
  done
done
sync
start_args=(/bin/true "$tmp/hello" "$tmp/hello-static")
start_cmds=("--version" "list presets" "validate sweeps/base/six-regions.toml"
            "run sweeps/base/six-regions.toml --scheduler first-fit --set workload.num_jobs=1")
for c in "${start_cmds[@]}"; do start_args+=("$tmp/start-old/src/geopipe $c" "$tmp/start-new/src/geopipe $c"); done
echo "process start: ${#start_args[@]} commands round robin" >&2
/usr/bin/python3 scripts/start_time.py --runs "$runs" --json "$tmp/start.json" "${start_args[@]}" >/dev/null
fi

# 4. Overhead of a sweep of real 200-job scenarios (sweeps/bench/throughput.toml, 1920
# scenarios, and the same with 5x the seeds, as scripts/bench_sweep.sh): wall time x threads
# against the sum of the scenarios' wall_s, 1 and 2 threads, alternating.
sed -e "s|^base = .*|base = \"$PWD/sweeps/base/six-regions.toml\"|" -e 's/^seeds = 160$/seeds = 800/' \
  sweeps/bench/throughput.toml >"$tmp/throughput-5x.toml"
for r in $(seq 1 "$ROUNDS"); do
  for t in 1 2; do
    for size in 1 5; do
      sweep=sweeps/bench/throughput.toml; [ $size = 5 ] && sweep=$tmp/throughput-5x.toml
      for side in old new; do
        b=$OLD; [ $side = new ] && b=$NEW
        echo "sweep round $r, ${size}x, $t thread(s): $side" >&2
        # A new output each time, as a sweep usually writes (--force on an existing one would
        # take another path: no early start, docs/sweep-runner.md "Execution").
        rm -f "$tmp/tp-$side.h5"
        s0=$(date +%s.%N)
        "$b/src/geopipe" sweep "$sweep" -o "$tmp/tp-$side.h5" --quiet --threads "$t" --no-mpi
        s1=$(date +%s.%N)
        f=$tmp/sweep-$side-$t-$r.txt; [ $size = 5 ] && f=$tmp/sweep5-$side-$t-$r.txt
        echo "$s0 $s1" >"$f"
        /usr/bin/python3 -c "import h5py,sys; print(h5py.File(sys.argv[1],'r')['metrics']['wall_s'].sum())" "$tmp/tp-$side.h5" >>"$f"
      done
    done
  done
done

/usr/bin/python3 - "$tmp" "$BEFORE" "$ROUNDS" "$JOBS" "$SWEEP_ONLY" <<'PY'
import json, math, os, statistics, sys
tmp, before, rounds, jobs, sweep_only = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
print(f"### Side by side with {before}")
if not sweep_only:
    def ms(b):
        return b["cpu_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    def load(side):
        runs = {}
        for r in range(1, rounds + 1):
            for b in json.load(open(os.path.join(tmp, f"pf-{side}-{r}.json")))["benchmarks"]:
                if b.get("run_type") == "iteration":
                    runs.setdefault(b["name"], []).append((ms(b), b.get("nodes", 0)))
        return {k: (statistics.median(t for t, _ in v), v[0][1]) for k, v in runs.items()}
    old, new = load("old"), load("new")
    def slope(xs, ys):
        lx = [math.log(x) for x in xs]; ly = [math.log(y) for y in ys]
        mx = sum(lx) / len(lx); my = sum(ly) / len(ly)
        return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)
    def table(title, key):
        print(f"\n#### {title}\n")
        print(f"CPU time per decision (median of {rounds}), nodes in brackets; before = {before}, after = this build.\n")
        print("| regions x stages | before | after | speed-up |\n|---|---|---|---|")
        for R in (6, 16, 32, 64):
            for S in (4, 16, 64):
                k = key(R, S)
                if k not in new:
                    continue
                o, n = old.get(k), new[k]
                ob = f"{o[0]:.3f} ms ({o[1]:.0f})" if o else "-"
                sp = f"{o[0] / n[0]:.1f}x" if o else "-"
                print(f"| {R} x {S} | {ob} | {n[0]:.3f} ms ({n[1]:.0f}) | {sp} |")
        for side, d in (("before", old), ("after", new)):
            ex = []
            for R in (6, 16, 32, 64):
                ks = [key(R, S) for S in (4, 16, 64)]
                if all(k in d for k in ks):
                    ex.append(f"{R} regions {slope([4, 16, 64], [d[k][0] for k in ks]):.2f}")
            print(f"- growth exponent in stages, {side}: " + ", ".join(ex))
    table("Pathfinder: one bace-pipe decision (GPipe, even split)", lambda R, S: f"BM_PathfinderCostMin/{R}/{S}")
    table("Pathfinder: one bace-pipe decision (1F1B, balanced split)", lambda R, S: f"BM_DecisionModel/R:{R}/S:{S}/1f1b_balanced:1")
    print(f"\n#### {jobs:,} bace-pipe jobs (six-region base), /usr/bin/time, 2 runs each, alternating\n")
    print("| | before | after |\n|---|---|---|")
    cells = {}
    for side in ("old", "new"):
        vals = [open(os.path.join(tmp, f"big-{side}-{r}.txt")).read().split() for r in (1, 2)]
        cells[side] = " / ".join(f"{float(v[0]):.1f} s" for v in vals), " / ".join(f"{int(v[1]) / 1024:.0f} MB" for v in vals)
    print(f"| wall time | {cells['old'][0]} | {cells['new'][0]} |")
    print(f"| peak RSS | {cells['old'][1]} | {cells['new'][1]} |")
    print("\n#### Process start, side by side (scripts/start_time.py: every command round robin)\n")
    start = json.load(open(os.path.join(tmp, "start.json")))
    def cell(t):
        s = sorted(t)
        return f"{statistics.median(s):.2f} ms (p10 {s[len(s) // 10]:.2f})"
    print(f"Median over {len(start[0]['ms'])} runs each (10th percentile); the floors: `/bin/true` "
          f"{cell(start[0]['ms'])}, a C++ hello with a static libstdc++ {cell(start[1]['ms'])}, "
          f"the same hello wholly static {cell(start[2]['ms'])}.\n")
    print("| command | before | after |\n|---|---|---|")
    for k in range(3, len(start), 2):
        cmd = start[k]["command"].split("/src/geopipe ", 1)[1]
        print(f"| `geopipe {cmd}` | {cell(start[k]['ms'])} | {cell(start[k + 1]['ms'])} |")
def run(name):
    """(wall time, sum of wall_s) of one sweep run."""
    s0, s1, w = open(os.path.join(tmp, name)).read().split()
    return float(s1) - float(s0), float(w)
def rounds_of(side, t):
    """Per round: (wall, sum of wall_s) of the 1920-scenario sweep and of the 9600-scenario one."""
    return [(run(f"sweep-{side}-{t}-{r}.txt"), run(f"sweep5-{side}-{t}-{r}.txt")) for r in range(1, rounds + 1)]
def sweep_table(cell):
    """One row per thread count; cell(t, rounds) gives the before and the after cell."""
    print("| threads | before | after |\n|---|---|---|")
    for t in (1, 2):
        print(f"| {t} | {cell(t, rounds_of('old', t))} | {cell(t, rounds_of('new', t))} |")
print("\n#### Sweep overhead: `sweep sweeps/bench/throughput.toml` (1920 scenarios of 200 jobs)\n")
print("wall x threads / sum of the scenarios' wall_s (1.00 = no overhead), every run:\n")
sweep_table(lambda t, rs: ", ".join(f"{a * t / wa:.3f} ({a:.2f} s)" for (a, wa), _ in rs))
print("\nper scenario: the 9600-scenario sweep (5x the seeds) against it, (extra wall x threads) / (extra sum of wall_s);")
print("in brackets the 9600-scenario sweep as a whole (wall x threads / sum of wall_s) and its wall time; every round:\n")
sweep_table(lambda t, rs: ", ".join(f"{(b - a) * t / (wb - wa):.3f} ({b * t / wb:.3f}, {b:.2f} s)"
                                    for (a, wa), (b, wb) in rs))
# The two sizes fit wall x threads = F + (1 + p) x sum(wall_s): F, the sweep's fixed cost (in
# core-seconds), and p, its per-scenario overhead. The whole sweep's ratio is <= 1.05 once
# sum(wall_s) >= F / (0.05 - p).
def fixed_cost(t, rs):
    fs, need = [], []
    for (a, wa), (b, wb) in rs:
        slope = (b - a) * t / (wb - wa)
        fixed = b * t - slope * wb
        fs.append(fixed)
        need.append(fixed / (1.05 - slope) if slope < 1.05 else math.inf)
    return f"F {statistics.median(fs) * 1e3:.0f} ms, sum(wall_s) >= {statistics.median(need):.2f} s"
print("\nfixed cost F (wall x threads at no scenario, fitted on the two sizes) and the sum of wall_s")
print("from which the whole sweep's ratio is <= 1.05, F / (0.05 - p) (median over the rounds):\n")
sweep_table(fixed_cost)
PY
