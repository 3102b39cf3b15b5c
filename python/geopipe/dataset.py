"""A result file as an ``xarray.Dataset`` (``to_xarray``)."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd

from . import metrics as _metrics
from .results import _load, alias, axes

__all__ = ["to_xarray", "is_grid"]


def _unique_sorted(values: pd.Series) -> list:
    u = pd.unique(values)
    try:
        return sorted(u.tolist())
    except TypeError:  # mixed types: keep the order of appearance
        return u.tolist()


def is_grid(points: pd.DataFrame, params: list) -> bool:
    """Whether the points (one row per point, one column per parameter) are the full product of
    their parameters' distinct values, each combination exactly once, with no missing value."""
    if not params:
        return len(points) <= 1
    sub = points[params]
    if sub.isna().any().any() or (sub == "").any().any():
        return False
    size = math.prod(sub[c].nunique() for c in params)
    return size == len(sub) and not sub.duplicated().any()


def to_xarray(data, metrics=None):
    """A result file (a path, or a DataFrame from ``load``) as an ``xarray.Dataset``.

    Dimensions: for a grid sweep (the points are the product of the swept parameters' values,
    each combination once: ``[[axis]]``s without ``[[zip]]``s or extra ``[[point]]``s) one
    dimension per swept parameter, in sweep order, named by its dot-free alias
    (``network.bandwidth_scale`` -> ``network_bandwidth_scale``, so ``ds.sel(
    network_bandwidth_scale=2)`` works; the coordinate's attrs hold ``parameter``, the path),
    with the sorted distinct values as coordinates; otherwise (lhs, sobol, morris, oat, zips,
    explicit points, collections) one ``point`` dimension (the point index) with each
    parameter's values as a coordinate along it (named by its alias). Then ``scheduler`` (sweep
    order) and ``seed`` (int64, sorted). From a path, the coordinates cover every scenario of
    the file (failed or not yet run ones are NaN); from a DataFrame, its rows.

    One data variable per metric (``metrics``: a name or a list; default every metric of the
    file, in column order), float64, with attrs ``units`` (SI unit of the stored value, '' for
    counts and ratios), ``display_units`` (the unit the CLI shows: 'h' for the JCT seconds,
    ...) and ``long_name``. Dataset attrs: the file's root attributes (decoded) plus ``path``.
    ValueError for an unknown metric. Needs xarray.
    """
    import xarray as xr  # only this function needs xarray

    if isinstance(data, pd.DataFrame):
        df = data
        scen = df
    else:
        df, scen = _load(os.fspath(data))
    file_metrics = df.attrs.get("metrics") or [m for m in _metrics.metric_names() if m in df.columns]
    if metrics is None:
        names = list(file_metrics)
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in names if m not in df.columns or m not in file_metrics]
        if unknown:
            raise ValueError(f"unknown metric '{unknown[0]}' (expected one of: {', '.join(file_metrics)})")
    params = [c for c in axes(df) if c in scen.columns]
    points = scen.groupby("point", sort=True)[params].first() if params else \
        pd.DataFrame(index=pd.Index(sorted(pd.unique(scen["point"])), name="point"))
    seen = list(dict.fromkeys(scen["scheduler"].tolist()))
    order = [s for s in df.attrs.get("schedulers", []) if s in set(seen)]
    order += [s for s in seen if s not in set(order)]
    seeds = np.array(sorted(int(s) for s in pd.unique(scen["seed"])), dtype=np.int64)
    names_of = {c: alias(c) for c in params}

    coords = {}
    if is_grid(points, params):
        dims = [names_of[c] for c in params]
        values = [_unique_sorted(points[c]) for c in params]
        for c, d, v in zip(params, dims, values):
            coords[d] = xr.Variable(d, np.asarray(v), attrs=dict(parameter=c))
        idx = [pd.Index(v).get_indexer(df[c]) for c, v in zip(params, values)]
        shape = [len(v) for v in values]
    else:
        dims = ["point"]
        pidx = points.index.to_numpy(dtype=np.int64)
        coords["point"] = pidx
        for c in params:
            coords[names_of[c]] = xr.Variable("point", points[c].to_numpy(), attrs=dict(parameter=c))
        idx = [pd.Index(pidx).get_indexer(df["point"])]
        shape = [len(pidx)]
    coords["scheduler"] = np.asarray(order, dtype=object)
    coords["seed"] = seeds
    idx += [pd.Index(order).get_indexer(df["scheduler"]), pd.Index(seeds).get_indexer(df["seed"].astype(np.int64))]
    shape += [len(order), len(seeds)]
    dims = dims + ["scheduler", "seed"]
    keep = np.all([i >= 0 for i in idx], axis=0) if len(df) else np.zeros(0, bool)
    where = tuple(i[keep] for i in idx)

    data_vars = {}
    for m in names:
        arr = np.full(shape, np.nan)
        arr[where] = df[m].to_numpy(dtype=float)[keep]
        meta = next((x for x in _metrics.METRICS if x.name == m), None)
        attrs = dict(units=meta.unit if meta else "", display_units=_metrics.display_unit(m))
        if meta:
            attrs["long_name"] = meta.doc
        data_vars[m] = xr.Variable(dims, arr, attrs=attrs)
    root = {k: v for k, v in df.attrs.items()
            if k not in ("errors", "error_ids", "num_rows", "aliases", "metrics")}
    return xr.Dataset(data_vars, coords=coords, attrs=root)
