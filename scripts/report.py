#!/usr/bin/python3
"""Write markdown tables of BACE-Pipe's paired changes from geopipe sweep result files.

usage: report.py --out REPORT_TABLES.md file.h5 [file.h5 ...]

For every file (a figure sweep of sweeps/paper/, recognised by its ``sweep_name``; any other
sweep is reported the same way), per sweep point: one row per baseline with BACE-Pipe's
change in average JCT and in total electricity cost against it, ``bace-pipe / baseline - 1``
per (point, seed) pair (both saw the same job trace), as the mean and the 95 % Student-t CI
over the pairs, e.g. "−31.9 % [−40.2, −23.6]", with the number of pairs and the seeds. For
the ablation sweep (fig8-ablation, or any sweep whose other schedulers are all ``bace-*``
variants) each row is an ablation's change relative to full BACE-Pipe, i.e. what removing
that component costs. Each figure gets a summary line with the range of the mean changes,
to compare with the paper's claims (−27.9 % to −64.7 % JCT, −12.6 % to −30.6 % cost).

Negative numbers use the Unicode minus sign "−" (U+2212) everywhere; positive changes carry
"+". Run with Debian's /usr/bin/python3.
"""

from __future__ import annotations

import argparse
import math
import os
import sys


import _geopipe_path  # noqa: E402,F401 - puts the package geopipe on sys.path (scripts/_geopipe_path.py)

import numpy as np  # noqa: E402

import geopipe  # noqa: E402

# Student-t quantiles: exact (scipy), as geopipe summarize computes them.
T975 = geopipe.t975

MINUS = "\u2212"
TARGET = "bace-pipe"
PAPER = {"avg_jct_s": (-0.279, -0.647), "total_cost_usd": (-0.126, -0.306)}
TITLES = {
    "fig4-end-to-end": "Fig. 4 — end-to-end comparison, three workload compositions",
    "fig5-bandwidth": "Fig. 5 — sensitivity to inter-region bandwidth",
    "fig6-capacity": "Fig. 6 — sensitivity to regional GPU capacity",
    "fig7-load": "Fig. 7 — sensitivity to workload intensity",
    "fig8-ablation": "Fig. 8 — ablation of BACE-Pipe's components",
}
METRICS = (("avg_jct_s", "avg JCT"), ("total_cost_usd", "total cost"))


def num(x: float, digits: int = 1) -> str:
    """A signed number with the Unicode minus: +12.3, −4.0, 0.0 (rounded zero has no sign)."""
    if x is None or not np.isfinite(x):
        return "n/a"
    r = round(float(x), digits)
    if r == 0:
        return f"{0:.{digits}f}"
    return f"{'+' if r > 0 else MINUS}{abs(r):.{digits}f}"


def pct_ci(mean: float, lo: float, hi: float) -> str:
    """Fractions -> "−31.9 % [−40.2, −23.6]" (CI omitted when undefined)."""
    if mean is None or not np.isfinite(mean):
        return "n/a"
    s = f"{num(100 * mean)} %"
    if np.isfinite(lo) and np.isfinite(hi):
        s += f" [{num(100 * lo)}, {num(100 * hi)}]"
    return s


def seeds_text(seeds) -> str:
    """[1, 2, 3, 5, 7, 8] -> "1–3, 5, 7–8"."""
    seeds = sorted(int(s) for s in seeds)
    if not seeds:
        return "—"
    parts, start, prev = [], seeds[0], seeds[0]
    for s in seeds[1:] + [None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(parts)


def _value(metric: str, v: float) -> str:
    if not np.isfinite(v):
        return "n/a"
    if metric.endswith("_s"):
        return f"{v / 3600:.3g} h"
    if metric.endswith("_usd"):
        return f"${v:.1f}"
    return f"{v:.4g}"


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _range(vals) -> str:
    vals = [v for v in vals if np.isfinite(v)]
    if not vals:
        return "n/a"
    return f"{num(100 * min(vals))} % to {num(100 * max(vals))} %"


def is_ablation(df) -> bool:
    others = [s for s in geopipe.scheduler_order(df) if s != TARGET]
    return df.attrs.get("sweep_name") == "fig8-ablation" or (
        bool(others) and all(s.startswith("bace-") for s in others))


def analyse(df) -> dict:
    """Paired changes for one file: {"rows": [...], "ablation": bool, "target": ..., ...}."""
    scheds = geopipe.scheduler_order(df)
    target = TARGET if TARGET in scheds else scheds[0]
    others = [s for s in scheds if s != target]
    ablation = is_ablation(df)
    labels = geopipe.point_labels(df)
    means = {m: geopipe.summary(df, m, "point", quantile=T975).set_index(["point", "scheduler"])["mean"]
             for m, _ in METRICS}
    rows = []
    for other in others:
        # Ablation: the ablation relative to full BACE-Pipe. Otherwise BACE-Pipe vs the baseline.
        a, b = (other, target) if ablation else (target, other)
        res = {m: geopipe.paired_change(df, m, a, b, "point", quantile=T975).set_index("point") for m, _ in METRICS}
        for p in res["avg_jct_s"].index:
            row = dict(point=int(p), label=labels.get(int(p), f"point {p}"), other=other, a=a, b=b)
            for m, _ in METRICS:
                r = res[m].loc[p]
                row[m] = (r["mean"], r["lo"], r["hi"], int(r["n"]), r["seeds"])
                row[m + "_a"] = means[m].get((p, a), np.nan)
                row[m + "_b"] = means[m].get((p, b), np.nan)
            rows.append(row)
    rows.sort(key=lambda r: (r["point"], others.index(r["other"])))
    return dict(rows=rows, ablation=ablation, target=target, others=others)


def file_section(path: str, df, res: dict) -> list:
    a = df.attrs
    name = a.get("sweep_name", "?")
    title = TITLES.get(name)
    out = [f"## {title} (`{name}`)" if title else f"## Sweep `{name}`", ""]
    nsc = a.get("num_scenarios", a.get("total_scenarios", "?"))
    seeds = sorted(df["seed"].unique().tolist())
    out += [
        f"- file: `{path}`",
        f"- sweep_name: `{name}` · geopipe_version: `{a.get('geopipe_version', '?')}` · "
        f"created_utc: {a.get('created_utc', '?')} · sweep_hash: `{a.get('sweep_hash', '?')}`",
        f"- scenarios: {len(df)} with metrics of {nsc} in the file "
        f"({a.get('errors', 0)} failed; complete = {a.get('complete', '?')}); "
        f"{_n(df['point'].nunique(), 'point')} × {_n(len(seeds), 'seed')} ({seeds_text(seeds)}) × "
        f"{_n(df['scheduler'].nunique(), 'scheduler')} ({', '.join(geopipe.scheduler_order(df))})",
        "",
    ]
    rows = res["rows"]
    if not rows:
        return out + ["No scheduler to compare with.", ""]
    jct = [r["avg_jct_s"][0] for r in rows]
    cost = [r["total_cost_usd"][0] for r in rows]
    if res["ablation"]:
        out.append(f"**Summary:** removing a component changes the mean avg JCT by {_range(jct)} and the "
                   f"mean total cost by {_range(cost)} relative to full BACE-Pipe, across "
                   f"{_n(len(res['others']), 'ablation')} × {_n(len({r['point'] for r in rows}), 'point')} "
                   "(positive = the component helps).")
        for o in res["others"]:
            sub = [r for r in rows if r["other"] == o]
            out.append(f"- `{o}`: avg JCT {_range([r['avg_jct_s'][0] for r in sub])}, "
                       f"total cost {_range([r['total_cost_usd'][0] for r in sub])}")
    else:
        sig = {m: (sum(1 for r in rows if r[m][2] < 0), sum(1 for r in rows if r[m][1] > 0)) for m, _ in METRICS}
        out.append(f"**Summary:** BACE-Pipe's mean change across {_n(len(res['others']), 'baseline')} × "
                   f"{_n(len({r['point'] for r in rows}), 'point')}: avg JCT {_range(jct)}, total cost {_range(cost)} "
                   f"(paper: {MINUS}27.9 % to {MINUS}64.7 % JCT, {MINUS}12.6 % to {MINUS}30.6 % cost). "
                   f"CI entirely below 0 / above 0: avg JCT {sig['avg_jct_s'][0]} / {sig['avg_jct_s'][1]}, "
                   f"total cost {sig['total_cost_usd'][0]} / {sig['total_cost_usd'][1]} of {len(rows)} comparisons.")
    out.append("")
    first = "ablation (vs bace-pipe)" if res["ablation"] else "baseline"
    what = "ablation / bace-pipe − 1" if res["ablation"] else "bace-pipe / baseline − 1"
    for p in sorted({r["point"] for r in rows}):
        sub = [r for r in rows if r["point"] == p]
        label = sub[0]["label"].replace("=", " = ")
        out += [f"### Point {p}: {label}", ""]
        hdr_a = "ablation" if res["ablation"] else "BACE-Pipe"
        hdr_b = "BACE-Pipe" if res["ablation"] else "baseline"
        out.append(f"| {first} | avg JCT change ({what}) | total cost change | n pairs | seeds | "
                   f"mean avg JCT, {hdr_a} / {hdr_b} | mean total cost, {hdr_a} / {hdr_b} |")
        out.append("|---|---|---|---|---|---|---|")
        for r in sub:
            j, c = r["avg_jct_s"], r["total_cost_usd"]
            n = j[3] if j[3] == c[3] else f"{j[3]} / {c[3]}"
            out.append(f"| {r['other']} | {pct_ci(*j[:3])} | {pct_ci(*c[:3])} | {n} | {seeds_text(j[4])} | "
                       f"{_value('avg_jct_s', r['avg_jct_s_a'])} / {_value('avg_jct_s', r['avg_jct_s_b'])} | "
                       f"{_value('total_cost_usd', r['total_cost_usd_a'])} / "
                       f"{_value('total_cost_usd', r['total_cost_usd_b'])} |")
        out.append("")
    return out


def report(paths) -> str:
    loaded = []
    for p in paths:
        df = geopipe.load(p)
        loaded.append((p, df, analyse(df)))
    order = list(TITLES)
    loaded.sort(key=lambda t: (order.index(t[1].attrs.get("sweep_name")) if t[1].attrs.get("sweep_name") in order
                               else len(order), t[0]))
    out = ["# BACE-Pipe reproduction: paired comparison tables", "",
           "Generated by `scripts/report.py`. Every change is a ratio minus one computed **per (point, seed) "
           "pair** (all schedulers of a pair ran the same job trace), then averaged over the pairs: "
           "\"−31.9 % [−40.2, −23.6]\" is the mean change and its 95 % Student-t confidence interval, in "
           "percent. Against a baseline it is `bace-pipe / baseline − 1` (negative = BACE-Pipe lower, i.e. "
           "better); for the ablation it is `ablation / bace-pipe − 1` (positive = removing the component "
           "hurts). The seeds column lists the seeds of the pairs used.", "",
           f"The paper (arXiv 2605.25375) claims {MINUS}27.9 % to {MINUS}64.7 % average JCT and "
           f"{MINUS}12.6 % to {MINUS}30.6 % total electricity cost against its baselines.", ""]
    # Overview table.
    out += ["| figure | sweep | comparisons | mean avg JCT change (min to max) | mean total cost change (min to max) |",
            "|---|---|---|---|---|"]
    for p, df, res in loaded:
        name = df.attrs.get("sweep_name", "?")
        rows = res["rows"]
        kind = "ablation vs BACE-Pipe" if res["ablation"] else "BACE-Pipe vs baselines"
        out.append(f"| {TITLES.get(name, name).split(' — ')[0]} | `{name}` | {len(rows)} ({kind}) | "
                   f"{_range([r['avg_jct_s'][0] for r in rows])} | {_range([r['total_cost_usd'][0] for r in rows])} |")
    out.append("")
    for p, df, res in loaded:
        out += file_section(p, df, res)
    return "\n".join(out).rstrip() + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="report.py --out REPORT_TABLES.md file.h5 [file.h5 ...]")
    ap.add_argument("--out", required=True, metavar="REPORT_TABLES.md")
    ap.add_argument("files", nargs="+", metavar="file.h5")
    a = ap.parse_args(argv)
    try:
        text = report(a.files)
    except Exception as e:  # noqa: BLE001
        print(f"report.py: {e}", file=sys.stderr)
        return 1
    d = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(d, exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
