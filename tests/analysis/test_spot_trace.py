#!/usr/bin/python3
"""scripts/spot_trace_csv.py (a SkyPilot spot trace as a gpus_series CSV) and the series in a run.

    test_spot_trace.py GEOPIPE SOURCE_DIR

1. A trace of 8 ticks of 300 s, 8 GPUs per instance: the CSV row by row.
2. Hostile traces (not JSON, no gap, a zero/negative/NaN-like gap, a negative, fractional or
   boolean count, no instance at all, an empty list) exit 2 naming the file and write nothing.
3. The CSV as the gpus_series of a region of tests/config/good/small.toml (wrapped): every
   preset completes every job, some jobs are evicted, and the run is the same twice.
"""
import json
import os
import subprocess
import sys
import tempfile

geopipe, src = sys.argv[1], sys.argv[2]
script = os.path.join(src, "scripts", "spot_trace_csv.py")
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "trace.json")
    out = os.path.join(tmp, "gpus.csv")
    with open(trace, "w") as f:
        json.dump({"metadata": {"gap_seconds": 300}, "data": [1, 1, 0, 0, 1, 0, 1, 1]}, f)
    p = subprocess.run([sys.executable, script, trace, "--gpus-per-instance", "8", "-o", out],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"conversion failed: {p.stderr}")
    with open(out) as f:
        text = f.read()
    want = "time_s,gpus\n" + "".join(f"{300 * k},{8 * n}\n" for k, n in enumerate([1, 1, 0, 0, 1, 0, 1, 1]))
    check(text == want, f"CSV:\n{text}\nexpected:\n{want}")

    hostile = {
        "not-json": "{metadata",
        "no-gap": json.dumps({"metadata": {}, "data": [1]}),
        "zero-gap": json.dumps({"metadata": {"gap_seconds": 0}, "data": [1]}),
        "negative-gap": json.dumps({"metadata": {"gap_seconds": -300}, "data": [1]}),
        "string-gap": json.dumps({"metadata": {"gap_seconds": "300"}, "data": [1]}),
        "negative-count": json.dumps({"metadata": {"gap_seconds": 300}, "data": [1, -1]}),
        "fractional-count": json.dumps({"metadata": {"gap_seconds": 300}, "data": [1, 0.5]}),
        "boolean-count": json.dumps({"metadata": {"gap_seconds": 300}, "data": [True]}),
        "never-any": json.dumps({"metadata": {"gap_seconds": 300}, "data": [0, 0]}),
        "empty": json.dumps({"metadata": {"gap_seconds": 300}, "data": []}),
        "a-list": "[1, 2]",
    }
    for name, body in hostile.items():
        bad = os.path.join(tmp, name + ".json")
        with open(bad, "w") as f:
            f.write(body)
        target = os.path.join(tmp, name + ".csv")
        p = subprocess.run([sys.executable, script, bad, "-o", target], capture_output=True, text=True)
        check(p.returncode == 2, f"{name}: exit {p.returncode}, expected 2")
        check(p.stderr.startswith(bad + ": "), f"{name}: message does not name the file: {p.stderr!r}")
        check(not os.path.exists(target), f"{name}: wrote {target}")

    # The series in a run: region us-east (8 GPUs, 4 after capacity_scale 0.5) loses and regains
    # its GPUs every 300 s, wrapped over the run.
    scenario = os.path.join(src, "tests", "config", "good", "small.toml")
    args = [geopipe, "run", scenario, "--scheduler", "all", "--json",
            "--set", f'cluster.region.us-east.gpus_series="{out}"', "--set", 'sim.series_end="wrap"',
            "--set", "cluster.region.us-east.spot_price_factor=0.4", "--set", "faults.checkpoint_cost_s=30"]
    runs = []
    for _ in range(2):
        p = subprocess.run(args, capture_output=True, text=True)
        check(p.returncode == 0, f"run failed: {p.stderr}")
        runs.append(p.stdout)
    wall = {"wall_s", "sched_time_total_s", "sched_time_max_s"}  # wall-clock times differ by design
    same = [[{k: v for k, v in r["metrics"].items() if k not in wall} for r in json.loads(x)["results"]] for x in runs]
    check(same[0] == same[1], "two runs of the same scenario differ")
    results = json.loads(runs[0])["results"]
    check(len(results) >= 5, f"{len(results)} presets")
    evicted = 0
    for r in results:
        m = r["metrics"]
        check(m["jobs_completed"] == m["jobs_total"], f"{r['scheduler']}: {m['jobs_completed']} of {m['jobs_total']} jobs")
        check(m["failures"] == 0, f"{r['scheduler']}: failures without an MTBF")
        check(m["restarts"] == m["preemptions"], f"{r['scheduler']}: restarts != preemptions")
        evicted += m["preemptions"]
    check(evicted > 0, "no job was evicted by the series")

print("spot trace: " + ("OK" if failures == 0 else f"{failures} failures"))
sys.exit(1 if failures else 0)
