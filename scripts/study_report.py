#!/usr/bin/python3
"""Analyse the BACE-Pipe sensitivity study: JSON tables, one figure per analysis, REPORT.md.

usage: study_report.py --out DIR --geopipe BIN [--wall SECONDS] [--command TEXT] [--sweep-log FILE]
                       [--scheduler bace-pipe] [--baseline delay-first] [--resamples 1000]
                       FILE.h5 [FILE.h5 ...]

scripts/study.sh runs it after the sweeps. Each FILE.h5 is the result of a design = "sobol" or
design = "morris" sweep (sweeps/studies/bace-*.toml; the design is read from the file). For
every file it runs ``geopipe analyze sobol|morris FILE --format json`` for four quantities:

  avg_jct_s and total_cost_usd of SCHEDULER,
  the paired change metric(SCHEDULER) / metric(BASELINE) - 1 of both (--paired-vs BASELINE),

saves each JSON as DIR/<file stem>_<metric>[_vs-<baseline>].json and draws the same name .png
(Sobol': horizontal bars of S1 and ST with their CIs per factor, sorted by ST; Morris: mu* bars
with their CIs and mu* against sigma). It then writes DIR/REPORT.md: how the data were made,
per question (what decides the scheduler's JCT, its cost, its advantage over the baseline) the
indices with CIs, the ranking, the seed-noise share, the sum of S1 and the factors whose ST is
indistinguishable from 0; where in the factor space the scheduler wins (per-point paired
changes from geopipe.design_values), Morris against Sobol', and checks of the data
(failed scenarios, completed jobs). Every number in the report is computed here.

The words of the report follow these thresholds (and nothing else):

  ST >= DOMINANT (0.3)          "dominant"
  ST >= IMPORTANT (0.1)         "important"
  ST >= MINOR (0.01)            "minor"
  ST <  MINOR                   "negligible"
  ST - ST_conf <= 0             "indistinguishable from 0" (its 95 % CI reaches 0)
  a > b in a ranking            ST_a - conf_a > ST_b + conf_b (CIs apart); else "~"
  sum S1 >= ADDITIVE (0.9)      "nearly additive"; >= INTERACTING (0.6) "mostly additive";
                                below "strongly interacting" (interactions carry 1 - sum S1)
  seed-noise share > NOISE_WARN (0.25)  warning: the indices of that quantity are unreliable,
                                more seeds are needed
  Morris and Sobol' "agree"     the same TOP_K (2) factors lead both rankings (order ignored);
                                "agree on the first" when only the top factor is the same
  a region "wins"               the scheduler's mean is lower in >= WIN_HOLDS (90 %) of its
                                configurations; "loses" below WIN_VANISHES (50 %); else "mixed"

Run with Debian's /usr/bin/python3 (h5py, numpy, pandas, scipy, matplotlib).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import subprocess
import sys


import _geopipe_path  # noqa: E402,F401 - puts the package geopipe on sys.path (scripts/_geopipe_path.py)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

import geopipe  # noqa: E402

# Student-t quantiles: exact (scipy), as geopipe summarize computes them.
T975 = geopipe.t975

DOMINANT = 0.3
IMPORTANT = 0.1
MINOR = 0.01
ADDITIVE = 0.9
INTERACTING = 0.6
# The BACE-Pipe paper (arXiv 2605.25375) reports average-JCT reductions of 27.9 % to 64.7 % and
# total-electricity-cost reductions of 12.6 % to 30.6 % against its baselines.
PAPER_CLAIMS = {"avg_jct_s": (-0.647, -0.279), "total_cost_usd": (-0.306, -0.126)}
NOISE_WARN = 0.25
TOP_K = 2
WIN_HOLDS = 0.9
WIN_VANISHES = 0.5
DPI = 150

METRICS = ("avg_jct_s", "total_cost_usd")
METRIC_NAME = {"avg_jct_s": "average JCT", "total_cost_usd": "total electricity cost"}
MINUS = "\u2212"


# --------------------------------------------------------------------------------------------
# Formatting

def num(x: float, digits: int = 3) -> str:
    """A number with a real minus sign; 'n/a' for None / NaN."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}f}".replace("-", MINUS)


def sig(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}g}".replace("-", MINUS)


def val(x: float) -> str:
    """A value in the unit of y: thousands separated without exponent (6,130), else 3 significant digits."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}".replace("-", MINUS)
    return sig(x)


def pct(x: float, digits: int = 1, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    s = f"{100 * x:+.{digits}f}" if signed else f"{100 * x:.{digits}f}"
    return s.replace("-", MINUS) + " %"


def thousands(n: int) -> str:
    return f"{int(n):,}"


def short_names(factors):
    """Last path component of each factor (network.bandwidth_scale -> bandwidth_scale), unless
    two factors would share it (then the full path)."""
    last = [f.rsplit(".", 1)[-1] for f in factors]
    return {f: (s if last.count(s) == 1 else f) for f, s in zip(factors, last)}


class Quantity:
    """One analysed quantity: a metric of the scheduler, or its paired change vs the baseline."""

    def __init__(self, metric: str, sched: str, baseline: str | None):
        self.metric, self.sched, self.baseline = metric, sched, baseline

    @property
    def tag(self) -> str:
        return self.metric + (f"_vs-{self.baseline}" if self.baseline else "")

    @property
    def label(self) -> str:
        if self.baseline:
            return f"change of {METRIC_NAME.get(self.metric, self.metric)}, {self.sched} vs {self.baseline}"
        return f"{METRIC_NAME.get(self.metric, self.metric)} of {self.sched}"

    def unit(self, js: dict) -> str:
        if self.baseline:
            return f"fraction, {MINUS}0.1 = 10 % lower"
        return js.get("unit") or ""


# --------------------------------------------------------------------------------------------
# Analyses

def analyze(args, method: str, h5: str, q: Quantity) -> dict:
    cmd = [args.geopipe, "analyze", method, h5, "--metric", q.metric, "--scheduler", q.sched,
           "--resamples", str(args.resamples), "--format", "json"]
    if q.baseline:
        cmd += ["--paired-vs", q.baseline]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"study_report.py: {' '.join(cmd)} exited with {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def per_seed_values(df: pd.DataFrame, q: Quantity) -> pd.DataFrame:
    """(point x seed) table of the quantity: the metric of the scheduler or the paired change."""
    a = df[df["scheduler"] == q.sched].pivot_table(index="point", columns="seed", values=q.metric, aggfunc="last")
    if not q.baseline:
        return a
    b = df[df["scheduler"] == q.baseline].pivot_table(index="point", columns="seed", values=q.metric,
                                                      aggfunc="last")
    return a / b - 1.0


def noise_split(df: pd.DataFrame, q: Quantity) -> float:
    """The point-specific part of the seed noise, as a share of Var(y) (NaN when not measurable).

    Every point runs the same seeds, so a seed's job trace is correlated across points: part of
    the spread over seeds is a shift common to every point of that seed, which moves every y by
    the same amount and changes no index. The rest (the seed x point interaction of a two-way
    decomposition of the (point, seed) table) is what can blur the indices. Returned: its
    variance / n_seeds / Var(y), comparable with the CLI's seed_noise.share (which counts both).
    """
    t = per_seed_values(df, q)
    if t.shape[1] < 2 or t.isna().to_numpy().any():
        return math.nan
    v = t.to_numpy(dtype=float)
    p, s = v.shape
    y = v.mean(axis=1)
    var = float(np.mean((y - y.mean()) ** 2))
    res = v - v.mean(axis=1, keepdims=True) - v.mean(axis=0, keepdims=True) + v.mean()
    s2 = float((res ** 2).sum() / ((p - 1) * (s - 1)))
    return s2 / s / var if var > 0 else math.nan


def classify(st: float) -> str:
    if st >= DOMINANT:
        return "dominant"
    if st >= IMPORTANT:
        return "important"
    if st >= MINOR:
        return "minor"
    return "negligible"


def ranking(items, short, fmt=None) -> str:
    """items: [(factor, value, conf)] sorted descending; '>' when the CIs are apart, else '~'."""
    fmt = fmt or (lambda v: sig(v, 2))
    out = []
    for i, (f, v, c) in enumerate(items):
        if i:
            pf, pv, pc = items[i - 1]
            apart = (pv - (pc or 0)) > (v + (c or 0))
            out.append(" > " if apart else " ~ ")
        out.append(f"{short[f]} ({fmt(v)})")
    return "".join(out)


def sobol_frame(js: dict) -> pd.DataFrame:
    f = pd.DataFrame(js["factors"]).set_index("factor")
    for c in ("S1", "S1_conf", "ST", "ST_conf"):
        f[c] = pd.to_numeric(f[c], errors="coerce")
    return f


def morris_frame(js: dict) -> pd.DataFrame:
    f = pd.DataFrame(js["factors"]).set_index("factor")
    for c in ("mu", "mu_star", "sigma", "mu_star_conf"):
        f[c] = pd.to_numeric(f[c], errors="coerce")
    return f


# --------------------------------------------------------------------------------------------
# Figures

def _title(kind: str, js: dict, q: Quantity) -> str:
    """Two or three short lines: what, the unit, the data."""
    unit = q.unit(js)
    first = f"{kind}: {q.label}"
    if q.baseline:
        second = f"y = {q.sched} / {q.baseline} {MINUS} 1 per seed, a fraction ({MINUS}0.1 = 10 % lower)"
    else:
        second = f"y = {q.metric} [{unit}]" if unit else f"y = {q.metric}"
    return first + "\n" + second + "\n" + _subtitle(js)


def _subtitle(js: dict) -> str:
    n = js.get("seed_noise") or {}
    share = n.get("share")
    seeds = n.get("seeds_min")
    size = (f"N = {js['samples']} samples" if js["analysis"] == "sobol" else f"r = {js['trajectories']} trajectories")
    noise = f"seed noise {pct(share)} of Var(y)" if share is not None else "seed noise not measured"
    if share is not None and share > NOISE_WARN:
        noise += f" (> {pct(NOISE_WARN, 0)}: see the report's warning)"
    return f"{size}, {thousands(js['points'])} points x {seeds} seeds; {noise}; bars: 95 % CI"


def plot_sobol(js: dict, q: Quantity, path: str):
    f = sobol_frame(js).sort_values("ST")
    short = short_names(list(f.index))
    d = len(f)
    fig, ax = plt.subplots(figsize=(7.6, 1.5 + 0.42 * d))
    y = np.arange(d)
    h = 0.38
    ax.barh(y + h / 2, f["ST"], h, xerr=f["ST_conf"].fillna(0), color="#d62728", alpha=0.85,
            error_kw=dict(ecolor="black", lw=1, capsize=2), label="ST (total)")
    ax.barh(y - h / 2, f["S1"], h, xerr=f["S1_conf"].fillna(0), color="#1f77b4", alpha=0.85,
            error_kw=dict(ecolor="black", lw=1, capsize=2), label="S1 (first order)")
    ax.set_yticks(y, [short[i] for i in f.index], fontsize=9)
    ax.axvline(0, color="black", lw=0.8)
    ax.axvline(DOMINANT, color="grey", ls=":", lw=1)
    ax.text(DOMINANT, d - 0.45, f" dominant (ST \u2265 {DOMINANT})", fontsize=7.5, color="grey", va="bottom")
    lo = min(0.0, float((f["S1"] - f["S1_conf"].fillna(0)).min())) - 0.03
    hi = max(1.0, float((f["ST"] + f["ST_conf"].fillna(0)).max())) + 0.03
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.7, d - 0.1)
    ax.set_xlabel("Sobol' index (share of Var(y))", fontsize=9)
    ax.set_title(_title("Sobol' indices", js, q), fontsize=9)
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _label_points(fig, ax, pts):
    """Name each scatter point without overlaps: try label positions around the point (right,
    left, above, below, then further out) and keep the first whose box stays inside the axes and
    clear of the other labels and markers; a label moved away gets a thin leader line."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    marker = 5 * fig.dpi / 72  # marker radius in pixels
    centres = [ax.transData.transform((x, y)) for _, x, y in pts]
    boxes = [Bbox.from_extents(cx - marker, cy - marker, cx + marker, cy + marker)
             for cx, cy in centres]
    cands = [(6, 0, "left"), (-6, 0, "right"), (0, 8, "center"), (0, -12, "center")]
    for k in range(1, 8):
        cands += [(6, 10 * k, "left"), (6, -10 * k, "left"), (-6, 10 * k, "right"), (-6, -10 * k, "right")]
    order = sorted(range(len(pts)), key=lambda i: -pts[i][1])  # largest effects first: they get the best spots
    for i in order:
        name, x, y = pts[i]
        chosen = None
        for dx, dy, ha in cands:
            t = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=7.5, ha=ha,
                            va="center")
            bb = t.get_window_extent(renderer).expanded(1.05, 1.1)
            ok = (inside.contains(bb.x0, bb.y0) and inside.contains(bb.x1, bb.y1)
                  and not any(bb.overlaps(o) for j, o in enumerate(boxes) if j != i))
            if ok:
                chosen = (t, bb, dx, dy)
                break
            t.remove()
        if chosen is None:
            t = ax.annotate(name, (x, y), xytext=(6, 0), textcoords="offset points", fontsize=7.5, va="center")
            chosen = (t, t.get_window_extent(renderer), 6, 0)
        t, bb, dx, dy = chosen
        if abs(dy) > 8:
            t.remove()
            t = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=7.5,
                            ha=t.get_horizontalalignment(), va="center",
                            arrowprops=dict(arrowstyle="-", color="grey", lw=0.5, shrinkA=0, shrinkB=4))
        boxes.append(bb)


def plot_morris(js: dict, q: Quantity, path: str):
    f = morris_frame(js).sort_values("mu_star")
    short = short_names(list(f.index))
    d = len(f)
    unit = q.unit(js) if not q.baseline else "fraction"
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 1.8 + 0.42 * d), gridspec_kw=dict(width_ratios=[1.1, 1]))
    y = np.arange(d)
    ax.barh(y, f["mu_star"], 0.6, xerr=f["mu_star_conf"].fillna(0), color="#2ca02c", alpha=0.85,
            error_kw=dict(ecolor="black", lw=1, capsize=2))
    ax.set_yticks(y, [short[i] for i in f.index], fontsize=9)
    ax.set_xlabel(f"\u03bc* (mean |elementary effect|) [{unit} per factor range]", fontsize=8.5)
    ax.axvline(0, color="black", lw=0.8)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    ms, sd = f["mu_star"].to_numpy(float), f["sigma"].to_numpy(float)
    logs = bool(np.all(ms > 0) and np.all(sd > 0) and np.isfinite(sd).all())
    bx.scatter(ms, sd, color="#2ca02c", edgecolor="black", zorder=3)
    pts = [(short[n], xv, yv) for n, xv, yv in zip(f.index, ms, sd) if np.isfinite(xv) and np.isfinite(yv)]
    top = max(float(np.nanmax(ms)), float(np.nanmax(sd)) if np.isfinite(sd).any() else 0.0) * (3.0 if logs else 1.15)
    if logs:
        bx.set_xscale("log")
        bx.set_yscale("log")
        lo = min(float(ms.min()), float(sd.min())) / 2.0
        line = np.array([lo, top])
        bx.set_xlim(lo, top)
        bx.set_ylim(lo, top)
    else:
        line = np.array([0.0, top if top > 0 else 1.0])
    bx.plot(line, line, color="grey", ls="--", lw=0.8)
    bx.text(0.97, 0.03, "dashed: \u03c3 = \u03bc*", transform=bx.transAxes, fontsize=7.5, color="grey", ha="right")
    bx.set_xlabel(f"\u03bc* [{unit} per factor range]" + (" (log)" if logs else ""), fontsize=8.5)
    bx.set_ylabel("\u03c3 (sd of the elementary effects)" + (" (log)" if logs else ""), fontsize=8.5)
    bx.grid(color="#eeeeee", lw=0.6)
    fig.suptitle(_title("Morris screening", js, q), fontsize=9)
    fig.tight_layout()
    _label_points(fig, bx, pts)  # after the layout: the labels are placed in display space
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# Report sections

def noise_line(results: dict) -> list:
    """Seed noise of one quantity in each design's data, with the warning above NOISE_WARN.

    results: {design: (json, figure, point-specific share computed here)}. The CLI's share is
    the point-specific one when every point runs the same seeds; this script's own two-way
    decomposition (noise_split) must agree with it (a cross-check of the two implementations)."""
    parts, warn = [], []
    for design, (js, _, inter) in results.items():
        n = js.get("seed_noise") or {}
        share = n.get("share")
        name = "Sobol'" if design == "sobol" else "Morris"
        if share is None:
            parts.append(f"{name}: not measured ({n.get('seeds_min', 1)} seed per point)")
            continue
        if n.get("point_standard_error") is not None and math.isfinite(inter) and abs(inter - share) > 1e-9 * max(1.0, share):
            raise SystemExit(f"study_report.py: seed-noise share of {js.get('file')}: CLI {share} vs this script {inter}")
        unit = js.get("unit") or ""
        u = f" {unit}" if unit else ""
        pse = n.get("point_standard_error")
        parts.append(f"{name}: **{pct(share)}** of Var(y) (standard error of a point's mean over {n['seeds_min']} seeds "
                     f"{sig(n['rms_standard_error'])}{u} rms"
                     + (f", {sig(pse)}{u} without the part common to all points" if pse is not None else "")
                     + f"; sd of y {sig(math.sqrt(n['variance']))}{u})")
        if share > NOISE_WARN:
            warn.append(name)
    out = ["Seed noise: " + "; ".join(parts) + "."]
    if warn:
        out.append(f"**Warning: seed noise explains more than {pct(NOISE_WARN, 0)} of Var(y) in the "
                   f"{' and '.join(warn)} data: the indices of this quantity are unreliable and more seeds per point "
                   "are needed.**")
    return out


def quantity_section(q: Quantity, results: dict) -> list:
    """The indices of one quantity: one table (Sobol' and Morris side by side), the ranking, the
    sum of S1, the factors indistinguishable from 0, the seed noise, Morris against Sobol'."""
    sob = results.get("sobol")
    mor = results.get("morris")
    out = []
    sf = sobol_frame(sob[0]).sort_values("ST", ascending=False) if sob else None
    mf = morris_frame(mor[0]) if mor else None
    if mf is not None:
        mf["rank"] = mf["mu_star"].rank(ascending=False, method="min").astype(int)
    order = list(sf.index) if sf is not None else list(mf.sort_values("mu_star", ascending=False).index)
    short = short_names(order)
    desc = []
    if sob:
        js = sob[0]
        per = 2 * len(sf) + 2 if js.get("second_order") else len(sf) + 2
        desc.append(f"Sobol': {js['samples']} samples x {per} = {thousands(js['points'])} points, figure "
                    f"[{sob[1]}]({sob[1]})")
    if mor:
        js = mor[0]
        desc.append(f"Morris: {js['trajectories']} trajectories = {thousands(js['points'])} points, \u03bc* in "
                    f"{(js.get('unit') or ('fraction' if q.baseline else 'units of y'))} per factor range, figure "
                    f"[{mor[1]}]({mor[1]})")
    out.append("(" + "; ".join(desc) + "; \u00b1 = half width of the 95 % bootstrap CI.)")
    out.append("")
    head, rule = ["factor"], ["---"]
    if sob:
        head += ["S1", "ST", "ST " + MINUS + " S1", "class"]
        rule += ["---"] * 4
    if mor:
        head += ["Morris \u03bc*", "\u03c3", "\u03bc* rank"]
        rule += ["---"] * 3
    out += ["| " + " | ".join(head) + " |", "|" + "|".join(rule) + "|"]
    for name in order:
        row = [f"`{name}`"]
        if sob:
            r = sf.loc[name]
            row += [f"{num(r.S1)} \u00b1 {num(r.S1_conf)}", f"{num(r.ST)} \u00b1 {num(r.ST_conf)}", num(r.ST - r.S1),
                    classify(r.ST)]
        if mor:
            r = mf.loc[name]
            row += [f"{val(r.mu_star)} \u00b1 {val(r.mu_star_conf)}", val(r.sigma), str(int(r["rank"]))]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    if sob:
        out.append("Ranking by ST: " + ranking([(i, r.ST, r.ST_conf) for i, r in sf.iterrows()], short) + ".")
        s1 = float(sf["S1"].sum())
        if s1 > 1.05 or s1 < -0.05:
            word = (f"{'above 1' if s1 > 1 else 'below 0'}, which only estimation error can give: more samples are "
                    "needed to judge additivity")
        elif s1 >= ADDITIVE:
            word = "nearly additive"
        elif s1 >= INTERACTING:
            word = f"mostly additive, interactions carry about {pct(1 - s1, 0)} of Var(y)"
        else:
            word = f"strongly interacting, interactions carry about {pct(1 - s1, 0)} of Var(y)"
        out.append(f"Sum of S1 = {num(s1, 2)} ({word}); sum of ST = {num(float(sf['ST'].sum()), 2)}.")
        zero = [short[i] for i, r in sf.iterrows() if not (r.ST - (r.ST_conf if math.isfinite(r.ST_conf) else 0) > 0)]
        negl = [short[i] for i, r in sf.iterrows() if r.ST < MINOR]
        out.append("ST indistinguishable from 0 (its 95 % CI reaches 0): " + (", ".join(zero) if zero else "none")
                   + f"; negligible (ST < {MINOR}): " + (", ".join(negl) if negl else "none") + ".")
    if mor:
        ms = mf.sort_values("mu_star", ascending=False)
        out.append("Ranking by Morris \u03bc*: " + ranking([(i, r.mu_star, r.mu_star_conf) for i, r in ms.iterrows()],
                                                           short, val) + ".")
    if sob and mor:
        ts, tm, verdict, rho = compare(sob[0], mor[0])
        words = {"agree": f"agree on the top {TOP_K} factors", "agree on the first": "agree on the top factor only",
                 "disagree": "disagree on the top factor"}
        out.append(f"Morris and Sobol' {words[verdict]} (Spearman \u03c1 of the two rankings {num(rho, 2)}).")
    out += noise_line(results)
    return out


def compare(sob: dict, mor: dict):
    """(Sobol' top-k, Morris top-k, verdict, Spearman rho) of one quantity."""
    s = sobol_frame(sob)["ST"].sort_values(ascending=False)
    m = morris_frame(mor)["mu_star"].reindex(s.index)
    ts, tm = list(s.index[:TOP_K]), list(m.sort_values(ascending=False).index[:TOP_K])
    if set(ts) == set(tm):
        verdict = "agree"
    elif ts[0] == tm[0]:
        verdict = "agree on the first"
    else:
        verdict = "disagree"
    rho = float(spearmanr(s.to_numpy(), m.to_numpy()).statistic) if len(s) > 2 else math.nan
    return ts, tm, verdict, rho


def bins(values: pd.Series):
    """Quartile bins of a factor's values (or one bin per value for a factor with <= 5 values):
    (codes aligned with values, labels)."""
    uniq = np.unique(values.to_numpy())
    if len(uniq) <= 5:
        codes = pd.Series(np.searchsorted(uniq, values.to_numpy()), index=values.index)
        return codes, [f"= {sig(float(u))}" for u in uniq]
    codes = pd.Series(pd.qcut(values, 4, labels=False, duplicates="drop"), index=values.index).astype(int)
    labels = []
    for c in range(int(codes.max()) + 1):
        v = values[codes == c]
        labels.append(f"Q{c + 1} [{sig(float(v.min()))}, {sig(float(v.max()))}]")
    return codes, labels


def where_wins(h5: str, js: dict, q: Quantity, df: pd.DataFrame, csv_rows: list, summ: dict) -> list:
    """Fraction of configurations where the scheduler's mean is lower, and a cross table of the
    mean change by bins of the two factors with the largest ST (or mu*)."""
    vals = geopipe.design_values(h5, q.metric, q.sched, paired_vs=q.baseline)
    factors = vals.attrs["factors"]
    d = len(factors)
    if js["analysis"] == "sobol":
        k = 2 * d + 2 if js.get("second_order") else d + 2
        keep = (vals["point"] % k == 0) | (vals["point"] % k == k - 1)
        which = f"the {thousands(int(keep.sum()))} base-sample points (A and B rows) of the Sobol' design"
        rank = sobol_frame(js)["ST"].sort_values(ascending=False)
    else:
        keep = pd.Series(True, index=vals.index)
        which = f"all {thousands(len(vals))} points of the Morris design"
        rank = morris_frame(js)["mu_star"].sort_values(ascending=False)
    v = vals[keep].set_index("point")
    fv = df.groupby("point")[factors].first().reindex(v.index)
    short = short_names(factors)
    half = np.array([T975(int(n) - 1) if n >= 2 else math.nan for n in v["n_seeds"]]) * v["se"].to_numpy()
    y = v["y"].to_numpy(float)
    lower, sig_lo, sig_hi = float(np.mean(y < 0)), float(np.mean(y + half < 0)), float(np.mean(y - half > 0))
    summ[q.tag] = dict(lower=lower, mean=float(y.mean()), n=len(y))
    what = METRIC_NAME.get(q.metric, q.metric)
    out = [f"**{what}** ({which}; y = mean over the seeds of {q.sched} / {q.baseline} {MINUS} 1): "
           f"{q.sched}'s mean {what} is lower in **{pct(lower)}** of the configurations "
           f"(significantly lower, 95 % t-interval over the seeds below 0: {pct(sig_lo)}; significantly higher: "
           f"{pct(sig_hi)}); mean change {pct(float(y.mean()), signed=True)}, median "
           f"{pct(float(np.median(y)), signed=True)}, range {pct(float(y.min()), signed=True)} to "
           f"{pct(float(y.max()), signed=True)}."]
    a, b = list(rank.index[:2])
    ca, la = bins(fv[a])
    cb, lb = bins(fv[b])
    out += ["", f"Mean change (and share of configurations where {q.sched} is lower) by bins of the two most "
            f"influential factors, `{a}` (rows) and `{b}` (columns):", "",
            f"| {short[a]} \\ {short[b]} | " + " | ".join(lb) + " | all |",
            "|---|" + "---|" * (len(lb) + 1)]
    cells = []
    for i, lab in enumerate(la):
        row = []
        for j in list(range(len(lb))) + [None]:
            m = (ca == i) if j is None else (ca == i) & (cb == j)
            yy = v["y"][m.to_numpy()]
            if len(yy) == 0:
                row.append("\u2013")
                continue
            win = float((yy < 0).mean())
            row.append(f"{pct(float(yy.mean()), 0, signed=True)} ({pct(win, 0)})")
            if j is not None:
                cells.append((lab, lb[j], len(yy), float(yy.mean()), win))
                csv_rows.append(dict(quantity=q.tag, factor_rows=a, row_bin=lab, factor_cols=b, col_bin=lb[j],
                                     configurations=len(yy), mean_change=float(yy.mean()), share_lower=win))
        out.append(f"| {lab} | " + " | ".join(row) + " |")
    allrow = []
    for j in range(len(lb)):
        yy = v["y"][(cb == j).to_numpy()]
        allrow.append(f"{pct(float(yy.mean()), 0, signed=True)} ({pct(float((yy < 0).mean()), 0)})" if len(yy) else "\u2013")
    out.append("| all | " + " | ".join(allrow) + f" | {pct(float(y.mean()), 0, signed=True)} ({pct(lower, 0)}) |")
    tail = []
    holds = [c for c in cells if c[4] >= WIN_HOLDS]
    loses = [c for c in cells if c[4] < WIN_VANISHES]
    out.append("")
    if len(holds) == len(cells):
        out.append(f"It wins (lower in \u2265 {pct(WIN_HOLDS, 0)} of the configurations) in every cell.")
    else:
        out.append(f"It wins (lower in \u2265 {pct(WIN_HOLDS, 0)} of the configurations) in {len(holds)} of "
                   f"{len(cells)} cells; mixed in {len(cells) - len(holds) - len(loses)}; loses (lower in < "
                   f"{pct(WIN_VANISHES, 0)}) in {len(loses)}"
                   + (": " + "; ".join(f"{short[a]} {c[0]}, {short[b]} {c[1]} ({pct(c[3], 0, signed=True)}, "
                                        f"lower in {pct(c[4], 0)})" for c in loses) if loses else "") + ".")
    claim = PAPER_CLAIMS.get(q.metric)
    if claim:
        lo, hi = claim  # the paper's range of reductions against its baselines, e.g. (-0.647, -0.279)
        within = float(np.mean((y >= lo) & (y <= hi)))
        beyond = float(np.mean(y < lo))
        short_of = float(np.mean(y > hi))
        tail += ["", f"Against the paper's claim ({what} {pct(hi, 1, signed=True)} to {pct(lo, 1, signed=True)} "
                 f"against its baselines): the change against {q.baseline} is inside that range in "
                 f"**{pct(within)}** of the configurations, a larger reduction in {pct(beyond)}, a smaller one (or none) "
                 f"in {pct(short_of)}; the claim's smallest reduction ({pct(hi, 1, signed=True)}) is met or exceeded in "
                 f"{pct(within + beyond)}."]
    return out + tail


def checks(df: pd.DataFrame, name: str, scheds) -> list:
    """Failed scenarios, unfinished jobs and truncated searches of one result file."""
    out = []
    total = int(df.attrs.get("total_scenarios", len(df)) or len(df))
    out.append(f"- `{name}`: {thousands(len(df))} of {thousands(total)} scenarios have results, "
               f"{df.attrs.get('errors', 0)} failed; every scenario with a result completed every job "
               f"(geopipe.load refuses results that leave jobs out: {df.attrs.get('unfinished_scenarios', 0)} here).")
    for s in scheds:
        sub = df[df["scheduler"] == s]
        if sub.empty:
            continue
        trunc = float((sub["sched_truncated_searches"] > 0).mean()) if "sched_truncated_searches" in sub else math.nan
        out.append(f"  - {s}: searches truncated in {pct(trunc, 2)} of its scenarios; jobs per scenario "
                   f"{int(sub['jobs_completed'].min())}..{int(sub['jobs_completed'].max())}, all completed.")
    return out


def summarize(args, quantities, sobol, morris, wins, src) -> list:
    """The short summary at the top: the dominant and important factors of each quantity, where the
    scheduler wins, whether the two methods agree, and the data checks that matter."""
    out = ["## Summary", ""]
    for q in quantities:
        if sobol:
            js = sobol["results"][q.tag][0]
            f = sobol_frame(js).sort_values("ST", ascending=False)
            sn = short_names(list(f.index))
            dom = [f"{sn[i]} (ST {num(r.ST, 2)})" for i, r in f.iterrows() if r.ST >= DOMINANT]
            imp = [f"{sn[i]} ({num(r.ST, 2)})" for i, r in f.iterrows() if IMPORTANT <= r.ST < DOMINANT]
            rest = int((f["ST"] < IMPORTANT).sum())
            text = ("dominant: " + (", ".join(dom) if dom else "none") + "; important: " + (", ".join(imp) if imp else "none")
                    + (f"; the other {rest} factors minor or negligible (ST < {IMPORTANT})" if rest else ""))
        else:
            js = morris["results"][q.tag][0]
            f = morris_frame(js).sort_values("mu_star", ascending=False)
            sn = short_names(list(f.index))
            text = "largest \u03bc*: " + ", ".join(sn[i] for i in f.index[:TOP_K])
        share = (js.get("seed_noise") or {}).get("share")
        warn = (f" **Seed noise {pct(share)} of Var(y): see the warning below.**"
                if share is not None and share > NOISE_WARN else "")
        out.append(f"- **{q.label}**: {text}.{warn}")
    w = [f"for {METRIC_NAME.get(q.metric, q.metric)} in {pct(wins[q.tag]['lower'])} of the sampled configurations "
         f"(mean change {pct(wins[q.tag]['mean'], signed=True)})" for q in quantities if q.tag in wins]
    if w:
        out.append(f"- {args.scheduler}'s mean is lower than {args.baseline}'s " + " and ".join(w)
                   + f"; section Where {args.scheduler} wins.")
    if sobol and morris:
        agree = sum(compare(sobol["results"][q.tag][0], morris["results"][q.tag][0])[2] == "agree" for q in quantities)
        out.append(f"- Morris and Sobol' agree on the top {TOP_K} factors for {agree} of {len(quantities)} quantities.")
    return out + [""]


# --------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--geopipe", required=True)
    ap.add_argument("--wall", type=float, default=math.nan, help="wall time of the sweeps [s]")
    ap.add_argument("--command", default="scripts/study.sh")
    ap.add_argument("--sweep-log", default=None, help="stderr of the sweeps (for reused / computed counts)")
    ap.add_argument("--scheduler", default="bace-pipe")
    ap.add_argument("--baseline", default="delay-first")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    version = subprocess.run([args.geopipe, "--version"], capture_output=True, text=True).stdout.strip()
    version = version.split()[-1] if version else "unknown"
    log = ""
    if args.sweep_log and os.path.exists(args.sweep_log):
        log = open(args.sweep_log, encoding="utf-8", errors="replace").read()

    quantities = [Quantity(m, args.scheduler, None) for m in METRICS] + \
                 [Quantity(m, args.scheduler, args.baseline) for m in METRICS]
    studies = []  # dict(name, h5, design, df, results{tag: (js, fig, inter)})
    for h5 in args.files:
        stem = os.path.splitext(os.path.basename(h5))[0]
        df = geopipe.load(h5)
        design = str(df.attrs.get("design", ""))
        if design not in ("sobol", "morris"):
            sys.exit(f"study_report.py: {h5}: design '{design}' (expected a design = \"sobol\" or \"morris\" sweep)")
        st = dict(name=stem, h5=h5, design=design, df=df, results={})
        for q in quantities:
            js = analyze(args, design, h5, q)
            base = f"{stem}_{q.tag}"
            with open(os.path.join(args.out, base + ".json"), "w", encoding="utf-8") as f:
                json.dump(js, f, indent=1)
                f.write("\n")
            (plot_sobol if design == "sobol" else plot_morris)(js, q, os.path.join(args.out, base + ".png"))
            st["results"][q.tag] = (js, base + ".png", noise_split(df, q))
        studies.append(st)
        print(f"study_report.py: analysed {h5} ({design})", file=sys.stderr)

    sobol = next((s for s in studies if s["design"] == "sobol"), None)
    morris = next((s for s in studies if s["design"] == "morris"), None)
    R = []
    R += [f"# Sensitivity of {args.scheduler}: what decides its JCT, its cost and its advantage over {args.baseline}",
          "", "## How this was made", "",
          f"Generated by `{args.command}` with geopipe {version} on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d} "
          f"({os.cpu_count()} cores). Wall time of the sweep step in this run: "
          f"{sig(args.wall) if math.isfinite(args.wall) else 'n/a'} s (it runs the sweeps with `--resume`: "
          "results already in the output's h5/ are reused, not rerun). Analyses: `geopipe analyze sobol|morris "
          f"FILE --metric M --scheduler {args.scheduler} [--paired-vs {args.baseline}] --resamples {args.resamples} "
          "--format json` (the JSON files beside this report); 95 % bootstrap CIs.", ""]
    R += ["| sweep | design | points | seeds | schedulers | scenarios | computed in this run | file's "
          "geopipe_version, created_utc | \u03a3 scenario wall_s |", "|---|---|---|---|---|---|---|---|---|"]
    for s in studies:
        df = s["df"]
        js = next(iter(s["results"].values()))[0]
        scheds = df.attrs.get("schedulers", [])
        seeds = df["seed"].nunique()
        size = (f"sobol, N = {js['samples']}" if s["design"] == "sobol" else f"morris, r = {js['trajectories']}")
        # the runner's first line: "geopipe sweep 'NAME': N scenarios (reused R, to run C, ...)" with --resume on
        # an existing file, "geopipe sweep 'NAME': N scenarios, ..." on a new one
        m = re.search(r"geopipe sweep '" + re.escape(str(df.attrs.get("sweep_name", ""))) +
                      r"': (\d+) scenarios(?: \(reused (\d+), to run (\d+))?", log)
        if not m:
            ran = "n/a"
        elif m.group(2) is None:
            ran = thousands(int(m.group(1)))
        else:
            ran = f"{thousands(int(m.group(3)))} (reused {thousands(int(m.group(2)))})"
        R.append(f"| `{s['name']}` | {size} | {thousands(js['points'])} | {seeds} | {', '.join(scheds)} | "
                 f"{thousands(len(df))} | {ran} | {df.attrs.get('geopipe_version', '?')}, "
                 f"{df.attrs.get('created_utc', '?')} | {val(float(df['wall_s'].sum()))} s |")
    R += ["", f"Factors and ranges: the `[[factor]]`s of the sweep files (sweeps/studies/); "
          "y of a point = the mean over its seeds (for a change: of the per-seed paired ratio "
          f"{args.scheduler} / {args.baseline} {MINUS} 1, negative = {args.scheduler} lower). "
          f"Words: ST \u2265 {DOMINANT} dominant, \u2265 {IMPORTANT} important, \u2265 {MINOR} minor, else "
          f"negligible; in a ranking `>` = CIs apart, `~` = they overlap; sum of S1 \u2265 {ADDITIVE} nearly "
          f"additive, \u2265 {INTERACTING} mostly additive, else strongly interacting; a seed-noise share above "
          f"{pct(NOISE_WARN, 0)} gets a warning (thresholds in scripts/study_report.py).", ""]

    header_end = len(R)
    questions = [
        (f"What decides {args.scheduler}'s JCT?", [quantities[0]]),
        (f"What decides {args.scheduler}'s cost?", [quantities[1]]),
        (f"What decides its advantage over {args.baseline}?", [quantities[2], quantities[3]]),
    ]
    for n, (title, qs) in enumerate(questions, 1):
        R += [f"## {n}. {title}", ""]
        for q in qs:
            R += [f"### {q.label}" + (f" [{q.unit(sobol['results'][q.tag][0] if sobol else morris['results'][q.tag][0])}]"
                                      if q.unit((sobol or morris)['results'][q.tag][0]) else ""), ""]
            res = {st["design"]: st["results"][q.tag] for st in (sobol, morris) if st}
            R += quantity_section(q, res) + [""]

    src = sobol or morris
    wins = {}
    R += [f"## Where {args.scheduler} wins", ""]
    csv_rows = []
    for q in quantities[2:]:
        js = src["results"][q.tag][0]
        R += where_wins(src["h5"], js, q, src["df"], csv_rows, wins) + [""]
    pd.DataFrame(csv_rows).to_csv(os.path.join(args.out, "where_wins.csv"), index=False, float_format="%.6g")
    R += ["(The full table of cells: [where_wins.csv](where_wins.csv).)", ""]

    if sobol and morris:
        R += ["## Morris against Sobol'", "",
              f"| quantity | top {TOP_K} by ST (Sobol') | top {TOP_K} by \u03bc* (Morris) | verdict | Spearman \u03c1 |",
              "|---|---|---|---|---|"]
        agree = 0
        for q in quantities:
            ts, tm, verdict, rho = compare(sobol["results"][q.tag][0], morris["results"][q.tag][0])
            sn = short_names(list(sobol_frame(sobol["results"][q.tag][0]).index))
            agree += verdict == "agree"
            R.append(f"| {q.label} | {', '.join(sn[t] for t in ts)} | {', '.join(sn[t] for t in tm)} | {verdict} | "
                     f"{num(rho, 2)} |")
        R += ["", f"They agree on the top {TOP_K} factors for {agree} of {len(quantities)} quantities "
              f"(Morris: {morris['results'][quantities[0].tag][0]['points']} points; Sobol': "
              f"{thousands(sobol['results'][quantities[0].tag][0]['points'])}).", ""]

    summary = summarize(args, quantities, sobol, morris, wins, src)
    # What earlier results revisions moved (hand-written with the numbers of
    # scripts/compare_revisions.py, kept beside the report): right after the summary.
    revisions = os.path.join(args.out, "revisions.md")
    if os.path.exists(revisions):
        with open(revisions, encoding="utf-8") as f:
            summary += [f.read().rstrip("\n"), ""]
    R[header_end:header_end] = summary

    R += ["## Checks of the data", ""]
    for s in studies:
        R += checks(s["df"], s["name"], [args.scheduler, args.baseline])
    R += ["", "Since model version 2 a run that would leave jobs waiting fails (an `/errors` row) instead of "
          "ending with them unfinished (docs/model.md, \"Events and metrics\"), so `avg_jct_s` and `total_cost_usd` "
          "cover every job of every scenario above.", ""]
    R += ["## Files", "", "Figures: " + ", ".join(f"[{s['results'][q.tag][1]}]({s['results'][q.tag][1]})"
                                                   for s in studies for q in quantities) + ".",
          "JSON (the `geopipe analyze` output): " + ", ".join(f"`{os.path.splitext(s['results'][q.tag][1])[0]}.json`"
                                                              for s in studies for q in quantities) + ".", ""]
    with open(os.path.join(args.out, "REPORT.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(R))
    print(f"study_report.py: wrote {os.path.join(args.out, 'REPORT.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
