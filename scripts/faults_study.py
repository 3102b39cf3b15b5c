#!/usr/bin/python3
"""The failures study (sweeps/studies/faults.toml and faults-hourly.toml,
results/studies/faults/REPORT.md): runs both sweeps with the geopipe binary given (default
build/src/geopipe) into OUT_DIR/faults.h5 and OUT_DIR/faults-hourly.h5, writes OUT_DIR/summary.csv
(one row per GPU MTBF, checkpoint policy, spot capacity and scheduler: the mean over the seeds of
the mean JCT in hours, total cost, goodput, failures, preemptions, lost and checkpoint GPU-hours,
and the least and greatest total cost over the seeds) and prints the report's tables as markdown
(the REPORT's tables are this output, verbatim).

usage: faults_study.py [--geopipe BIN] OUT_DIR
Run with Debian's /usr/bin/python3 (pandas, h5py).
"""

import os
import sys

from study_common import parse_args, run_study_sweep

import geopipe
import pandas as pd

METRICS = ["jct_h", "total_cost_usd", "goodput", "failures", "preemptions", "lost_gpu_hours", "checkpoint_gpu_hours"]


def main() -> int:
    a = parse_args(__doc__)
    frames = []
    for name in ("faults", "faults-hourly"):
        h5 = run_study_sweep(a, name)
        df = geopipe.load(h5)
        if name == "faults-hourly":
            df["faults.checkpoint_interval_s"] = "hourly"
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df["mtbf_h"] = df["faults.gpu_mtbf_h"].map(lambda v: "none" if v >= 1e11 else f"{v:g}")
    df["checkpoints"] = df["faults.checkpoint_interval_s"]
    df["spot"] = df["cluster.region.us-east.spot_mtbp_h"].map(lambda v: "no" if v >= 1e11 else "us-east+us-west")
    df["jct_h"] = df["avg_jct_s"] / 3600
    keys = ["mtbf_h", "checkpoints", "spot", "scheduler"]
    g = df.groupby(keys, sort=False)
    out = g[METRICS].mean()
    out["cost_min_usd"] = g["total_cost_usd"].min()
    out["cost_max_usd"] = g["total_cost_usd"].max()
    out = out.reset_index()
    order = {"none": 0, "8000": 1, "800": 2}
    ck = {"auto": 0, "hourly": 1, "none": 2}
    out = out.sort_values(by=keys, key=lambda c: c.map(order) if c.name == "mtbf_h" else (
        c.map(ck) if c.name == "checkpoints" else c)).reset_index(drop=True)
    out.to_csv(os.path.join(a.out_dir, "summary.csv"), index=False, float_format="%.6g")

    # One table per condition: the schedulers side by side.
    print("\n### Every condition: mean over 3 seeds\n")
    print("| GPU MTBF (h) | checkpoints | spot | scheduler | JCT (h) | cost (USD) | cost range | goodput | "
          "failures | preemptions | lost GPU-h | checkpoint GPU-h |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for _, r in out.iterrows():
        print(f"| {r.mtbf_h} | {r.checkpoints} | {r.spot} | {r.scheduler} | {r.jct_h:.2f} | {r.total_cost_usd:.1f} | "
              f"{r.cost_min_usd:.1f}–{r.cost_max_usd:.1f} | {r.goodput:.3f} | {r.failures:.1f} | {r.preemptions:.1f} | "
              f"{r.lost_gpu_hours:.1f} | {r.checkpoint_gpu_hours:.1f} |")

    # Who is cheapest and who is fastest in each condition, and by how much.
    print("\n### Cheapest and fastest scheduler per condition\n")
    print("| GPU MTBF (h) | checkpoints | spot | cheapest (USD) | next (USD) | bace-pipe (USD, JCT h) | fastest (JCT h) |")
    print("|---|---|---|---|---|---|---|")
    for cond, part in out.groupby(keys[:3], sort=False):
        by_cost = part.sort_values("total_cost_usd")
        c0, c1 = by_cost.iloc[0], by_cost.iloc[1]
        fast = part.sort_values("jct_h").iloc[0]
        bace = part[part["scheduler"] == "bace-pipe"].iloc[0]
        print(f"| {cond[0]} | {cond[1]} | {cond[2]} | {c0.scheduler} {c0.total_cost_usd:.1f} | "
              f"{c1.scheduler} {c1.total_cost_usd:.1f} | {bace.total_cost_usd:.1f}, {bace.jct_h:.2f} | "
              f"{fast.scheduler} {fast.jct_h:.2f} |")

    # Paired by seed (the same 200 jobs): each scheduler's cost against bace-pipe's.
    base = df[df["scheduler"] == "bace-pipe"].set_index(keys[:3] + ["seed"])["total_cost_usd"]
    df["vs_bace"] = df["total_cost_usd"].values / base.loc[list(zip(*(df[k] for k in keys[:3] + ["seed"])))].values - 1
    scheds = [s for s in ("cost-first", "delay-first", "greedy-cost", "first-fit")]
    print("\n### Cost against bace-pipe on the same jobs (scheduler / bace-pipe − 1 per seed: mean, and least–greatest)\n")
    print("| GPU MTBF (h) | checkpoints | spot | " + " | ".join(scheds) + " |")
    print("|---|---|---|" + "---|" * len(scheds))
    for cond, part in df.groupby(keys[:3], sort=False):
        cells = []
        for sname in scheds:
            v = part[part["scheduler"] == sname]["vs_bace"] * 100
            cells.append(f"{v.mean():+.1f} % ({v.min():+.1f}…{v.max():+.1f})")
        print(f"| {cond[0]} | {cond[1]} | {cond[2]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
