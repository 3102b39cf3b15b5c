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
import sys

from study_common import parse_args, run_study_sweep

import geopipe


def ci(r) -> str:
    f = lambda v: f"{100 * v:+.1f}".replace("-", "\u2212")  # noqa: E731
    return f"{f(r['mean'])} % [{f(r['lo'])}, {f(r['hi'])}]"


def main() -> int:
    a = parse_args(__doc__)
    df = geopipe.load(run_study_sweep(a, "wait-awhile", "wait"))
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
