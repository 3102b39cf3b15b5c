#!/usr/bin/python3
"""Effective training time of the Llama-3-like run under failures, simulated and in closed form
(docs/model.md, "Failures and checkpoints"; sweeps/studies/faults/llama3-like.toml).

    scripts/llama3_ett.py [--geopipe BIN] [--seeds N] [--check]

Runs sweeps/studies/faults/llama3-like.toml (one job of 16,384 H100s, 1,296 h of failure-free
work, a GPU MTBF of 50,676 h: Llama 3's 419 interruptions in 54 days) with seeds 1..N (default 5)
under hourly checkpoints and under Young/Daly's interval ("auto"), and prints per policy the
effective training time ETT = W / JCT of each seed (W = iterations x first_iteration_s, the
failure-free run time; JCT = finish - arrival) next to the closed form W / E[JCT] with
E[JCT] = sum_k (e^{lambda x_k} - 1)(1/lambda + R) (model/faults.h, expected_jct_s). The
checkpoint cost C comes from a run without failures (its checkpoint GPU-hours over the
checkpoints it wrote). "The Llama 3 Herd of Models" (arXiv 2407.21783, Sec. 3.3.4) reports more
than 90 % effective training time.

--check: exit 1 unless every seed's ETT lies within 0.03 of the closed form and the mean ETT
with Young/Daly's interval is above 0.90 (what tests/analysis runs).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "sweeps", "studies", "faults", "llama3-like.toml")
GPUS = 16384
MTBF_H = 50676.0
RESTART_S = 600.0


def run(geopipe, seed, sets):
    """The job's row of `geopipe run` with these --set overrides (a dict of its columns)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "jobs.csv")
        cmd = [geopipe, "run", SCENARIO, "--seed", str(seed), "--jobs-csv", path]
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"llama3_ett: {' '.join(cmd)} failed: {p.stderr.strip()}")
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("job_id") == "0"]
    if len(rows) != 1:
        sys.exit(f"llama3_ett: expected one job row from {' '.join(cmd)}")
    return rows[0]


def expected_jct_s(work_s, interval_s, cost_s, lam, restart_s):
    """model/faults.h expected_jct_s: segments of interval + cost, then the rest."""
    seg = lambda x: (math.expm1(lam * x)) * (1 / lam + restart_s)
    n = math.ceil(work_s / interval_s) - 1 if math.isfinite(interval_s) else 0
    return n * seg(interval_s + cost_s) + seg(work_s - n * interval_s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geopipe", default=os.path.join(HERE, "..", "build", "src", "geopipe"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error("--seeds must be at least 1")
    lam = GPUS / (MTBF_H * 3600)
    # The checkpoint cost, from hourly checkpoints without failures: n = ceil(W / tau) - 1 of them.
    calm = run(a.geopipe, 1, ["faults.gpu_mtbf_h=1e12"])
    work = float(calm["iterations"]) * float(calm["first_iteration_s"])
    n = math.ceil(work / 3600) - 1
    cost = float(calm["checkpoint_gpu_hours"]) * 3600 / (GPUS * n)
    tau_auto = math.sqrt(2 * cost / lam)
    print(f"W = {work / 3600:.1f} h of work, lambda = 1/{1 / lam / 3600:.2f} h, C = {cost:.2f} s, R = {RESTART_S:g} s")
    ok = True
    means = {}
    for name, interval, sets in (("hourly", 3600.0, []),
                                 ("Young/Daly", tau_auto, ['faults.checkpoint_interval_s="auto"'])):
        closed = work / expected_jct_s(work, interval, cost, lam, RESTART_S)
        etts = []
        for seed in range(1, a.seeds + 1):
            r = run(a.geopipe, seed, sets)
            ett = float(r["iterations"]) * float(r["first_iteration_s"]) / (float(r["finish_s"]) - float(r["arrival_s"]))
            etts.append(ett)
            if a.check and abs(ett - closed) > 0.03:
                print(f"FAIL: {name} seed {seed}: ETT {ett:.4f} is not within 0.03 of the closed form {closed:.4f}")
                ok = False
            print(f"  {name:10s} (every {interval:7.1f} s) seed {seed}: ETT {ett:.4f}, {r['failures']} failures")
        means[name] = sum(etts) / len(etts)
        print(f"{name:10s}: ETT {min(etts):.3f}-{max(etts):.3f} over seeds 1-{a.seeds} (mean {means[name]:.3f}); "
              f"closed form {closed:.3f}")
    if a.check and not means["Young/Daly"] > 0.90:
        print(f"FAIL: mean ETT with Young/Daly's interval {means['Young/Daly']:.4f} is not above 0.90")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
