#!/usr/bin/python3
"""The baselines study (sweeps/studies/baselines.toml and baselines-ideal.toml,
results/studies/baselines/REPORT.md): runs both sweeps with the geopipe binary given (default
build/src/geopipe) into OUT_DIR/baselines.h5 and OUT_DIR/baselines-ideal.h5 (whose schedulers
are listed as "<name>@ideal-lan": the same jobs on the idealised network), writes OUT_DIR/summary.csv (one row per load, bandwidth and scheduler: the mean over the seeds of
the mean JCT, its offline lower bound (jct_lower_bound_s) and the p99 queueing delay in hours, total cost, mean and worst finish-time
fairness rho, unfair fraction, Jain's index over 1/rho and preemptions) and prints the report's
tables as markdown (the REPORT's tables are this output, verbatim).

usage: baselines_study.py [--geopipe BIN] OUT_DIR
Run with Debian's /usr/bin/python3 (pandas, h5py).
"""

import os
import sys

from study_common import parse_args, run_study_sweep

import geopipe
import pandas as pd

METRICS = ["jct_h", "bound_h", "p99_queue_h", "total_cost_usd", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction",
           "jain_fairness", "preemptions"]


def main() -> int:
    a = parse_args(__doc__)
    frames = []
    for name in ("baselines", "baselines-ideal"):
        h5 = run_study_sweep(a, name)
        part = geopipe.load(h5)
        if name == "baselines-ideal":
            part["scheduler"] = part["scheduler"] + "@ideal-lan"
        frames.append(part)
    df = pd.concat(frames, ignore_index=True)
    assert (df["jobs_unfinished"] == 0).all(), "a run left jobs unfinished"
    df["load"] = df["workload.load_scale"]
    df["bandwidth"] = df["network.bandwidth_scale"]
    df["jct_h"] = df["avg_jct_s"] / 3600
    df["bound_h"] = df["jct_lower_bound_s"] / 3600
    df["p99_queue_h"] = df["p99_queue_delay_s"] / 3600
    keys = ["load", "bandwidth", "scheduler"]
    order = {s: k for k, s in enumerate(df["scheduler"].drop_duplicates())}  # the sweep's order
    out = df.groupby(keys, sort=False)[METRICS].mean().reset_index()
    out = out.sort_values(by=keys, key=lambda c: c.map(order) if c.name == "scheduler" else c).reset_index(drop=True)
    out.to_csv(os.path.join(a.out_dir, "summary.csv"), index=False, float_format="%.6g")

    print("\n### Every condition: mean over 3 seeds\n")
    print("| load | bandwidth | scheduler | JCT (h) | bound (h) | p99 queue (h) | cost (USD) | mean ρ | max ρ | unfair | "
          "Jain | preemptions |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for _, r in out.iterrows():
        print(f"| {r.load:g} | {r.bandwidth:g} | {r.scheduler} | {r.jct_h:.2f} | {r.bound_h:.2f} | {r.p99_queue_h:.2f} | "
              f"{r.total_cost_usd:.1f} | {r.avg_ftf_rho:.2f} | {r.max_ftf_rho:.1f} | {r.unfair_fraction:.2f} | "
              f"{r.jain_fairness:.3f} | {r.preemptions:.1f} |")

    # Paired by seed (the same 200 jobs): mean JCT and cost of each scheduler against bace-pipe's.
    base = df[df["scheduler"] == "bace-pipe"].set_index(["load", "bandwidth", "seed"])
    idx = list(zip(df["load"], df["bandwidth"], df["seed"]))
    df["jct_vs_bace"] = df["avg_jct_s"].values / base.loc[idx, "avg_jct_s"].values - 1
    df["cost_vs_bace"] = df["total_cost_usd"].values / base.loc[idx, "total_cost_usd"].values - 1
    print("\n### Against bace-pipe on the same jobs (scheduler / bace-pipe − 1, mean over the 18 runs of the "
          "six conditions: JCT, cost; and the conditions where the scheduler's mean JCT is below bace-pipe's)\n")
    print("| scheduler | JCT | cost | conditions faster than bace-pipe |")
    print("|---|---|---|---|")
    bace = out[out["scheduler"] == "bace-pipe"].set_index(["load", "bandwidth"])["jct_h"]
    for sname in order:
        if sname == "bace-pipe":
            continue
        part = df[df["scheduler"] == sname]
        mine = out[out["scheduler"] == sname].set_index(["load", "bandwidth"])["jct_h"]
        faster = [f"{l:g}/{b:g}" for (l, b), v in mine.items() if v < bace.loc[(l, b)]]
        print(f"| {sname} | {part['jct_vs_bace'].mean() * 100:+.1f} % | {part['cost_vs_bace'].mean() * 100:+.1f} % | "
              f"{', '.join(faster) if faster else 'none'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
