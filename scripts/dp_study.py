#!/usr/bin/python3
"""The data-parallelism study (sweeps/studies/dp-vs-pp.toml, results/studies/dp-vs-pp/REPORT.md):
runs the sweep with the geopipe binary given (default build/src/geopipe) into OUT_DIR/dp-vs-pp.h5,
writes OUT_DIR/summary.csv (one row per shape, synchronisation, bandwidth scale and scheduler:
mean JCT in hours, total cost, sync_fraction, stall_fraction, sync_bytes, and the replicas D the
jobs ran with: `d_ran`, "D:count" pairs, which for the flexible shapes (data_parallel = 0) is the
scheduler's choice) and prints the report's tables as markdown (the REPORT's tables are this output, verbatim).

usage: dp_study.py [--geopipe BIN] OUT_DIR
Run with Debian's /usr/bin/python3 (pandas, h5py).
"""

import os
import sys

from study_common import parse_args, run_study_sweep

import geopipe


def main() -> int:
    a = parse_args(__doc__)
    h5 = run_study_sweep(a, "dp-vs-pp", extra=("--save-jobs",))
    df = geopipe.load(h5)
    jobs = geopipe.load_jobs(h5)
    ran = jobs.groupby("scenario_id")["data_parallel"].apply(
        lambda d: " ".join(f"{k}:{n}" for k, n in sorted(d.value_counts().items())))
    df["d_ran"] = df["id"].map(ran)
    df["shape"] = df["workload.trace"].str.extract(r"dp/(\w+)\.csv", expand=False)
    df["jct_h"] = df["avg_jct_s"] / 3600
    cols = ["shape", "sim.dp_sync", "network.bandwidth_scale", "scheduler"]
    out = df[cols + ["jct_h", "total_cost_usd", "sync_fraction", "stall_fraction", "sync_bytes", "d_ran"]].sort_values(cols)
    out.to_csv(os.path.join(a.out_dir, "summary.csv"), index=False, float_format="%.6g")
    sizes = (("16-GPU jobs", ["pp16", "dp2", "dp4", "flex16"]), ("32-GPU jobs", ["pp32", "dp2x16", "dp4x8", "flex32"]))
    titles = {"jct_h": "Mean JCT (h)", "total_cost_usd": "Total cost (USD, electricity and egress)",
              "sync_fraction": "Share of time spent synchronising (`sync_fraction`)"}
    for metric, fmt in (("jct_h", "{:.2f}"), ("total_cost_usd", "{:.1f}"), ("sync_fraction", "{:.3f}")):
        for size, shapes in sizes:
            for sched in sorted(df["scheduler"].unique()):
                part = df[(df["scheduler"] == sched) & df["shape"].isin(shapes)]
                t = part.pivot_table(index="network.bandwidth_scale", columns=["sim.dp_sync", "shape"], values=metric)
                t = t[[(sync, sh) for sync in ("allreduce", "diloco") for sh in shapes]]
                print(f"\n### {titles[metric]}, {size}, {sched}\n")
                heads = [f"{s} {h}" for s, h in t.columns]
                print("| bandwidth_scale | " + " | ".join(heads) + " |")
                print("|---|" + "---|" * len(heads))
                for bw, row in t.iterrows():
                    print(f"| {bw:g} | " + " | ".join(fmt.format(v) for v in row) + " |")
    flex = out[out["shape"].str.startswith("flex")]
    for sched in sorted(flex["scheduler"].unique()):
        t = flex[flex["scheduler"] == sched].pivot(index="network.bandwidth_scale", columns=["sim.dp_sync", "shape"],
                                                   values="d_ran")
        print(f"\n### Replicas chosen for the flexible jobs (D:jobs), {sched}\n")
        heads = [f"{s} {h}" for s, h in t.columns]
        print("| bandwidth_scale | " + " | ".join(heads) + " |")
        print("|---|" + "---|" * len(heads))
        for bw, row in t.iterrows():
            print(f"| {bw:g} | " + " | ".join(str(v) for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
