"""``geopipe.plot``: a metric against a swept parameter, per scheduler, with 95 % CIs."""

from __future__ import annotations

import math
import os
import sys
import textwrap

import numpy as np
import pandas as pd

from . import metrics as _metrics
from .results import alias, axes, load, paired_change, scheduler_order, summary

__all__ = ["plot", "resolve_axis", "is_log_axis", "geometric", "OUTPUT_FORMATS", "DPI"]

OUTPUT_FORMATS = ("png", "svg")
DPI = 150
PANEL_W, PANEL_H = 5.6, 3.8  # inches per panel (x 150 dpi = 840 x 570 pixels)
_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f",
            "#bcbd22", "#e377c2"]
_MARKERS = ["*", "o", "s", "^", "v", "P", "X", "D", "h", "<"]
_LINESTYLES = ["-", "--", ":", "-."]


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "n/a" if math.isnan(v) else f"{v:g}"
    return str(v)


def resolve_axis(df: pd.DataFrame, name: str) -> str:
    """The parameter column of ``df`` that ``name`` names (its path, e.g.
    ``network.bandwidth_scale``, or its dot-free alias ``network_bandwidth_scale``);
    ValueError listing the axes otherwise."""
    params = axes(df)
    if name in params:
        return name
    for c in params:
        if alias(c) == name:
            return c
    listed = ", ".join(params) if params else "none: the file sweeps no parameter"
    raise ValueError(f"unknown axis '{name}' (axes: {listed})")


def geometric(values) -> bool:
    """The heuristic for a log x scale: at least 3 distinct positive numbers whose consecutive
    ratios (sorted) are all > 1.5 and about constant (largest / smallest ratio <= 1.25), e.g.
    0.125, 0.25, ..., 8 or 1, 3, 10, 30; not 0.5, 1, 2, 3 (ratios 2, 2, 1.5) nor 1, 2."""
    try:
        v = np.unique(np.asarray([float(x) for x in values], dtype=float))
    except (TypeError, ValueError):
        return False
    v = v[np.isfinite(v)]
    if v.size < 3 or v[0] <= 0:
        return False
    r = v[1:] / v[:-1]
    return bool((r > 1.5).all() and r.max() / r.min() <= 1.25)


def _declared_log(df: pd.DataFrame, x: str) -> bool:
    """Whether the sweep file (attrs["sweep_toml"]) declares parameter x geometric: an axis
    with ``range = { ..., log = true }`` or a factor of kind ``log-uniform``."""
    text = df.attrs.get("sweep_toml")
    if not text:
        return False
    try:
        import tomllib

        doc = tomllib.loads(text)
    except Exception:  # noqa: BLE001 - a collection's concatenated files, Python < 3.11
        return False
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("param") == x:
                rng = node.get("range")
                if (isinstance(rng, dict) and rng.get("log") is True) or node.get("kind") == "log-uniform":
                    found.append(True)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    return bool(found)


def is_log_axis(df: pd.DataFrame, x: str) -> bool:
    """Log x scale for parameter ``x`` of ``df``: its values are numeric and positive, and
    either the sweep declares it geometric (``log = true`` range, ``log-uniform`` factor) or
    its distinct values are (``geometric``)."""
    col = df[x]
    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return False
    v = col.dropna().to_numpy(dtype=float)
    if v.size == 0 or (v <= 0).any():
        return False
    return _declared_log(df, x) or geometric(v)


def _check_out(out) -> str:
    ext = os.path.splitext(os.fspath(out))[1].lower().lstrip(".")
    if ext not in OUTPUT_FORMATS:
        raise ValueError(f"output '{os.fspath(out)}': expected a file name ending in .png or .svg")
    return ext


def _save_atomically(fig, out: str, fmt: str, inputs) -> None:
    """Writes the figure as geopipe writes every file (docs/design.md, "Outputs"): never over an
    input (compared by identity: device and inode), to OUT.tmp.PID beside the target, renamed
    over it once written whole; the temporary file is removed on any failure."""
    for src in inputs:
        if os.path.exists(out) and os.path.exists(src) and os.path.samefile(out, src):
            raise ValueError(f"output '{out}' is an input ({src}); an input is never overwritten (expected a new path)")
    if os.path.exists(out) and not os.path.isfile(out):
        raise ValueError(f"output '{out}' exists and is not a regular file (expected a file path)")
    tmp = f"{out}.tmp.{os.getpid()}"
    try:
        with open(tmp, "xb") as f:
            fig.savefig(f, dpi=DPI, format=fmt)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _schedulers(df: pd.DataFrame, schedulers) -> list:
    present = scheduler_order(df)
    if schedulers is None:
        return present
    names = [s.strip() for s in schedulers.split(",")] if isinstance(schedulers, str) else list(schedulers)
    names = [s for s in names if s]
    for s in names:
        if s not in present:
            raise ValueError(f"unknown scheduler '{s}' (schedulers: {', '.join(present)})")
    if not names:
        raise ValueError(f"no scheduler given (schedulers: {', '.join(present)})")
    return list(dict.fromkeys(names))


def _use_agg_without_display():
    import matplotlib

    if "matplotlib.pyplot" in sys.modules or os.environ.get("MPLBACKEND"):
        return
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        matplotlib.use("Agg")


def plot(data, x: str, metric: str = "avg_jct_s", by=None, paired_vs=None, schedulers=None, ax=None, out=None):
    """Plot ``metric`` against the swept parameter ``x``: each scheduler's mean over the seeds
    with its 95 % Student-t confidence interval (error bars), and return the Figure.

    ``data``: a result file's path or a DataFrame from ``geopipe.load``. ``x``, ``by``: swept
    parameters (their paths or dot-free aliases); ``by`` (one name or a list) draws one panel
    per combination of their values, side by side with a shared y axis (or, with ``ax``, one
    line style per combination in that Axes); parameters that are neither ``x`` nor in ``by``
    are pooled: each mean is over their values and the seeds (the title says so).
    ``schedulers``: a list or "a,b" (default all, in sweep order). ``paired_vs=Q``: a second
    row of panels with each other scheduler's paired change against Q, mean over the (point,
    seed) pairs of ``scheduler / Q - 1`` in %, with its 95 % CI and a line at 0 (negative =
    lower than Q); it needs ``ax=None``.

    x scale: logarithmic when the values are numeric and positive and either the sweep file
    declares the parameter geometric (a ``log = true`` range, a ``log-uniform`` factor) or the
    sorted distinct values (at least 3) have a nearly constant ratio > 1.5 between neighbours
    (``geometric``); linear otherwise; text values are categories. Markers are shifted
    sideways by a few % of a step per scheduler so the bars do not hide each other. y: the
    metric in the unit the CLI shows it in (hours for the JCT, queueing and makespan seconds,
    MWh for energy, TB for bytes, ms for the scheduler times; ``geopipe.metrics``), labelled
    e.g. ``avg_jct [h]``.

    ``ax``: draw into this Axes instead of a new figure. ``out``: also save the figure, PNG or
    SVG by the extension, at 150 dpi (size = figsize x 150 pixels; a new figure is PANEL_W x
    PANEL_H inches per panel). Uses matplotlib's Agg backend when there is no display.
    ValueError for an unknown axis, metric or scheduler, ``paired_vs`` with ``ax``, or another
    output extension.
    """
    if out is not None:
        _check_out(out)
    df = data if isinstance(data, pd.DataFrame) else load(data)
    xcol = resolve_axis(df, x)
    by_cols = []
    for b in ([by] if isinstance(by, str) else list(by or [])):
        c = resolve_axis(df, b)
        if c == xcol:
            raise ValueError(f"axis '{b}' is both x and a --by axis")
        if c not in by_cols:
            by_cols.append(c)
    known = df.attrs.get("metrics") or [m for m in _metrics.metric_names() if m in df.columns]
    if metric not in known or metric not in df.columns:
        raise ValueError(f"unknown metric '{metric}' (metrics: {', '.join(known)})")
    scheds = _schedulers(df, schedulers)
    if paired_vs is not None:
        present = scheduler_order(df)
        if paired_vs not in present:
            raise ValueError(f"unknown scheduler '{paired_vs}' for paired_vs (schedulers: {', '.join(present)})")
        if ax is not None:
            raise ValueError("paired_vs draws a second panel: call plot() without ax")
    pooled = [c for c in axes(df) if c != xcol and c not in by_cols]

    _use_agg_without_display()
    import matplotlib.pyplot as plt

    numeric = pd.api.types.is_numeric_dtype(df[xcol]) and not pd.api.types.is_bool_dtype(df[xcol])
    xvals = sorted(pd.unique(df[xcol].dropna())) if numeric else sorted(pd.unique(df[xcol].astype(str)))
    log = is_log_axis(df, xcol)
    if by_cols:
        keys = df[by_cols].drop_duplicates().sort_values(by_cols).itertuples(index=False, name=None)
        groups = [tuple(k) for k in keys]
    else:
        groups = [()]
    if ax is None:
        nrows = 2 if paired_vs is not None else 1
        ncols = len(groups)
        fig, axs = plt.subplots(nrows, ncols, figsize=(PANEL_W * ncols, PANEL_H * nrows), squeeze=False,
                                sharex=True, sharey="row", layout="constrained")
        own = True
    else:
        fig, axs, own = ax.figure, None, False

    scale = _metrics.display_scale(metric)
    paired = [s for s in scheds if s != paired_vs] if paired_vs is not None else []
    all_scheds = scheduler_order(df)

    def style(s):
        i = all_scheds.index(s) if s in all_scheds else len(all_scheds)
        return _COLOURS[i % len(_COLOURS)], _MARKERS[i % len(_MARKERS)]

    def positions(vals, k, count):
        """x positions of the values for series k of count, dodged by up to 4 % of a step."""
        if numeric:
            v = np.asarray(vals, dtype=float)
            if len(xvals) < 2 or count < 2:
                return v
            off = (k - (count - 1) / 2) * 0.08 / max(count - 1, 1)
            if log:
                step = math.log(xvals[-1] / xvals[0]) / (len(xvals) - 1)
                return v * math.exp(off * step)
            step = (float(xvals[-1]) - float(xvals[0])) / (len(xvals) - 1)
            return v + off * step
        pos = {str(c): i for i, c in enumerate(xvals)}
        return np.asarray([pos[str(c)] for c in vals], dtype=float) + (k - (count - 1) / 2) * 0.06

    for gi, key in enumerate(groups):
        sub = df
        for c, v in zip(by_cols, key):
            sub = sub[sub[c].isna()] if isinstance(v, float) and math.isnan(v) else sub[sub[c] == v]
        label_g = ", ".join(f"{c} = {_fmt(v)}" for c, v in zip(by_cols, key))
        top = axs[0][gi] if own else ax
        ls = "-" if own else _LINESTYLES[gi % len(_LINESTYLES)]
        for k, s in enumerate(scheds):
            colour, marker = style(s)
            sm = summary(sub[sub["scheduler"] == s], metric, by=xcol)
            if sm.empty:
                continue
            sm = sm.sort_values(xcol, key=(None if numeric else (lambda c: c.astype(str))))
            top.errorbar(positions(sm[xcol], k, len(scheds)), (sm["mean"] * scale).to_numpy(dtype=float),
                         yerr=(sm["ci"] * scale).to_numpy(dtype=float),
                         color=colour, marker=marker, linestyle=ls, capsize=3, markersize=6, linewidth=1.4,
                         label=s if (own or not label_g) else f"{s} ({label_g})")
        if own and label_g:
            top.set_title(label_g, fontsize=10)
        if paired:
            low = axs[1][gi]
            low.axhline(0.0, color="black", linewidth=0.8)
            for k, s in enumerate(paired):
                colour, marker = style(s)
                pc = paired_change(sub, metric, s, paired_vs, by=xcol)
                pc = pc[pc["n"] > 0]
                if pc.empty:
                    continue
                pc = pc.sort_values(xcol, key=(None if numeric else (lambda c: c.astype(str))))
                low.errorbar(positions(pc[xcol], k, len(paired)), (pc["mean"] * 100.0).to_numpy(dtype=float),
                             yerr=(pc["ci"] * 100.0).to_numpy(dtype=float),
                             color=colour, marker=marker, linestyle="-", capsize=3, markersize=6, linewidth=1.4,
                             label=f"{s} vs {paired_vs}")
    rows = [axs[r] for r in range(len(axs))] if own else [[ax]]
    for r, row in enumerate(rows):
        for c, a in enumerate(row):
            if log:
                a.set_xscale("log")
                a.set_xticks([float(v) for v in xvals])
                a.set_xticklabels([_fmt(v) for v in xvals])
                a.minorticks_off()
            elif not numeric:
                a.set_xticks(range(len(xvals)))
                a.set_xticklabels([str(v) for v in xvals])
            a.grid(True, alpha=0.3)
            if r == len(rows) - 1:
                a.set_xlabel(xcol)
            if c == 0:
                if r == 0:
                    a.set_ylabel(_metrics.metric_label(metric))
                else:
                    a.set_ylabel(f"change vs {paired_vs} [%]")
    first = axs[0][0] if own else ax
    first.legend(fontsize=8, loc="best")
    if paired:
        axs[1][0].legend(fontsize=8, loc="best")
    if own:
        title = f"{df.attrs.get('sweep_name') or 'sweep'}: {metric}, mean and 95 % CI over seeds"
        if pooled:
            title += f", pooled over {', '.join(pooled)}"
        fig.suptitle(textwrap.fill(title, width=int(72 * len(groups))), fontsize=10)
    if out is not None:
        fmt = _check_out(out)
        inputs = [data.attrs.get("path")] if isinstance(data, pd.DataFrame) else [os.fspath(data)]
        inputs = [i for i in inputs if i]
        _save_atomically(fig, os.fspath(out), fmt, inputs)
        if own:
            plt.close(fig)
    return fig
