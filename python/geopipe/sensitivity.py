"""Sensitivity analysis of a sampling-design sweep's result file (the estimators of ``geopipe
analyze``, same names and columns as its JSON and as SALib; numpy, and scipy for the normal
quantile).

design(path)
    The ``/design`` table: point, then each factor's unit coordinate (NaN: not set);
    ``attrs["design"]`` = "sobol", "morris", "oat", "lhs", ...
design_values(path, metric=None, scheduler=None, paired_vs=None)
    Per point: y (mean over its seeds of the metric, default avg_jct_s, or ``value`` for a
    file of a [test_function] (``attrs["evaluator"]``), of ``scheduler``, default the file's
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
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from ._h5 import attr_list as _attr_list
from ._h5 import decode as _decode
from ._h5 import evaluator as _evaluator
from ._h5 import open_file as _open
from . import metrics as _metrics
from .results import UnfinishedJobsError

__all__ = ["design", "design_values", "sobol_indices", "morris_indices", "oat_effects"]

_DESIGN_HINT = ('expected a file of a design = "sobol", "morris", "oat" or "lhs" sweep')


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


def _check_complete(f, path, points, sc, sched, paired_vs, schedulers, per_seed):
    """As `geopipe analyze` (src/report/analyze.cpp, check_complete): the design covers the
    sweep's points, no scenario of the analysed scheduler(s) failed, and with fixed seeds every
    point has every seed. ValueError saying what is missing otherwise."""
    scen_points = int(sc["point"].max()) + 1 if len(sc) else 0
    if scen_points != points:
        raise ValueError(f"{path}: damaged result file: /design has {points} rows but /scenarios has {scen_points} "
                         "points (expected one design row per point: re-run the sweep into a new file, or use a copy)")
    who = f"{sched} and {paired_vs}" if paired_vs else sched
    wanted = [s.encode("utf-8") for s in (sched, paired_vs) if s]
    if "errors" in f and len(f["errors"]):
        err = f["errors"][:]
        err = err[err["id"] >= 0]
        pos = np.searchsorted(sc["id"], err["id"])
        pos = np.minimum(pos, max(len(sc) - 1, 0))
        ok = sc["id"][pos] == err["id"] if len(sc) else np.zeros(0, bool)
        rows = sc[pos[ok]]
        names = np.char.rstrip(rows["scheduler"].astype(bytes), b"\x00")
        mask = np.isin(names, wanted)
        if mask.any():
            k = int(np.flatnonzero(mask)[0])
            msg = err["message"][ok][k]
            msg = (msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)).rstrip("\x00")
            n = int(mask.sum())
            raise ValueError(f"{path}: {n} scenario{'' if n == 1 else 's'} of {who} failed (rows in /errors; the "
                             f"first: point {int(rows['point'][k])}, seed {int(rows['seed'][k])}, "
                             f"{names[k].decode()}: {msg[:300]}): the indices need every scenario's result, and a "
                             "failed scenario fails again when rerun (expected a sweep whose scenarios all ran: remove "
                             "the cause of the failure)")
    import tomllib

    text = _decode(f.attrs.get("sweep_toml", ""))
    try:
        replication = isinstance(tomllib.loads(text).get("sweep", {}).get("seeds"), dict)
    except tomllib.TOMLDecodeError:
        replication = False
    total = int(_decode(f.attrs.get("total_scenarios", len(sc))))
    cells = points * len(schedulers)
    if replication or cells == 0 or total % cells:
        return
    seeds = total // cells
    missing, first = 0, None
    for name in [s for s in (sched, paired_vs) if s]:
        n = np.bincount(per_seed(name)["point"].to_numpy(dtype=np.int64), minlength=points)[:points]
        short = np.maximum(seeds - n, 0)
        missing += int(short.sum())
        if short.any():
            p = int(np.flatnonzero(short)[0])
            first = p if first is None else min(first, p)
    if missing:
        complete = int(_decode(f.attrs.get("complete", 1)))
        shard = _decode(f.attrs.get("shard", ""))
        hint = (f": it is shard {shard} of the sweep: geopipe merge the shards first" if shard
                else "" if complete else ": finish it with geopipe sweep --resume")
        m = f["metrics"][:]
        held = int(((m["id"] >= 0) & (m["status"] == 1)).sum())
        held += int((f["errors"][:]["id"] >= 0).sum()) if "errors" in f else 0
        raise ValueError(f"{path}: {missing} scenario{' of ' if missing == 1 else 's of '}{who} "
                         f"{'has' if missing == 1 else 'have'} no result (the first at point {first}; the file holds "
                         f"results of {held} of {total} scenarios{hint}"
                         "): the indices need every seed of every point")


def _values(f, path: str, points: int, metric: str, scheduler, paired_vs, allow_unfinished: bool = False):
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
    evaluator = _evaluator(f.attrs)
    if metric is None:  # the default: a simulation's JCT, a test function's value
        metric = "value" if evaluator == "test_function" else "avg_jct_s"
    metric_names = [n for n in met_ds.dtype.names if n not in ("id", "status")]
    stored = metric
    if metric == "value" and "value" not in metric_names:  # before format 6
        stored = "avg_jct_s" if evaluator == "test_function" else None
        metric_names.append("value")
    if metric not in metric_names:
        raise ValueError(f"metric: unknown metric '{metric}' (expected one of "
                         + ", ".join(f"'{m}'" for m in metric_names) + ")")
    if metric in _metrics.metric_names() and _metrics.metric_source(metric) != evaluator:
        raise ValueError(f"metric: '{metric}' is a simulation's metric, but {path} holds a test function's values "
                         "(expected metric='value', the default)" if evaluator == "test_function" else
                         f"metric: '{metric}' is a test function's metric, but {path} holds a simulation's results "
                         "(expected a simulation's metric, e.g. 'avg_jct_s', the default)")
    if paired_vs:
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
    value = me[stored].astype(float) if stored else np.zeros(len(me))
    inside = (point >= 0) & (point < points)
    unfinished = 0
    if "jobs_unfinished" in me.dtype.names and _metrics.leaves_out_unfinished_jobs(metric):
        used = inside & np.isin(sname, [s.encode("utf-8") for s in (sched, paired_vs) if s])
        bad = np.flatnonzero(used & (me["jobs_unfinished"] > 0))
        unfinished = int(bad.size)
        if unfinished:
            text = (f"{path}: {unfinished} scenario{'' if unfinished == 1 else 's'} of {sched}{' and ' + paired_vs if paired_vs else ''} left jobs "
                    f"unfinished (the first: point {int(point[bad[0]])}, seed {int(seed[bad[0]])}, "
                    f"{sname[bad[0]].decode()}), and {metric} leaves those jobs out: the indices would describe the "
                    "survivors (results of an older model version; since model version 2 such a run fails instead: "
                    "rerun the sweep with this geopipe, or pass allow_unfinished=True to analyse them anyway, flagged)")
            if not allow_unfinished:
                raise UnfinishedJobsError(text)
            warnings.warn(text, stacklevel=4)

    def per_seed(name):
        m = inside & (sname == name.encode("utf-8"))
        t = pd.DataFrame({"point": point[m], "seed": seed[m], "v": value[m]})
        return t.drop_duplicates(["point", "seed"], keep="last")

    _check_complete(f, path, points, sc, sched, paired_vs, schedulers, per_seed)
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
                 share=se_share * se_share / variance if variance > 0 else None)
    out = pd.DataFrame({"point": np.arange(points, dtype=np.int64), "y": y, "n_seeds": n.astype(np.int64),
                        "se": se})
    attrs = dict(file=str(path), metric=metric, scheduler=sched, paired_vs=paired_vs or None,
                 quantity=quantity, points=int(points), seed_noise=noise, unfinished_scenarios=unfinished)
    return out, attrs


def _design_and_values(path, method, metric, scheduler, paired_vs, allow_unfinished=False):
    with _open(path) as f:
        d, factors, name = _read_design(f, path)
        if method is not None and name != method:
            funcs = dict(sobol="sobol_indices()", morris="morris_indices()", oat="oat_effects()")
            hint = f" (use {funcs[name]}, or: geopipe analyze {name} {path})" if name in funcs else ""
            raise ValueError(f"{path}: analysis '{method}' needs the result file of a design = \"{method}\" "
                             f"sweep, but this file's sweep has design = \"{name}\"{hint}")
        vals, attrs = _values(f, path, len(d), metric, scheduler, paired_vs, allow_unfinished)
    y = vals["y"].to_numpy()
    if method is not None and y.size and (y == y[0]).all():
        raise ValueError(f"{path}: {attrs['quantity']} is {y[0]:.6g} at every one of the {y.size} points: no factor "
                         "moves it, so there are no indices (each would divide by Var(y) = 0)")
    unit = np.column_stack([d[c].astype(float) for c in factors]) if factors else np.zeros((len(d), 0))
    attrs.update(design=name, factors=factors)
    return unit, vals["y"].to_numpy(), vals, attrs


def design_values(path: str, metric=None, scheduler=None, paired_vs=None,
                  allow_unfinished: bool = False) -> pd.DataFrame:
    """The value y of every design point, as ``geopipe analyze`` computes it.

    y = the mean over the point's seeds of ``metric`` (default: avg_jct_s, or ``value`` for a
    file of a [test_function]; a metric of the other kind is refused) of ``scheduler``
    (default: the file's first scheduler), or with ``paired_vs`` = Q the mean over the seeds that have both of
    ``metric_P / metric_Q - 1`` (paired by seed). Columns: point (0 .. points-1, the /design
    rows), y, n_seeds, se (standard error of the mean over the seeds, NaN with one seed).
    ``df.attrs``: file, metric, scheduler (resolved), paired_vs, quantity, points, design,
    factors and seed_noise, as in the CLI's JSON: seeds_min, seeds_max, rms_standard_error (root
    mean square of se; NaN unless every point has two seeds), point_standard_error (the same
    without the part common to all points: with the same seeds at every point, from the
    residuals of the additive model point + seed; NaN otherwise), variance (population variance
    of y over the points) and share (point_standard_error^2, or rms_standard_error^2 without
    it, / variance).
    ValueError: no /design, an unknown scheduler or metric, paired_vs = scheduler, a point
    without results (an incomplete file), a non-finite y; UnfinishedJobsError (a ValueError):
    a scenario used left jobs unfinished and the metric leaves them out (model version 1 files),
    unless ``allow_unfinished`` (then a warning, and ``attrs["unfinished_scenarios"]``), as in
    every analysis function here.
    """
    _, _, vals, attrs = _design_and_values(path, None, metric, scheduler, paired_vs, allow_unfinished)
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


def sobol_indices(path: str, metric=None, scheduler=None, paired_vs=None, resamples: int = 1000,
                  confidence: float = 0.95, seed: int = 1, allow_unfinished: bool = False) -> pd.DataFrame:
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
    unit, y, _, attrs = _design_and_values(path, "sobol", metric, scheduler, paired_vs, allow_unfinished)
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


def morris_indices(path: str, metric=None, scheduler=None, paired_vs=None, resamples: int = 1000,
                   confidence: float = 0.95, seed: int = 1, allow_unfinished: bool = False) -> pd.DataFrame:
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
    unit, y, _, attrs = _design_and_values(path, "morris", metric, scheduler, paired_vs, allow_unfinished)
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


def oat_effects(path: str, metric=None, scheduler=None, paired_vs=None,
                allow_unfinished: bool = False) -> pd.DataFrame:
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
    unit, y, _, attrs = _design_and_values(path, "oat", metric, scheduler, paired_vs, allow_unfinished)
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
