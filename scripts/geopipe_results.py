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

Sensitivity analysis of a sampling-design sweep (the estimators of ``geopipe analyze``, same
names and columns as its JSON and as SALib; numpy, scipy for the normal quantile):

design(path)
    The ``/design`` table: point, then each factor's unit coordinate (NaN: not set);
    ``attrs["design"]`` = "sobol", "morris", "oat", "lhs", ...
design_values(path, metric="avg_jct_s", scheduler=None, paired_vs=None)
    Per point: y (mean over its seeds of the metric of ``scheduler``, default the file's
    first; or of ``metric_P / metric_Q - 1`` paired by seed with ``paired_vs=Q``), n_seeds,
    se; ``attrs["seed_noise"]`` as the CLI reports it.
sobol_indices(path, metric=..., scheduler=None, paired_vs=None, resamples=1000, confidence=0.95, seed=1)
    Indexed by factor: S1, S1_conf, ST, ST_conf; the second-order indices (with a second-order
    design) in ``attrs["S2"]``: a frame factor_a, factor_b, S2, S2_conf.
morris_indices(path, ..., resamples=1000, confidence=0.95, seed=1)
    Indexed by factor: mu, mu_star, sigma, mu_star_conf.
oat_effects(path, metric=..., scheduler=None, paired_vs=None)
    Indexed by factor: levels, y_min, y_max, range; ``attrs["base_value"]``.

Their point estimates equal the CLI's (to rounding); the bootstrap CIs (``*_conf``: half
widths, ``norm.ppf(0.5 + confidence / 2)`` times the sd of the resampled estimates) draw from
``numpy.random.default_rng(seed)``, not the CLI's generator, so they agree only statistically.
Errors (a file of another design or without ``/design``, an unknown metric or scheduler, a
point without results) raise ValueError.

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
    "base_scenario", "design", "design_values", "sobol_indices", "morris_indices", "oat_effects",
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


# --------------------------------------------------------------------------------------------
# Sensitivity analysis of sampling designs (the estimators of `geopipe analyze`, in numpy)

_TEST_FUNCTIONS = ("ishigami", "sobol-g")  # src/analysis/test_functions.h: values stored as avg_jct_s
_DESIGN_HINT = ('expected a file of a design = "sobol", "morris", "oat" or "lhs" sweep')


def _attr_list(v) -> list:
    v = _decode(v)
    return [v] if isinstance(v, str) else list(v)


def _read_design(f, path: str):
    """(structured /design array, factor names, design name) of an open file; ValueError
    when it has no /design (a grid, explicit points or a collection)."""
    name = _decode(f.attrs.get("design", ""))
    if "design" not in f:
        if int(_decode(f.attrs.get("collection", 0)) or 0) == 1:
            raise ValueError(f"{path}: is a collection of several sweeps: it has no design matrix to analyse")
        raise ValueError(f"{path}: has no design matrix (/design): its sweep's design is "
                         f"'{name or 'grid'}' ({_DESIGN_HINT})")
    d = f["design"][:]
    names = list(d.dtype.names or ())
    if not names or names[0] != "point":
        raise ValueError(f"{path}: /design has no 'point' column first (columns: {names})")
    if not np.array_equal(d["point"], np.arange(len(d), dtype=d["point"].dtype)):
        bad = int(np.flatnonzero(d["point"] != np.arange(len(d)))[0])
        raise ValueError(f"{path}: /design row {bad} is not point {bad} (a damaged file)")
    return d, names[1:], name


def design(path: str) -> pd.DataFrame:
    """The design matrix ``/design`` of a sampling-design sweep's result file.

    Columns: ``point`` (= row index) then one float column per factor (its parameter path,
    e.g. ``network.bandwidth_scale``, or ``x1`` .. ``xD`` for a test function) holding the
    point's unit-hypercube coordinate in [0, 1] (NaN: the point does not set it, as OAT's).
    ``df.attrs``: ``design`` (the root attribute: "sobol", "morris", "oat", "lhs", ...),
    ``factors`` (the factor column names, in order), ``schedulers`` and ``path``.
    ValueError for a file without ``/design`` (a grid sweep, explicit points, a collection).
    """
    with _open(path) as f:
        d, factors, name = _read_design(f, path)
        schedulers = _attr_list(f.attrs.get("schedulers", []))
    df = pd.DataFrame(d)
    df.attrs = dict(design=name, factors=factors, schedulers=schedulers, path=str(path))
    return df


def _values(f, path: str, points: int, metric: str, scheduler, paired_vs):
    """The per-point values of design_values() from an open file: (frame, attrs)."""
    schedulers = _attr_list(f.attrs.get("schedulers", []))
    if not schedulers:
        raise ValueError(f"{path}: has no schedulers attribute")
    sched = scheduler if scheduler else schedulers[0]
    for flag, s in (("scheduler", sched), ("paired_vs", paired_vs)):
        if s and s not in schedulers:
            raise ValueError(f"{flag}: scheduler '{s}' is not in {path} (expected one of "
                             + ", ".join(f"'{x}'" for x in schedulers) + ")")
    if paired_vs and paired_vs == sched:
        raise ValueError(f"paired_vs: '{sched}' is the analysed scheduler itself "
                         "(expected another scheduler of the file)")
    met_ds = f["metrics"]
    metric_names = [n for n in met_ds.dtype.names if n not in ("id", "status")]
    if metric not in metric_names:
        raise ValueError(f"metric: unknown metric '{metric}' (expected one of "
                         + ", ".join(f"'{m}'" for m in metric_names) + ")")
    if sched in _TEST_FUNCTIONS:
        if metric != "avg_jct_s":
            raise ValueError(f"metric: this file holds the values of the test function '{sched}', stored "
                             "as avg_jct_s (expected metric='avg_jct_s', the default)")
        quantity = f"{sched}(x) (stored as avg_jct_s)"
    elif paired_vs:
        quantity = f"paired change of {metric}, {sched} / {paired_vs} - 1"
    else:
        quantity = f"{metric} of {sched}"

    sc = f["scenarios"][:]
    me = met_ds[:]
    me = me[(me["id"] >= 0) & (me["status"] == 1)]
    _, first = np.unique(me["id"], return_index=True)  # one row per id
    me = me[first]
    if len(sc) == 0:
        me = me[:0]
    pos = np.minimum(np.searchsorted(sc["id"], me["id"]), max(len(sc) - 1, 0))  # /scenarios: sorted by id
    ok = sc["id"][pos] == me["id"] if len(sc) else np.zeros(0, bool)
    me, pos = me[ok], pos[ok]
    rows = sc[pos]
    point = rows["point"].astype(np.int64)
    seed = rows["seed"].astype(np.uint64)
    sname = np.char.rstrip(rows["scheduler"].astype(bytes), b"\x00")
    value = me[metric].astype(float)
    inside = (point >= 0) & (point < points)

    def per_seed(name):
        m = inside & (sname == name.encode("utf-8"))
        t = pd.DataFrame({"point": point[m], "seed": seed[m], "v": value[m]})
        return t.drop_duplicates(["point", "seed"], keep="last")

    mine = per_seed(sched)
    if paired_vs:
        base = per_seed(paired_vs)
        mine = mine.merge(base, on=["point", "seed"], suffixes=("", "_b"))
        with np.errstate(divide="ignore", invalid="ignore"):
            mine["v"] = mine["v"].to_numpy() / mine["v_b"].to_numpy() - 1.0
    mine = mine.sort_values(["point", "seed"], kind="stable")
    p = mine["point"].to_numpy(dtype=np.int64)
    v = mine["v"].to_numpy(dtype=float)
    n = np.bincount(p, minlength=points)[:points]
    if (n == 0).any():
        miss = np.flatnonzero(n == 0)
        who = f"both {sched} and {paired_vs} at one seed" if paired_vs else sched
        raise ValueError(f"{path}: {len(miss)} of {points} points have no result for {who} (the first: "
                         f"point {int(miss[0])}; the file holds {len(sc)} of "
                         f"{int(_decode(f.attrs.get('total_scenarios', len(sc))))} scenarios"
                         f"{'' if int(_decode(f.attrs.get('complete', 1))) else ': finish it with geopipe sweep --resume'}"
                         "); the analysis needs every point")
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.bincount(p, weights=v, minlength=points)[:points] / n
        dev = v - y[p]
        ss = np.bincount(p, weights=dev * dev, minlength=points)[:points]
        se = np.where(n >= 2, np.sqrt(ss / np.maximum(n - 1, 1) / n), np.nan)
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise ValueError(f"{path}: point {int(bad[0])} has a non-finite {quantity} (e.g. no job completed, "
                         "or a baseline of 0): the indices need a finite value at every point")
    variance = float(np.mean((y - y.mean()) ** 2)) if points else 0.0
    rms = float(np.sqrt(np.mean(se ** 2))) if points and (n >= 2).all() else math.nan
    # The point-specific part (as the CLI): with the same seeds at every point, the residuals of
    # the additive model point + seed; NaN otherwise.
    point_se = math.nan
    if points >= 2 and n.min() >= 2 and n.min() == n.max():
        grid = mine["seed"].to_numpy().reshape(points, int(n[0]))
        if (grid == grid[0]).all():
            x = v.reshape(points, int(n[0]))
            e = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
            point_se = float(np.sqrt((e * e).sum() / ((points - 1) * (n[0] - 1)) / n[0]))
    se_share = rms if math.isnan(point_se) else point_se
    noise = dict(seeds_min=int(n.min()) if points else 0, seeds_max=int(n.max()) if points else 0,
                 rms_standard_error=rms, point_standard_error=point_se, variance=variance,
                 share=se_share * se_share / variance if variance > 0 else math.nan)
    out = pd.DataFrame({"point": np.arange(points, dtype=np.int64), "y": y, "n_seeds": n.astype(np.int64),
                        "se": se})
    attrs = dict(file=str(path), metric=metric, scheduler=sched, paired_vs=paired_vs or None,
                 quantity=quantity, points=int(points), seed_noise=noise)
    return out, attrs


def _design_and_values(path, method, metric, scheduler, paired_vs):
    with _open(path) as f:
        d, factors, name = _read_design(f, path)
        if method is not None and name != method:
            funcs = dict(sobol="sobol_indices()", morris="morris_indices()", oat="oat_effects()")
            hint = f" (use {funcs[name]}, or: geopipe analyze {name} {path})" if name in funcs else ""
            raise ValueError(f"{path}: analysis '{method}' needs the result file of a design = \"{method}\" "
                             f"sweep, but this file's sweep has design = \"{name}\"{hint}")
        vals, attrs = _values(f, path, len(d), metric, scheduler, paired_vs)
    unit = np.column_stack([d[c].astype(float) for c in factors]) if factors else np.zeros((len(d), 0))
    attrs.update(design=name, factors=factors)
    return unit, vals["y"].to_numpy(), vals, attrs


def design_values(path: str, metric: str = "avg_jct_s", scheduler=None, paired_vs=None) -> pd.DataFrame:
    """The value y of every design point, as ``geopipe analyze`` computes it.

    y = the mean over the point's seeds of ``metric`` of ``scheduler`` (default: the file's
    first scheduler), or with ``paired_vs`` = Q the mean over the seeds that have both of
    ``metric_P / metric_Q - 1`` (paired by seed). Columns: point (0 .. points-1, the /design
    rows), y, n_seeds, se (standard error of the mean over the seeds, NaN with one seed).
    ``df.attrs``: file, metric, scheduler (resolved), paired_vs, quantity, points, design,
    factors and seed_noise (seeds_min, seeds_max, rms_standard_error = root mean square of se,
    point_standard_error = the same without the part common to all points (same seeds at every
    point: residuals of the additive model point + seed; NaN otherwise), share = its square (or
    rms_standard_error's) / variance    over the points (NaN unless every point has two seeds), variance = population variance of y
    over the points, share = rms_standard_error^2 / variance), as in the CLI's JSON.
    ValueError: no /design, an unknown scheduler or metric, paired_vs = scheduler, a point
    without results (an incomplete file), a non-finite y.
    """
    _, _, vals, attrs = _design_and_values(path, None, metric, scheduler, paired_vs)
    vals.attrs = attrs
    return vals


def _check_bootstrap(resamples, confidence):
    if int(resamples) != resamples or resamples < 0:
        raise ValueError(f"resamples = {resamples!r} (expected an integer >= 0)")
    if not (0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence = {confidence!r} (expected a level in (0, 1) such as 0.95)")


def _z(confidence: float) -> float:
    from scipy.stats import norm  # only the analyses need scipy

    return float(norm.ppf(0.5 + float(confidence) / 2.0))


def _saltelli_block(unit: np.ndarray, d: int) -> int:
    """Points per Saltelli sample (2D + 2 with second order, D + 2 without) whose structure the
    design matrix has (AB_j = A with column j of B, BA_j = B with column j of A), or 0."""
    points = unit.shape[0]
    eye = np.eye(d, dtype=bool)[None]
    for k in (2 * d + 2, d + 2):
        if points == 0 or points % k:
            continue
        u = unit.reshape(points // k, k, d)
        a, b = u[:, :1, :], u[:, k - 1:, :]
        ab = np.where(eye, b, a)  # (n, D, D): row j = A with column j from B
        ok = np.array_equal(u[:, 1:d + 1, :], ab)  # NaN never equal, as in the C++
        if ok and k == 2 * d + 2:
            ok = np.array_equal(u[:, d + 1:2 * d + 1, :], np.where(eye, a, b))
        if ok:
            return k
    return 0


def _sobol_terms(y: np.ndarray, d: int, k: int):
    """Per sample the terms whose sums give every index (y centred by its mean over all points):
    a, b, a^2, b^2, a b, b d_j, d_j^2, [ba_j ab_q for j < q]; d_j = f_ABj - f_A."""
    n = y.size // k
    yy = (y - y.mean()).reshape(n, k)
    a, b = yy[:, 0], yy[:, k - 1]
    ab = yy[:, 1:d + 1]
    dd = ab - a[:, None]
    cols = [a[:, None], b[:, None], (a * a)[:, None], (b * b)[:, None], (a * b)[:, None], b[:, None] * dd, dd * dd]
    if k == 2 * d + 2:
        ba = yy[:, d + 1:2 * d + 1]
        j, q = np.triu_indices(d, 1)
        cols.append(ba[:, j] * ab[:, q])
    return np.concatenate(cols, axis=1)


def _sobol_from_sums(s: np.ndarray, n: int, d: int):
    """Indices from sums over n samples: s is (R, terms); returns S1 (R, D), ST (R, D),
    S2 (R, pairs), V (R,). A resample of zero variance gives 0 for every index."""
    mean = (s[:, 0] + s[:, 1]) / n / 2.0
    var = (s[:, 2] + s[:, 3]) / n / 2.0 - mean * mean
    pos = var > 0
    scale = np.where(pos, 1.0 / (n * np.where(pos, var, 1.0)), 0.0)[:, None]
    s1 = s[:, 5:5 + d] * scale
    st = s[:, 5 + d:5 + 2 * d] * scale / 2.0
    j, q = np.triu_indices(d, 1)
    s2 = (s[:, 5 + 2 * d:] - s[:, 4:5]) * scale - s1[:, j] - s1[:, q] if s.shape[1] > 5 + 2 * d \
        else np.zeros((s.shape[0], 0))
    return s1, st, s2, np.where(pos, var, 0.0)


def _conf(boot: np.ndarray, resamples: int, z: float) -> np.ndarray:
    if resamples < 2:
        return np.full(boot.shape[1], np.nan)
    return z * boot.std(axis=0, ddof=1)


def _batches(resamples: int, per_resample: int):
    """Batch sizes of at most ~8M elements each (bounded memory for any N)."""
    size = max(1, min(resamples, 8_000_000 // max(per_resample, 1)))
    done = 0
    while done < resamples:
        b = min(size, resamples - done)
        yield b
        done += b


def sobol_indices(path: str, metric: str = "avg_jct_s", scheduler=None, paired_vs=None, resamples: int = 1000,
                  confidence: float = 0.95, seed: int = 1) -> pd.DataFrame:
    """First-order and total Sobol' indices of a ``design = "sobol"`` result file.

    Estimators as SALib's sobol.analyze and ``geopipe analyze sobol`` (y of design_values(),
    centred by its mean over all points; V = population variance of [f(A); f(B)]):
    S1_j = mean(f_B (f_ABj - f_A)) / V, ST_j = mean((f_A - f_ABj)^2) / (2 V),
    S2_jk = mean(f_BAj f_ABk - f_A f_B) / V - S1_j - S1_k. The layout (with or without second
    order) is recognised from /design. Returns a frame indexed by ``factor`` with columns S1,
    S1_conf, ST, ST_conf; the second-order table is ``df.attrs["S2"]``: a frame with columns
    factor_a, factor_b, S2, S2_conf, one row per pair a < b in factor order (no rows without
    second order). ``*_conf`` = norm.ppf(0.5 + confidence / 2) * sd (ddof 1) of the estimates
    over ``resamples`` bootstrap resamples of the N samples (numpy.random.default_rng(seed);
    the CLI draws from another generator: its CIs agree statistically, the estimates exactly);
    NaN with resamples < 2. Other attrs: the CLI JSON's keys (analysis, file, metric,
    scheduler, paired_vs, quantity, points, resamples, confidence, samples, second_order,
    variance, seed_noise) plus design and factors. ValueError as design_values(), and for a
    file of another design or a /design that is not a Saltelli layout.
    """
    _check_bootstrap(resamples, confidence)
    unit, y, _, attrs = _design_and_values(path, "sobol", metric, scheduler, paired_vs)
    factors = attrs["factors"]
    d = len(factors)
    if d == 0:
        raise ValueError(f"{path}: /design has no factor column")
    k = _saltelli_block(unit, d)
    if k == 0:
        raise ValueError(f"{path}: /design is not a Saltelli design of {d} factors (expected blocks of "
                         "2D + 2 or D + 2 points: A, AB_j, [BA_j], B)")
    n = y.size // k
    if n < 2:
        raise ValueError(f"{path}: {n} Saltelli sample(s) of {k} points (expected at least 2)")
    terms = _sobol_terms(y, d, k)
    s1, st, s2, var = _sobol_from_sums(terms.sum(axis=0)[None, :], n, d)
    resamples = int(resamples)
    boot = []
    if resamples > 0:
        rng = np.random.default_rng(seed)
        for b in _batches(resamples, n):
            idx = rng.integers(0, n, size=(b, n))
            w = np.bincount((idx + (np.arange(b) * n)[:, None]).ravel(), minlength=b * n).reshape(b, n)
            bs1, bst, bs2, _ = _sobol_from_sums(w.astype(float) @ terms, n, d)
            boot.append(np.concatenate([bs1, bst, bs2], axis=1))
    boot = np.concatenate(boot) if boot else np.zeros((0, 2 * d + s2.shape[1]))
    conf = _conf(boot, resamples, _z(confidence))
    df = pd.DataFrame({"S1": s1[0], "S1_conf": conf[:d], "ST": st[0], "ST_conf": conf[d:2 * d]},
                      index=pd.Index(factors, name="factor"))
    j, q = np.triu_indices(d, 1) if k == 2 * d + 2 else (np.zeros(0, int), np.zeros(0, int))
    s2df = pd.DataFrame({"factor_a": [factors[i] for i in j], "factor_b": [factors[i] for i in q],
                         "S2": s2[0] if s2.shape[1] else np.zeros(0), "S2_conf": conf[2 * d:]})
    df.attrs = dict(analysis="sobol", **attrs, resamples=resamples, confidence=float(confidence),
                    samples=int(n), second_order=k == 2 * d + 2, variance=float(var[0]), S2=s2df)
    return df


def morris_indices(path: str, metric: str = "avg_jct_s", scheduler=None, paired_vs=None, resamples: int = 1000,
                   confidence: float = 0.95, seed: int = 1) -> pd.DataFrame:
    """Morris elementary effects of a ``design = "morris"`` result file.

    The design is r trajectories of D + 1 consecutive points; each step changes exactly one
    factor, each factor once per trajectory; EE = (y_next - y_prev) / (u_next - u_prev) of the
    changed factor (u from /design, y from design_values()). Returns a frame indexed by
    ``factor`` with mu (mean EE), mu_star (mean |EE|), sigma (sd of EE, ddof 1; NaN with one
    trajectory) and mu_star_conf (norm.ppf(0.5 + confidence / 2) * sd of mu_star over
    ``resamples`` bootstrap resamples of the trajectories, numpy.random.default_rng(seed); NaN
    with resamples < 2 or one trajectory). attrs: the CLI JSON's keys (analysis, file, metric,
    scheduler, paired_vs, quantity, points, resamples, confidence, trajectories, seed_noise)
    plus design and factors. ValueError as design_values(), for a file of another design, and
    for a step that changes no factor, several, or one already changed in its trajectory.
    """
    _check_bootstrap(resamples, confidence)
    unit, y, _, attrs = _design_and_values(path, "morris", metric, scheduler, paired_vs)
    factors = attrs["factors"]
    d, points = len(factors), y.size
    if d == 0 or points == 0 or points % (d + 1):
        raise ValueError(f"{path}: {points} points of {d} factors is not a Morris design "
                         f"(expected r trajectories of D + 1 = {d + 1} points)")
    if not np.isfinite(unit).all():
        p, j = np.argwhere(~np.isfinite(unit))[0]
        raise ValueError(f"{path}: /design coordinate of point {p}, factor {factors[j]} is not finite")
    r = points // (d + 1)
    u = unit.reshape(r, d + 1, d)
    changed = u[:, 1:, :] != u[:, :-1, :]  # (trajectory, step, factor)
    count = changed.sum(axis=2)
    if (count != 1).any():
        t, s = np.argwhere(count != 1)[0]
        what = "no factor" if count[t, s] == 0 else f"{count[t, s]} factors"
        raise ValueError(f"{path}: Morris trajectory {t}, step {s} (points {t * (d + 1) + s} -> "
                         f"{t * (d + 1) + s + 1}) changes {what} (expected exactly one)")
    moved = changed.argmax(axis=2)  # (r, D): the factor of each step
    if not (np.sort(moved, axis=1) == np.arange(d)).all():
        t = int(np.flatnonzero(~(np.sort(moved, axis=1) == np.arange(d)).all(axis=1))[0])
        raise ValueError(f"{path}: Morris trajectory {t} changes a factor twice (each factor changes once "
                         "per trajectory)")
    tt = np.arange(r)[:, None]
    ss = np.arange(d)[None, :]
    du = u[tt, ss + 1, moved] - u[tt, ss, moved]
    yy = y.reshape(r, d + 1)
    ee = np.empty((r, d))
    ee[tt, moved] = (yy[:, 1:] - yy[:, :-1]) / du  # ee[t, j]: factor j's effect in trajectory t
    abs_ee = np.abs(ee)
    sigma = ee.std(axis=0, ddof=1) if r > 1 else np.full(d, np.nan)
    resamples = int(resamples)
    conf = np.full(d, np.nan)
    if resamples > 1 and r > 1:
        rng = np.random.default_rng(seed)
        boot = [abs_ee[rng.integers(0, r, size=(b, r))].mean(axis=1) for b in _batches(resamples, r * d)]
        conf = _conf(np.concatenate(boot), resamples, _z(confidence))
    df = pd.DataFrame({"mu": ee.mean(axis=0), "mu_star": abs_ee.mean(axis=0), "sigma": sigma, "mu_star_conf": conf},
                      index=pd.Index(factors, name="factor"))
    df.attrs = dict(analysis="morris", **attrs, resamples=resamples, confidence=float(confidence),
                    trajectories=int(r))
    return df


def oat_effects(path: str, metric: str = "avg_jct_s", scheduler=None, paired_vs=None) -> pd.DataFrame:
    """One-at-a-time ranges of a ``design = "oat"`` result file.

    Point 0 is the base (every /design coordinate NaN), every other point moves exactly one
    factor (its one non-NaN coordinate). Returns a frame indexed by ``factor`` with levels (the
    points that move it, the base not counted), y_min, y_max (over those points and the base)
    and range = y_max - y_min; a factor without a point has levels 0 and y_min = y_max = the
    base's y. attrs: the CLI JSON's keys (analysis, file, metric, scheduler, paired_vs,
    quantity, points, base_value = y at the base, seed_noise) plus design and factors.
    ValueError as design_values(), for a file of another design, a base with a coordinate, or a
    point that moves no factor or several.
    """
    unit, y, _, attrs = _design_and_values(path, "oat", metric, scheduler, paired_vs)
    factors = attrs["factors"]
    d, points = len(factors), y.size
    if d == 0 or points == 0:
        raise ValueError(f"{path}: an OAT design needs a factor and the base point ({points} points, {d} factors)")
    if not np.isnan(unit[0]).all():
        raise ValueError(f"{path}: point 0 (the base) has a coordinate for factor "
                         f"{factors[int(np.flatnonzero(~np.isnan(unit[0]))[0])]} (expected NaN for every factor)")
    rest = unit[1:]
    has = ~np.isnan(rest)
    if np.isinf(rest).any():
        p, j = np.argwhere(np.isinf(rest))[0]
        raise ValueError(f"{path}: point {p + 1}, factor {factors[j]}: coordinate is not finite")
    count = has.sum(axis=1)
    if (count != 1).any():
        p = int(np.flatnonzero(count != 1)[0])
        raise ValueError(f"{path}: point {p + 1} moves {int(count[p])} factors (expected exactly one non-NaN "
                         "coordinate)")
    moved = has.argmax(axis=1)
    yr = y[1:]
    levels = np.bincount(moved, minlength=d)
    y_min = np.full(d, y[0])
    y_max = np.full(d, y[0])
    np.minimum.at(y_min, moved, yr)
    np.maximum.at(y_max, moved, yr)
    df = pd.DataFrame({"levels": levels.astype(np.int64), "y_min": y_min, "y_max": y_max, "range": y_max - y_min},
                      index=pd.Index(factors, name="factor"))
    df.attrs = dict(analysis="oat", **attrs, base_value=float(y[0]))
    return df
