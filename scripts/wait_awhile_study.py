#!/usr/bin/python3
"""The temporal-shifting study (sweeps/studies/wait-awhile.toml, results/studies/wait-awhile/):
runs the sweep with the geopipe binary given (default build/src/geopipe) into OUT_DIR/wait.h5
and prints the REPORT's table as markdown: per signal and slack, the mean over the seeds of
bace-pipe's and wait-awhile's mean JCT (h), and wait-awhile's change in total electricity cost,
total carbon and mean JCT against bace-pipe on the same jobs (wait-awhile / bace-pipe − 1,
paired by seed: mean and 95 % Student-t interval).

usage: wait_awhile_study.py [--geopipe BIN] OUT_DIR
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


def ci(r) -> str:
    f = lambda v: f"{100 * v:+.1f}".replace("-", "\u2212")  # noqa: E731
    return f"{f(r['mean'])} % [{f(r['lo'])}, {f(r['hi'])}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geopipe", default=os.path.join(REPO, "build", "src", "geopipe"))
    ap.add_argument("out_dir")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    h5 = os.path.join(a.out_dir, "wait.h5")
    subprocess.run([a.geopipe, "sweep", os.path.join(REPO, "sweeps", "studies", "wait-awhile.toml"), "-o", h5,
                    "--force", "--no-mpi", "--quiet"], check=True)
    df = geopipe.load(h5)
    assert (df["jobs_unfinished"] == 0).all(), "a run left jobs unfinished"
    ch = {m: geopipe.paired_change(df, m, "wait-awhile", "bace-pipe", "point").set_index("point")
          for m in ("total_cost_usd", "total_carbon_g", "avg_jct_s")}
    jct = df.groupby(["point", "scheduler"])["avg_jct_s"].mean() / 3600
    print("| signal | slack (h) | JCT bace-pipe (h) | JCT wait-awhile (h) | cost change | carbon change | JCT change |")
    print("|---|---|---|---|---|---|---|")
    for p in sorted(df["point"].unique()):
        row = df[df["point"] == p].iloc[0]
        print(f"| {row['scheduler.wait_awhile_signal']} | {row['workload.mix.gpt3-1.3b.slack_s'] / 3600:g} | "
              f"{jct[(p, 'bace-pipe')]:.2f} | {jct[(p, 'wait-awhile')]:.2f} | {ci(ch['total_cost_usd'].loc[p])} | "
              f"{ci(ch['total_carbon_g'].loc[p])} | {ci(ch['avg_jct_s'].loc[p])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
