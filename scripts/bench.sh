#!/usr/bin/env bash
# Simulator-core benchmarks (docs/performance.md, "Simulator core"): the GPipe recurrence, max-min, the pathfinder by
# regions x stages, and whole scenarios of 200 / 2k / 20k / 100k jobs for every preset, measured
# in one run; prints markdown tables and growth exponents. Not part of ctest.
#   scripts/bench.sh [BUILD_DIR] [--quick]      (--quick: 200..20k jobs only)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
QUICK=${2:-}
[ -x "$B/tests/bench/bench_core" ] || { echo "build first: cmake --build $B (needs libbenchmark-dev)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
filter='BM_Scenario/.*/(200|2000|20000|100000)/'
[ "$QUICK" = "--quick" ] && filter='BM_Scenario/.*/(200|2000|20000)/'
echo "running micro-benchmarks..." >&2
"$B/tests/bench/bench_core" --benchmark_filter='BM_Gpipe|BM_MaxMin' --benchmark_min_time=0.2 \
  --benchmark_format=json >"$tmp/micro.json" 2>/dev/null
"$B/tests/bench/bench_pathfinder" --benchmark_min_time=0.2 --benchmark_format=json >"$tmp/pf.json" 2>/dev/null
echo "running scenarios (3 runs each, median; 100k jobs take about a second per preset and run)..." >&2
"$B/tests/bench/bench_core" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$tmp/scen.json" 2>/dev/null
/usr/bin/python3 - "$tmp" <<'PY'
import json, math, sys, os
tmp = sys.argv[1]
def load(n):
    return [b for b in json.load(open(os.path.join(tmp, n)))["benchmarks"] if b.get("run_type") == "iteration"]
def ms(b):
    t = b["cpu_time"]; u = b["time_unit"]
    return t * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[u]
def slope(xs, ys):
    lx = [math.log(x) for x in xs]; ly = [math.log(y) for y in ys]
    mx = sum(lx) / len(lx); my = sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)

micro = load("micro.json")
print("## GPipe recurrence (S stages x m micro-batches), CPU time per call\n")
print("| S \\ m | " + " | ".join(str(m) for m in (8, 64, 256)) + " |\n|---|---|---|---|")
g = {tuple(int(x) for x in b["name"].split("/")[1:3]): ms(b) * 1e3 for b in micro if b["name"].startswith("BM_Gpipe")}
for S in (4, 16, 64):
    print(f"| {S} | " + " | ".join(f"{g[(S, m)]:.2f} µs" for m in (8, 64, 256)) + " |")
print(f"\ngrowth exponent in S·m: {slope([S * m for (S, m) in g], list(g.values())):.2f} (O(S·m))\n")
mm = {int(b["name"].split("/")[1]): ms(b) * 1e3 for b in micro if b["name"].startswith("BM_MaxMin/")}
print("## Max-min water-filling, n flows on one link, CPU time per call\n")
print("| flows | " + " | ".join(str(n) for n in sorted(mm)) + " |\n|---|" + "---|" * len(mm))
print("| time | " + " | ".join(f"{mm[n]:.2f} µs" for n in sorted(mm)) + " |")
print(f"\ngrowth exponent in n: {slope(sorted(mm), [mm[n] for n in sorted(mm)]):.2f} (O(n log n): a sort)\n")

pf = load("pf.json")
p = {tuple(int(x) for x in b["name"].split("/")[1:3]): (ms(b), b.get("nodes", 0), b.get("truncated", 0))
     for b in pf if b["name"].startswith("BM_PathfinderCostMin/")}
parts = {}
for b in pf:
    if b["name"].startswith("BM_PathfinderPart/"):
        kv = dict(x.split(":") for x in b["name"].split("/")[1:])
        parts[(int(kv["R"]), int(kv["S"]), int(kv["cost"]))] = (ms(b), b.get("nodes", 0))
print("## Pathfinder: one bace-pipe decision (fastest stall-free search + cost-min search), CPU time\n")
Rs = sorted({k[0] for k in p})
print("| regions \\ stages | 4 | 16 | 64 |\n|---|---|---|---|")
for R in Rs:
    print(f"| {R} | " + " | ".join(f"{p[(R, S)][0]:.3f} ms ({p[(R, S)][1]:.0f} nodes)" for S in (4, 16, 64)) + " |")
for S in (4, 16, 64):
    print(f"- growth exponent in regions at {S} stages: {slope(Rs, [p[(R, S)][0] for R in Rs]):.2f}")
for R in Rs:
    print(f"- growth exponent in stages at {R} regions: {slope([4, 16, 64], [p[(R, S)][0] for S in (4, 16, 64)]):.2f}")
dm = {}
for b in pf:
    if b["name"].startswith("BM_DecisionModel/"):
        kv = dict(x.split(":") for x in b["name"].split("/")[1:])
        dm[(int(kv["R"]), int(kv["S"]), int(kv["1f1b_balanced"]))] = (ms(b), b.get("nodes", 0))
if dm:
    print("\nThe same decision with 1F1B and the balanced split (BM_DecisionModel/.../1f1b_balanced:1):\n")
    print("| regions \\ stages | 4 | 16 | 64 |\n|---|---|---|---|")
    for R in sorted({k[0] for k in dm}):
        print(f"| {R} | " + " | ".join(f"{dm[(R, S, 1)][0]:.3f} ms ({dm[(R, S, 1)][1]:.0f} nodes)" for S in (4, 16, 64)) + " |")
tw = {tuple(int(x) for x in b["name"].split("/")[1:4]): (ms(b), b.get("nodes", 0)) for b in pf if b["name"].startswith("BM_PathfinderTwins/")}
if tw:
    print("\nAll regions identical (twins), one decision, default strategy vs plain DFS:\n")
    print("| regions x stages | default (kAuto) | plain DFS |\n|---|---|---|")
    for (R, S) in sorted({(k[0], k[1]) for k in tw}):
        print(f"| {R} x {S} | " + " | ".join(f"{tw[(R, S, pl)][0]:.3f} ms ({tw[(R, S, pl)][1]:.0f} nodes)" for pl in (0, 1)) + " |")
if parts:
    print("\nThe two searches of a decision separately (fastest stall-free / cost-min within 1.1x):\n")
    Ss = sorted({k[1] for k in parts})
    print("| regions | " + " | ".join(f"{S} stages: fastest | {S} stages: cost-min" for S in Ss) + " |\n|---|" + "---|---|" * len(Ss))
    for R in sorted({k[0] for k in parts}):
        print(f"| {R} | " + " | ".join(f"{parts[(R, S, 0)][0]:.3f} ms ({parts[(R, S, 0)][1]:.0f}) | {parts[(R, S, 1)][0]:.3f} ms ({parts[(R, S, 1)][1]:.0f})" for S in Ss) + " |")
st = {}
for b in pf:
    if b["name"].startswith("BM_DecisionStrategy/"):
        kv = dict(x.split(":") for x in b["name"].split("/")[1:])
        st[(int(kv["R"]), int(kv["S"]), int(kv["strategy"]))] = (1e3 / b["items_per_second"], b.get("nodes", 0))
if st:
    print("\nThe strategy below 8 regions: one decision, mean over 16 random instances of each size, CPU time "
          "(nodes); kAuto's choice in bold:\n")
    Ss = sorted({k[1] for k in st})
    print("| regions | " + " | ".join(f"{S} stages: sets / plain" for S in Ss) + " |\n|---|" + "---|" * len(Ss))
    for R in sorted({k[0] for k in st}):
        cells = []
        for S in Ss:
            a, pl, auto = st[(R, S, 1)], st[(R, S, 2)], st[(R, S, 0)]
            f = [f"{a[0]:.3f} ms ({a[1]:.0f})", f"{pl[0]:.3f} ms ({pl[1]:.0f})"]
            if a[1] != pl[1]:  # kAuto's strategy, told by its node count (equal counts: not marked)
                chosen = 0 if auto[1] == a[1] else 1
                f[chosen] = f"**{f[chosen]}**"
            cells.append(" / ".join(f))
        print(f"| {R} | " + " | ".join(cells) + " |")
    for R in sorted({k[0] for k in st}):
        if all((R, S, 0) in st for S in (4, 16, 64)):
            print(f"- growth exponent in stages at {R} regions (kAuto, 16 instances, 4/16/64 stages): "
                  f"{slope([4, 16, 64], [st[(R, S, 0)][0] for S in (4, 16, 64)]):.2f}")

sc = [b for b in json.load(open(os.path.join(tmp, "scen.json")))["benchmarks"] if b.get("aggregate_name") == "median"]
for b in sc:
    b["name"] = b["run_name"]
rows = {}
for b in sc:
    parts = b["name"].split("/")
    rows.setdefault(parts[1], {})[int(parts[2])] = (ms(b), b.get("sched_max_ms", 0.0))
ns = sorted({n for r in rows.values() for n in r})
print("\n## One scenario end to end (six-region base, N jobs at 10 jobs/h), CPU time, median of 3 runs\n")
print("| preset | " + " | ".join(f"{n} jobs" for n in ns) + " | exponent (2k→max) | max scheduler call |\n|---|" + "---|" * (len(ns) + 2))
for name, r in rows.items():
    big = [n for n in ns if n >= 2000 and n in r]
    e = slope(big, [r[n][0] for n in big]) if len(big) >= 2 else float("nan")
    print(f"| {name} | " + " | ".join(f"{r[n][0]:.1f} ms" if n in r else "-" for n in ns) + f" | {e:.2f} | {max(v[1] for v in r.values()):.2f} ms |")
PY
