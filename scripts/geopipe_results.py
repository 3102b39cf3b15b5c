"""Read and analyse geopipe sweep result files (HDF5) with pandas.

Use Debian's ``/usr/bin/python3`` (it has h5py, pandas and numpy)::

    import sys; sys.path.insert(0, "scripts"); import geopipe_results as gr
    df = gr.load("quick.h5")
    gr.paired_change(df, "avg_jct_s", "bace-pipe", "delay-first", by=["network.bandwidth_scale"])

Functions
---------
load(path)
    One row per finished scenario: the ``/scenarios`` columns (id, point, seed, scheduler,
    one column per swept parameter) joined with the ``/metrics`` columns on ``id``; only
    ``status == 1`` rows; strings decoded; ``df.attrs`` = the file's root attributes
    (decoded) plus ``path``, ``errors`` (number of ``/errors`` rows) and ``error_ids``.
axes(df)
    The swept parameter columns (``df.attrs["axes"]`` present in ``df``).
point_labels(df)
    ``{point: label}``: a short name per point (axis values, or for explicit points that
    reweight the model mix, e.g. ``"small (1.3B-13B)"``).
t975(dof), mean_ci(values)
    Two-sided 95 % Student-t confidence interval of a mean (same table as
    ``src/sweep/stats.cpp``; no scipy needed).
summary(df, metric, by)
    Per group and scheduler: n, mean, ci (half width), lo, hi.
paired_values(df, metric, target, baseline, by), paired_change(...)
    The relative change ``target / baseline - 1`` per (point, seed) pair (both schedulers saw
    the same job trace), and per group its mean with a 95 % CI over the pairs.
normalized(df, metric, by, reference="max")
    ``summary`` plus the mean and CI divided by a per-group normaliser (the largest
    scheduler mean of the group, or the mean of a named scheduler), for figures.

All relative changes are fractions (-0.25 = 25 % lower). Groups are given by ``by``: a column
name, a list of column names, or None (one group). NaN values in grouping columns form their
own group (explicit points that do not set an axis). Importing this module has no side
effects.
"""

from __future__ import annotations

import math
import re
from collections import namedtuple
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "load", "axes", "point_labels", "scheduler_order", "t975", "mean_ci", "MeanCI",
    "summary", "paired_values", "paired_change", "normalized", "model_size_b",
    "base_scenario",
]

# Two-sided 95 % Student-t quantiles t_{0.975, df} for df = 1..30 (src/sweep/stats.cpp).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(dof: int) -> float:
    """The 0.975 quantile of Student's t with ``dof`` degrees of freedom (NaN for dof < 1).

    A table for 1..30; beyond, ``1.959964 + (2.042 - 1.959964) * 30 / dof`` (the quantile is
    nearly linear in 1/dof: 2.021 at 40, 2.000 at 60, 1.980 at 120), as in src/sweep/stats.cpp.
    """
    dof = int(dof)
    if dof < 1:
        return math.nan
    if dof <= 30:
        return _T975[dof - 1]
    return 1.959964 + (2.042 - 1.959964) * 30.0 / dof


class MeanCI(namedtuple("MeanCI", ["n", "mean", "ci"])):
    """Mean of ``n`` values and the half width ``ci`` of its 95 % Student-t interval."""

    __slots__ = ()

    @property
    def lo(self) -> float:
        return self.mean - self.ci

    @property
    def hi(self) -> float:
        return self.mean + self.ci


def mean_ci(values: Iterable[float]) -> MeanCI:
    """Mean and 95 % Student-t confidence half width of the finite values of ``values``.

    Non-finite values (NaN, inf) are ignored and not counted in ``n``. With no value the mean
    is NaN; with one value the half width is NaN (undefined). The half width is
    ``t975(n - 1) * s / sqrt(n)`` with ``s`` the sample standard deviation (ddof = 1).
    """
    x = np.asarray(list(values) if not isinstance(values, (np.ndarray, pd.Series)) else values,
                   dtype=float).ravel()
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(0, math.nan, math.nan)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(1, mean, math.nan)
    sd = float(np.sqrt(((x - mean) ** 2).sum() / (n - 1)))
    return MeanCI(n, mean, t975(n - 1) * sd / math.sqrt(n))


# --------------------------------------------------------------------------------------------
# Loading

def _decode(v):
    """bytes -> str, numpy scalars -> Python scalars, arrays -> lists (recursively)."""
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace").rstrip("\x00")
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return _decode(v.item())
        return [_decode(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_decode(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _frame(arr: np.ndarray) -> pd.DataFrame:
    df = pd.DataFrame(arr)
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].map(_decode)
    return df


def _open(path: str):
    import h5py  # imported here so that the pure statistics work without h5py

    try:  # a file whose SWMR writer is running or died needs swmr=True (docs/hdf5-format.md)
        return h5py.File(path, "r", swmr=True)
    except OSError:
        return h5py.File(path, "r")


def load(path: str) -> pd.DataFrame:
    """Load a geopipe result file: one row per finished scenario, sorted by id.

    Columns: id, point, seed, scheduler, the axis columns (named by their parameter path,
    e.g. ``network.bandwidth_scale``; NaN / "" where an explicit point does not set them),
    then status and every metric of ``/metrics``. Rows of ``/metrics`` that are fill rows
    (id < 0) or failed (status != 1) are dropped, as are duplicate ids. ``df.attrs`` holds the
    file's root attributes decoded to Python values (sweep_name, sweep_toml, base_toml,
    sweep_hash, geopipe_version, created_utc, layout, schedulers, axes, complete, ...) plus
    ``path``, ``errors`` (valid rows of ``/errors``), ``error_ids`` and ``num_rows``.
    """
    with _open(path) as f:
        attrs = {k: _decode(v) for k, v in f.attrs.items()}
        scen = _frame(f["scenarios"][:])
        met = _frame(f["metrics"][:])
        err = f["errors"][:] if "errors" in f else np.zeros(0, dtype=[("id", "<i8")])
    met = met[(met["id"] >= 0) & (met["status"] == 1)].drop_duplicates("id")
    df = scen.merge(met, on="id", how="inner").sort_values("id", kind="stable").reset_index(drop=True)
    if "seed" in df and df["seed"].dtype == np.uint64 and (df["seed"].max() if len(df) else 0) < 2**63:
        df["seed"] = df["seed"].astype(np.int64)
    err_ids = sorted({int(i) for i in np.asarray(err["id"]) if int(i) >= 0})
    for k in ("schedulers", "axes"):
        if k in attrs and isinstance(attrs[k], str):
            attrs[k] = [attrs[k]]
    attrs.update(path=str(path), errors=len(err_ids), error_ids=err_ids, num_rows=len(df))
    df.attrs = attrs
    return df


def axes(df: pd.DataFrame) -> list:
    """The swept parameter columns of ``df``, in sweep order.

    From ``df.attrs["axes"]`` when present, else every column whose name contains a dot
    (parameter paths do, metric names do not).
    """
    names = df.attrs.get("axes")
    if names is None:
        names = [c for c in df.columns if "." in str(c)]
    return [c for c in names if c in df.columns]


def scheduler_order(df: pd.DataFrame) -> list:
    """Schedulers present in ``df``, in the sweep's order (``attrs["schedulers"]``, then first seen)."""
    present = list(dict.fromkeys(df["scheduler"].tolist()))
    order = [s for s in df.attrs.get("schedulers", []) if s in present]
    return order + [s for s in present if s not in order]


# --------------------------------------------------------------------------------------------
# Point labels (explicit [[point]]s that reweight the model mix, as in the paper's Fig. 4)

_MIX_COL = re.compile(r"^workload\.mix\.(.+)\.weight$")


def model_size_b(name: str) -> float:
    """Parameter count in billions parsed from a model name ('llama2-70b' -> 70, 'gpt3-1.3b' -> 1.3)."""
    m = re.findall(r"(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", name)
    return float(m[-1]) if m else math.nan


def base_scenario(df: pd.DataFrame) -> dict:
    """The base scenario (``attrs["base_toml"]``) parsed with tomllib ({} if unavailable)."""
    text = df.attrs.get("base_toml")
    if not text:
        return {}
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return {}
    try:
        return tomllib.loads(text)
    except Exception:  # noqa: BLE001 - labels are cosmetic, never fail on them
        return {}


def _fmt_b(x: float) -> str:
    return f"{x:g}B"


def _fmt_value(v) -> str:
    if isinstance(v, float):
        return "n/a" if math.isnan(v) else f"{v:g}"
    return str(v)


def point_labels(df: pd.DataFrame, removed_below: float = 1e-6) -> dict:
    """A short label per point index.

    Points whose only parameters are model-mix weights (``workload.mix.<model>.weight``; a
    weight <= ``removed_below`` removes the model, cf. sweeps/paper/fig4_end_to_end.toml) are
    named by the models they keep: ``"mixed (1.3B-101B)"`` when every model of the base mix is
    kept, ``"small (A-B)"`` when every kept model is smaller than every removed one,
    ``"large (A-B)"`` when larger, else ``"mix (A-B)"``. Other points are named by their axis
    values (``"network.bandwidth_scale=0.5"``).
    """
    ax = axes(df)
    mix_cols = {c: _MIX_COL.match(c).group(1) for c in ax if _MIX_COL.match(c)}
    base_models = [m.get("model") for m in base_scenario(df).get("workload", {}).get("mix", [])
                   if isinstance(m, dict) and m.get("model")]
    if not base_models:
        base_models = list(mix_cols.values())
    labels = {}
    for p, rows in df.groupby("point", sort=True):
        row = rows.iloc[0]
        if mix_cols and all(c in mix_cols for c in ax):
            removed = {mix_cols[c] for c in mix_cols
                       if pd.notna(row[c]) and float(row[c]) <= removed_below}
            kept = [m for m in base_models if m not in removed]
            ks = sorted(model_size_b(m) for m in kept)
            rs = sorted(model_size_b(m) for m in removed)
            rng = f"({_fmt_b(ks[0])}-{_fmt_b(ks[-1])})" if ks and not math.isnan(ks[0]) else ""
            if not removed:
                kind = "mixed"
            elif ks and rs and ks[-1] < rs[0]:
                kind = "small"
            elif ks and rs and ks[0] > rs[-1]:
                kind = "large"
            else:
                kind = "mix"
            labels[int(p)] = f"{kind} {rng}".strip()
        else:
            parts = [f"{c}={_fmt_value(row[c])}" for c in ax
                     if not (isinstance(row[c], float) and math.isnan(row[c])) and row[c] != ""]
            labels[int(p)] = ", ".join(parts) if parts else f"point {int(p)}"
    return labels


# --------------------------------------------------------------------------------------------
# Statistics over groups

def _by_list(by) -> list:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def _groups(df: pd.DataFrame, by: list):
    """(key tuple, sub-frame) per group, in order of first appearance; NaN keys kept."""
    if not by:
        yield (), df
        return
    grouper = by[0] if len(by) == 1 else by  # a 1-list grouper warns in pandas 1.5
    for key, sub in df.groupby(grouper, sort=False, dropna=False):
        yield (key if isinstance(key, tuple) else (key,)), sub


def summary(df: pd.DataFrame, metric: str, by=None) -> pd.DataFrame:
    """Per group (``by``) and scheduler: n, mean, ci (95 % half width), lo, hi of ``metric``.

    The statistics are over the group's rows (its (point, seed) runs), non-finite values
    excluded. Schedulers in sweep order.
    """
    by = _by_list(by)
    order = scheduler_order(df)
    rows = []
    for key, sub in _groups(df, by):
        for s in order:
            vals = sub.loc[sub["scheduler"] == s, metric]
            if vals.empty:
                continue
            mc = mean_ci(vals.to_numpy())
            rows.append(dict(zip(by, key), scheduler=s, n=mc.n, mean=mc.mean, ci=mc.ci,
                             lo=mc.lo, hi=mc.hi))
    return pd.DataFrame(rows, columns=by + ["scheduler", "n", "mean", "ci", "lo", "hi"])


def paired_values(df: pd.DataFrame, metric: str, target: str, baseline: str, by=None) -> pd.DataFrame:
    """One row per (point, seed) pair that has both schedulers, with ``by`` columns, point,
    seed, ``target`` (its value), ``baseline`` (its value) and ``rel = target / baseline - 1``.

    Pairs whose baseline value is 0 or either value is not finite get ``rel`` = NaN.
    """
    by = _by_list(by)
    keys = [c for c in by if c not in ("point", "seed")] + ["point", "seed"]
    a = df.loc[df["scheduler"] == target, keys + [metric]].rename(columns={metric: "target"})
    b = df.loc[df["scheduler"] == baseline, ["point", "seed", metric]].rename(columns={metric: "baseline"})
    m = a.merge(b, on=["point", "seed"], how="inner").sort_values(["point", "seed"], kind="stable")
    t = m["target"].to_numpy(dtype=float)
    base = m["baseline"].to_numpy(dtype=float)
    ok = np.isfinite(t) & np.isfinite(base) & (base != 0)
    rel = np.full(len(m), np.nan)
    rel[ok] = t[ok] / base[ok] - 1.0
    m["rel"] = rel
    return m.reset_index(drop=True)


def paired_change(df: pd.DataFrame, metric: str, target: str, baseline: str, by=None) -> pd.DataFrame:
    """Relative change of ``target`` vs ``baseline`` in ``metric``, paired by (point, seed).

    Per group (``by``): ``n`` valid pairs, ``mean`` and ``ci`` (95 % Student-t half width) of
    ``target / baseline - 1`` over the pairs, ``lo``/``hi``, and ``seeds`` (sorted list of
    the seeds of those pairs). Fractions: -0.319 means 31.9 % lower than the baseline.
    """
    by = _by_list(by)
    pv = paired_values(df, metric, target, baseline, by)
    rows = []
    for key, sub in _groups(pv, by):
        valid = sub[np.isfinite(sub["rel"])]
        mc = mean_ci(valid["rel"].to_numpy())
        rows.append(dict(zip(by, key), n=mc.n, mean=mc.mean, ci=mc.ci, lo=mc.lo, hi=mc.hi,
                         seeds=sorted({int(s) for s in valid["seed"]})))
    return pd.DataFrame(rows, columns=by + ["n", "mean", "ci", "lo", "hi", "seeds"])


def normalized(df: pd.DataFrame, metric: str, by=None, reference: str = "max") -> pd.DataFrame:
    """``summary(df, metric, by)`` plus ``norm`` (the group's normaliser), ``norm_mean`` and
    ``norm_ci`` (mean and CI half width divided by it).

    ``reference="max"``: the largest scheduler mean in the group (values in (0, 1], as in
    the paper's normalized plots); a scheduler name: that scheduler's mean in the group.
    """
    by = _by_list(by)
    s = summary(df, metric, by)
    norms = []
    for key, sub in _groups(s, by):
        if reference == "max":
            ref = float(sub["mean"].max())
        else:
            r = sub.loc[sub["scheduler"] == reference, "mean"]
            if r.empty:
                raise KeyError(f"scheduler {reference!r} has no rows in group {key}")
            ref = float(r.iloc[0])
        norms.append(pd.Series(ref, index=sub.index))
    s["norm"] = pd.concat(norms).sort_index() if norms else pd.Series(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        s["norm_mean"] = s["mean"] / s["norm"]
        s["norm_ci"] = s["ci"] / s["norm"]
    return s
