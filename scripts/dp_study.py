#!/usr/bin/python3
"""The data-parallelism study (sweeps/studies/dp-vs-pp.toml, results/studies/dp-vs-pp/REPORT.md):
runs the sweep with the geopipe binary given (default build/src/geopipe) into OUT_DIR/dp-vs-pp.h5,
writes OUT_DIR/summary.csv (one row per shape, synchronisation, bandwidth scale and scheduler:
mean JCT in hours, total cost, sync_fraction, stall_fraction, sync_bytes) and prints the report's
tables as markdown.

usage: dp_study.py [--geopipe BIN] OUT_DIR
Run with Debian's /usr/bin/python3 (pandas, h5py).
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))

import geopipe  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geopipe", default=os.path.join(REPO, "build", "src", "geopipe"))
    ap.add_argument("out_dir")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    h5 = os.path.join(a.out_dir, "dp-vs-pp.h5")
    subprocess.run([a.geopipe, "sweep", os.path.join(REPO, "sweeps", "studies", "dp-vs-pp.toml"), "-o", h5, "--force",
                    "--no-mpi", "--quiet"], check=True)
    df = geopipe.load(h5)
    df["shape"] = df["workload.trace"].str.extract(r"dp/(\w+)\.csv", expand=False)
    df["jct_h"] = df["avg_jct_s"] / 3600
    cols = ["shape", "sim.dp_sync", "network.bandwidth_scale", "scheduler"]
    out = df[cols + ["jct_h", "total_cost_usd", "sync_fraction", "stall_fraction", "sync_bytes"]].sort_values(cols)
    out.to_csv(os.path.join(a.out_dir, "summary.csv"), index=False, float_format="%.6g")
    for metric, fmt in (("jct_h", "{:.2f}"), ("total_cost_usd", "{:.1f}"), ("sync_fraction", "{:.3f}")):
        for sched in sorted(df["scheduler"].unique()):
            t = df[df["scheduler"] == sched].pivot_table(index="network.bandwidth_scale", columns=["sim.dp_sync", "shape"],
                                                        values=metric)
            print(f"\n{metric}, {sched}\n")
            heads = [f"{s} {h}" for s, h in t.columns]
            print("| bandwidth_scale | " + " | ".join(heads) + " |")
            print("|---|" + "---|" * len(heads))
            for bw, row in t.iterrows():
                print(f"| {bw:g} | " + " | ".join(fmt.format(v) for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
