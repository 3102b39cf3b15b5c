#!/usr/bin/python3
"""The "literature's schedulers" section of results/paper/REPORT.md: bace-pipe beside the field's
standard baselines in Fig. 4's setting (sweeps/paper/literature/fig4_literature.toml), with the
fairness metrics and the offline lower bound of the mean JCT (docs/model.md:
"Literature baselines", "Fairness", "Lower bound on the mean JCT").

  literature_report.py --out SECTION.md fig4_literature.h5

Per point: each scheduler's means over the seeds (average JCT, total cost, p99 queueing delay,
worst finish-time fairness rho, unfair fraction, Jain's index over 1/rho, preemptions), its JCT
and cost change against bace-pipe paired by seed (scheduler / bace-pipe − 1, mean and 95 %
Student-t interval, as scripts/report.py), and the bound: the mean over the seeds of
jct_lower_bound_s and each scheduler's mean JCT above it. The sentences are decided from the
numbers by the rules written below. Run with Debian's /usr/bin/python3.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import geopipe  # noqa: E402

H = 3600.0
MINUS = "\u2212"
TARGET = "bace-pipe"


def pct(x: float, digits: int = 1) -> str:
    s = f"{100 * x:+.{digits}f}"
    return s.replace("-", MINUS) + " %"


def pct_ci(mean: float, lo: float, hi: float) -> str:
    if not np.isfinite(mean):
        return "n/a"
    f = lambda v: f"{100 * v:+.1f}".replace("-", MINUS)  # noqa: E731
    return f"{f(mean)} % [{f(lo)}, {f(hi)}]"


def significant(lo: float, hi: float) -> int:
    """−1: the interval is below 0, +1: above 0, 0: it contains 0."""
    return -1 if hi < 0 else (1 if lo > 0 else 0)


def section(path: str) -> str:
    df = geopipe.load(path)
    if (df["jobs_unfinished"] != 0).any():
        raise ValueError(f"{path}: a run left jobs unfinished")
    scheds = geopipe.scheduler_order(df)
    if TARGET not in scheds:
        raise ValueError(f"{path}: no {TARGET} runs")
    labels = {0: "mixed (1.3B–101B)", 1: "small models only (1.3B–13B)", 2: "large models only (33B–101B)"}
    seeds = sorted(df["seed"].unique().tolist())
    a = df.attrs
    out = ["## The literature's schedulers in Fig. 4's setting (`fig4-literature`)", "",
           f"- file: `{path}` · geopipe_version: `{a.get('geopipe_version', '?')}` · sweep_hash: "
           f"`{a.get('sweep_hash', '?')}`",
           f"- {df['point'].nunique()} points × {len(seeds)} seeds × {len(scheds)} schedulers "
           f"({', '.join(scheds)}); every scheduler of a seed saw the same 200 jobs.",
           "- JCT and cost changes are `scheduler / bace-pipe − 1` paired by seed (mean and 95 % "
           "Student-t interval; negative = lower than bace-pipe). ρ = JCT / isolated JCT (finish-time "
           "fairness); unfair = share of jobs with ρ > 1.05; Jain = Jain's index over 1/ρ. The bound is "
           "`jct_lower_bound_s`, an offline lower bound of the mean JCT of the same jobs that no "
           "scheduler can beat (docs/model.md); \"above bound\" = mean JCT / mean bound − 1. The bound "
           "lets a job use every GPU of the cluster in its relaxation, so under load it is loose: a "
           "large distance to it measures the bound's slack as much as the schedulers'.", ""]
    pairs = {(s, m): geopipe.paired_change(df, m, s, TARGET, "point").set_index("point")
             for s in scheds if s != TARGET for m in ("avg_jct_s", "total_cost_usd")}
    means = df.groupby(["point", "scheduler"])[
        ["avg_jct_s", "total_cost_usd", "p99_queue_delay_s", "max_ftf_rho", "unfair_fraction", "jain_fairness",
         "preemptions", "jct_lower_bound_s"]].mean()
    findings = []
    for p in sorted(df["point"].unique()):
        bound = df[df["point"] == p].groupby("seed")["jct_lower_bound_s"].first().mean()
        out += [f"### Point {p}: {labels.get(int(p), f'point {p}')}", "",
                f"Offline lower bound of the mean JCT: **{bound / H:.2f} h** (mean over the seeds).", "",
                "| scheduler | avg JCT (h) | above bound | JCT vs bace-pipe | cost (USD) | cost vs bace-pipe | "
                "p99 queue (h) | max ρ | unfair | Jain | preemptions |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        faster, cheaper = [], []
        for s in scheds:
            m = means.loc[(p, s)]
            if s == TARGET:
                jc, cc = "—", "—"
            else:
                j = pairs[(s, "avg_jct_s")].loc[p]
                c = pairs[(s, "total_cost_usd")].loc[p]
                jc, cc = pct_ci(j["mean"], j["lo"], j["hi"]), pct_ci(c["mean"], c["lo"], c["hi"])
                if significant(j["lo"], j["hi"]) < 0:
                    faster.append(f"`{s}` ({pct(j['mean'])})")
                if significant(c["lo"], c["hi"]) < 0:
                    cheaper.append(f"`{s}` ({pct(c['mean'])})")
            out.append(f"| {s} | {m.avg_jct_s / H:.2f} | {pct(m.avg_jct_s / bound - 1, 0)} | {jc} | "
                       f"{m.total_cost_usd:.1f} | {cc} | {m.p99_queue_delay_s / H:.2f} | {m.max_ftf_rho:.1f} | "
                       f"{m.unfair_fraction:.2f} | {m.jain_fairness:.3f} | {m.preemptions:.1f} |")
        def argbest(metric, sign):  # every scheduler at the best value (to a relative 1e-9)
            vals = {s: sign * means.loc[(p, s)][metric] for s in scheds}
            top = min(vals.values())
            return ", ".join(f"`{s}`" for s in scheds if vals[s] <= top + 1e-9 * abs(top))
        best, fairest = argbest("avg_jct_s", 1), argbest("jain_fairness", -1)
        findings.append(
            f"- **{labels.get(int(p), f'point {p}')}**: bace-pipe's mean JCT is "
            f"{pct(means.loc[(p, TARGET)].avg_jct_s / bound - 1, 0)} above the bound; "
            + (f"significantly faster than bace-pipe: {', '.join(faster)}" if faster
               else "no scheduler is significantly faster than bace-pipe")
            + "; " + (f"significantly cheaper: {', '.join(cheaper)}" if cheaper else "none significantly cheaper")
            + f"; the lowest mean JCT: {best}; the highest Jain index: {fairest}.")
        out.append("")
    head = 6  # the title, the file, the design and the conventions lines above
    return "\n".join(out[:head] + ["### What the numbers say", ""] + findings + [""] + out[head:]).rstrip() + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, metavar="SECTION.md")
    ap.add_argument("file", metavar="fig4_literature.h5")
    a = ap.parse_args(argv)
    try:
        text = section(a.file)
    except Exception as e:  # noqa: BLE001
        print(f"literature_report.py: {e}", file=sys.stderr)
        return 1
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
