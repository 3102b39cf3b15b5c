#!/usr/bin/python3
"""Plot geopipe sweep results in the form of the BACE-Pipe paper's Figs. 4-8.

usage: plot_paper.py --out DIR file.h5 [file.h5 ...]

Each input is recognised by its ``sweep_name`` attribute (the names of sweeps/paper/*.toml):

  fig4-end-to-end  -> DIR/fig4.png  grouped bars, one group per workload composition
  fig5-bandwidth   -> DIR/fig5.png  lines vs inter-region bandwidth scale (log x)
  fig6-capacity    -> DIR/fig6.png  lines vs regional GPU capacity scale (log x)
  fig7-load        -> DIR/fig7.png  lines vs workload intensity (arrival-rate scale)
  fig8-ablation    -> DIR/fig8.png  grouped bars of the ablation presets per load point
  anything else    -> DIR/<sweep_name>[_<axis>].png, lines vs each swept axis (or bars per point)

Every figure has two panels, "Normalized average JCT" and "Normalized total electricity
cost": per group (x value, composition or load point) each scheduler's mean over the seeds is
divided by the largest scheduler mean of that group, so the worst scheduler is 1 and values
lie in (0, 1]. Error bars are the 95 % Student-t CI over the seeds, divided by the same
normaliser. Run with Debian's /usr/bin/python3 (h5py, pandas, matplotlib).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap


import _geopipe_path  # noqa: E402,F401 - puts the package geopipe on sys.path (scripts/_geopipe_path.py)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import geopipe  # noqa: E402

# Student-t quantiles: exact (scipy), as geopipe summarize computes them.
T975 = geopipe.t975

METRICS = [("avg_jct_s", "Normalized average JCT"),
           ("total_cost_usd", "Normalized total electricity cost")]

# One colour / marker / display name per scheduler, shared by every figure.
STYLE = {
    "bace-pipe": ("#d62728", "*", "BACE-Pipe"),
    "delay-first": ("#1f77b4", "o", "Delay-first"),
    "cost-first": ("#2ca02c", "s", "Cost-first"),
    "greedy-cost": ("#9467bd", "^", "Greedy-cost"),
    "first-fit": ("#7f7f7f", "D", "First-fit"),
    "bace-no-priority": ("#ff7f0e", "v", "w/o dynamic priority"),
    "bace-no-pathfinder": ("#8c564b", "P", "w/o BW-aware pathfinder"),
    "bace-no-costmin": ("#17becf", "X", "w/o cost-min allocator"),
}
_FALLBACK = ["#bcbd22", "#e377c2", "#aec7e8", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d"]
_FALLBACK_MARKERS = ["h", "p", "<", ">", "d", "8", "H", "1"]


def style(s: str):
    """(colour, marker, label) of scheduler ``s``; unknown names get a stable fallback."""
    if s in STYLE:
        return STYLE[s]
    i = sum(map(ord, s)) % len(_FALLBACK)
    return _FALLBACK[i], _FALLBACK_MARKERS[i], s


def is_bace(s: str) -> bool:
    return s == "bace-pipe"


# --------------------------------------------------------------------------------------------
# Axis descriptions derived from the base scenario

def _base_facts(df):
    base = geopipe.base_scenario(df)
    facts = {}
    links = base.get("network", {}).get("link", [])
    bws = [float(l["bandwidth_gbps"]) for l in links if isinstance(l, dict) and "bandwidth_gbps" in l]
    if bws:
        facts["bw"] = (min(bws), max(bws))
    regions = base.get("cluster", {}).get("region", [])
    gpus = [int(r["gpus"]) for r in regions if isinstance(r, dict) and "gpus" in r]
    if gpus:
        facts["gpus"] = gpus
    rate = base.get("workload", {}).get("arrival_rate_per_hour")
    if rate is not None:
        facts["rate"] = float(rate)
    return facts


def _num(x: float) -> str:
    return f"{x:g}"


def xlabel_for(axis: str, df) -> str:
    f = _base_facts(df)
    if axis == "network.bandwidth_scale":
        extra = f", {_num(f['bw'][0])}–{_num(f['bw'][1])} Gbit/s" if "bw" in f else ""
        return f"Inter-region bandwidth (× base{extra})"
    if axis == "cluster.capacity_scale":
        extra = f", {sum(f['gpus'])} GPUs" if "gpus" in f else ""
        return f"Regional GPU capacity (× base{extra})"
    if axis == "workload.load_scale":
        extra = f", {_num(f['rate'])} jobs/h" if "rate" in f else ""
        return f"Workload intensity (× base arrival rate{extra})"
    return axis


def ticklabel_for(axis: str, v, df) -> str:
    """Tick label of axis value ``v`` (with the absolute quantity on a second line)."""
    if not isinstance(v, (int, float, np.floating, np.integer)):
        return str(v)
    f = _base_facts(df)
    s = f"{float(v):g}×"
    if axis == "cluster.capacity_scale" and "gpus" in f:
        total = sum(int(math.floor(g * float(v) + 0.5)) for g in f["gpus"])
        return f"{s}\n{total} GPUs"
    if axis == "workload.load_scale" and "rate" in f:
        return f"{s}\n{f['rate'] * float(v):g}/h"
    return s


# --------------------------------------------------------------------------------------------
# Figure scaffolding

CAPTION = ("Each {unit}: mean over {seeds} ÷ the largest scheduler mean {where} (worst = 1). "
           "Error bars: 95 % Student-t CI over seeds, ÷ the same normaliser.")


def _seeds_text(df) -> str:
    seeds = sorted(df["seed"].unique().tolist())
    if not seeds:
        return "no seeds"
    if seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{len(seeds)} seeds ({seeds[0]}–{seeds[-1]})"
    return f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''} ({', '.join(map(str, seeds))})"


def _new_figure(title: str):
    fig, axs = plt.subplots(1, 2, figsize=(10, 4.4), dpi=150)
    # fig.text rather than suptitle: tight_layout (below) would reserve room for a suptitle
    # on top of the rect that already leaves room for the title and the legend.
    fig.text(0.5, 0.975, title, ha="center", va="top", fontsize=12, fontweight="bold")
    return fig, axs


def _finish(fig, axs, scheds, caption: str, path: str, kind: str):
    handles = []
    for s in scheds:
        c, m, label = style(s)
        if kind == "bar":
            h = plt.Rectangle((0, 0), 1, 1, facecolor=c, edgecolor="black" if is_bace(s) else c,
                              linewidth=1.4 if is_bace(s) else 0)
        else:
            h = plt.Line2D([], [], color=c, marker=m, linewidth=2.6 if is_bace(s) else 1.4,
                           markersize=11 if is_bace(s) else 6)
        handles.append((h, label))
    ncol = len(handles) if len(handles) <= 5 else math.ceil(len(handles) / 2)
    fig.legend([h for h, _ in handles], [l for _, l in handles], loc="upper center",
               bbox_to_anchor=(0.5, 0.925), ncol=ncol, frameon=False, fontsize=9,
               handlelength=2.2, columnspacing=1.4)
    lines = textwrap.wrap(caption, 168)  # ~170 characters fit 10 in at 7.5 pt
    fig.text(0.5, 0.012, "\n".join(lines), ha="center", va="bottom", fontsize=7.5, color="#333333")
    legend_rows = math.ceil(len(handles) / ncol)
    top = 0.86 - 0.05 * (legend_rows - 1)
    fig.tight_layout(rect=(0, 0.045 + 0.028 * (len(lines) - 1), 1, top))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path


def _style_axes(ax, title):
    ax.set_title(title, fontsize=11)
    ax.set_ylabel("normalized (worst scheduler = 1)", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=8.5)


def _ylim(ax, tops):
    top = max([1.0] + [t for t in tops if np.isfinite(t)])
    ax.set_ylim(0, top * 1.06)


def plot_bars(df, group_col, group_labels: dict, title: str, path: str, xlabel: str,
              unit="bar", where="of its group"):
    """Grouped bars: one group per value of ``group_col``, one bar per scheduler."""
    scheds = geopipe.scheduler_order(df)
    groups = list(dict.fromkeys(df[group_col].tolist()))
    fig, axs = _new_figure(title)
    k = len(scheds)
    width = 0.8 / max(k, 1)
    for ax, (metric, ptitle) in zip(axs, METRICS):
        nm = geopipe.normalized(df, metric, group_col, quantile=T975)
        tops = []
        for i, s in enumerate(scheds):
            c, _, label = style(s)
            sub = nm[nm["scheduler"] == s].set_index(group_col)
            ys = [sub["norm_mean"].get(g, np.nan) for g in groups]
            es = [sub["norm_ci"].get(g, np.nan) for g in groups]
            es_plot = [0 if not np.isfinite(e) else e for e in es]
            xs = np.arange(len(groups)) + (i - (k - 1) / 2) * width
            ax.bar(xs, ys, width * 0.92, color=c, label=label,
                   edgecolor="black" if is_bace(s) else c, linewidth=1.4 if is_bace(s) else 0,
                   yerr=es_plot, capsize=2.5, error_kw=dict(elinewidth=0.9, ecolor="black"))
            tops += [y + e for y, e in zip(ys, es_plot)]
        ax.set_xticks(np.arange(len(groups)))
        ax.set_xticklabels([group_labels.get(g, str(g)) for g in groups], fontsize=8.5)
        ax.set_xlabel(xlabel, fontsize=9)
        _style_axes(ax, ptitle)
        _ylim(ax, tops)
    caption = CAPTION.format(unit=unit, seeds=_seeds_text(df), where=where)
    return _finish(fig, axs, scheds, caption, path, "bar")


def _is_numeric(series) -> bool:
    return np.issubdtype(series.dtype, np.number)


def plot_lines(df, axis: str, title: str, path: str, log: bool | None = None, xlabel=None, over_extra=""):
    """Lines with markers vs ``axis`` (other axes averaged over), one line per scheduler."""
    d = df[df[axis].notna()] if _is_numeric(df[axis]) else df[df[axis] != ""]
    scheds = geopipe.scheduler_order(d)
    numeric = _is_numeric(d[axis])
    values = sorted(d[axis].unique().tolist()) if numeric else list(dict.fromkeys(d[axis].tolist()))
    if log is None:
        log = numeric and min(values) > 0 and max(values) / min(values) >= 8
    pos = {v: (float(v) if numeric else float(i)) for i, v in enumerate(values)}
    fig, axs = _new_figure(title)
    k = len(scheds)
    span = (max(pos.values()) - min(pos.values())) or 1.0
    for ax, (metric, ptitle) in zip(axs, METRICS):
        nm = geopipe.normalized(d, metric, axis, quantile=T975)
        tops = []
        for i, s in enumerate(scheds):
            c, m, label = style(s)
            sub = nm[nm["scheduler"] == s]
            off = (i - (k - 1) / 2)
            xs = np.array([pos[v] for v in sub[axis]], dtype=float)
            xs = xs * math.exp(0.035 * off) if log else xs + 0.008 * span * off  # dodge error bars
            ys = sub["norm_mean"].to_numpy()
            es = np.nan_to_num(sub["norm_ci"].to_numpy(), nan=0.0)
            bace = is_bace(s)
            ax.errorbar(xs, ys, yerr=es, color=c, marker=m, label=label,
                        linewidth=2.6 if bace else 1.4, markersize=11 if bace else 5.5,
                        capsize=2.5, elinewidth=0.9, zorder=5 if bace else 3,
                        markeredgecolor="black" if bace else c, markeredgewidth=0.6 if bace else 0.5)
            tops += list(ys + es)
        if log:
            ax.set_xscale("log")
        ax.set_xticks([pos[v] for v in values])
        ax.set_xticklabels([ticklabel_for(axis, v, df) for v in values], fontsize=8)
        ax.minorticks_off()
        ax.set_xlabel(xlabel or xlabel_for(axis, df), fontsize=9)
        _style_axes(ax, ptitle)
        _ylim(ax, tops)
    caption = CAPTION.format(unit="point", seeds=_seeds_text(d) + over_extra, where="at the same x")
    if over_extra:
        caption = caption.replace("CI over seeds", "CI over those runs")
    return _finish(fig, axs, scheds, caption, path, "line")


# --------------------------------------------------------------------------------------------
# Per-figure drivers

def _fig4(df, out):
    labels = geopipe.point_labels(df)
    return [plot_bars(df, "point", labels,
                      "Fig. 4 — End-to-end: BACE-Pipe vs baselines for three workload compositions",
                      os.path.join(out, "fig4.png"), "Workload composition (model sizes in the mix)",
                      where="of the same composition")]


def _lines(name, axis, title):
    def run(df, out):
        if axis not in df.columns:
            raise ValueError(f"{name}: the file has no '{axis}' column (axes: {geopipe.axes(df)})")
        return [plot_lines(df, axis, title, os.path.join(out, f"{name}.png"))]
    return run


def _fig8(df, out):
    axis = "workload.load_scale"
    if axis not in df.columns:
        raise ValueError(f"fig8: the file has no '{axis}' column (axes: {geopipe.axes(df)})")
    f = _base_facts(df)
    labels = {}
    for v in df[axis].unique():
        labels[v] = f"load {float(v):g}×" + (f" ({f['rate'] * float(v):g} jobs/h)" if "rate" in f else "")
    return [plot_bars(df, axis, labels, "Fig. 8 — Ablation: BACE-Pipe without each of its components",
                      os.path.join(out, "fig8.png"), xlabel_for(axis, df), where="of the same load")]


def _generic(df, out):
    title_name = str(df.attrs.get("sweep_name") or "sweep")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", title_name)
    usable = []
    for a in geopipe.axes(df):
        col = df[a]
        vals = col.dropna().unique() if _is_numeric(col) else col[col != ""].unique()
        if len(vals) > 1:
            usable.append(a)
    paths = []
    if not usable:
        paths.append(plot_bars(df, "point", geopipe.point_labels(df), f"{title_name}: schedulers per sweep point",
                               os.path.join(out, f"{name}.png"), "sweep point", where="of its point"))
        return paths
    for a in usable:
        suffix = "" if len(usable) == 1 else "_" + re.sub(r"[^A-Za-z0-9]+", "_", a)
        others = [o for o in usable if o != a]
        title = f"{title_name}: schedulers vs {a}" + (" (mean over the other axes)" if others else "")
        paths.append(plot_lines(df, a, title, os.path.join(out, f"{name}{suffix}.png"),
                                over_extra=" × the other axes' values" if others else ""))
    return paths


FIGURES = {
    "fig4-end-to-end": _fig4,
    "fig5-bandwidth": _lines("fig5", "network.bandwidth_scale",
                             "Fig. 5 — Sensitivity to inter-region bandwidth"),
    "fig6-capacity": _lines("fig6", "cluster.capacity_scale",
                            "Fig. 6 — Sensitivity to regional GPU capacity"),
    "fig7-load": _lines("fig7", "workload.load_scale",
                        "Fig. 7 — Sensitivity to workload intensity"),
    "fig8-ablation": _fig8,
}


def plot_file(path: str, out: str) -> list:
    """Plot one result file into directory ``out``; returns the PNG paths written."""
    df = geopipe.load(path)
    if df.empty:
        raise ValueError(f"{path}: no finished scenario (no /metrics row with status 1)")
    return FIGURES.get(df.attrs.get("sweep_name"), _generic)(df, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="plot_paper.py --out DIR file.h5 [file.h5 ...]")
    ap.add_argument("--out", required=True, metavar="DIR", help="directory for the PNG files")
    ap.add_argument("files", nargs="+", metavar="file.h5")
    a = ap.parse_args(argv)
    failed = 0
    for p in a.files:
        try:
            for png in plot_file(p, a.out):
                print(png)
        except Exception as e:  # noqa: BLE001 - report and continue with the other files
            print(f"plot_paper.py: {p}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
