"""Load geopipe result files (HDF5) into pandas and compare schedulers.

``load(path)`` gives one row per finished scenario, ``load_jobs(path)`` one row per job (a
sweep run with ``--save-jobs``); ``summary``, ``paired_change`` and ``normalized`` compute
means with 95 % Student-t confidence intervals per group.

All relative changes are fractions (-0.25 = 25 % lower). Groups are given by ``by``: a column
name, a list of column names, or None (one group). NaN values in grouping columns form their
own group (explicit points that do not set an axis).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd

from . import _h5
from .stats import Quantile, mean_ci, t975

__all__ = [
    "load", "load_jobs", "axes", "alias", "scheduler_order", "point_labels", "model_size_b", "base_scenario",
    "summary", "paired_values", "paired_change", "normalized",
]


# --------------------------------------------------------------------------------------------
# Loading

def alias(column: str) -> str:
    """The dot-free name of a parameter column: every character that cannot appear in a Python
    identifier becomes '_' ('network.bandwidth_scale' -> 'network_bandwidth_scale',
    'cluster.region.us-east.gpus' -> 'cluster_region_us_east_gpus'), so that
    ``df.query("network_bandwidth_scale > 1")`` and ``df.network_bandwidth_scale`` work."""
    a = re.sub(r"[^0-9A-Za-z_]", "_", str(column))
    return "_" + a if a[:1].isdigit() else a


def _add_aliases(df: pd.DataFrame, params: list) -> dict:
    """Append a copy of each parameter column under its alias (skipped when the alias is the
    name itself, is already a column, or two parameters share it); returns {alias: column}."""
    taken = set(df.columns)
    wanted = {}
    for c in params:
        a = alias(c)
        if a != c:
            wanted.setdefault(a, []).append(c)
    out = {}
    for a, cols in wanted.items():
        if len(cols) == 1 and a not in taken:
            df[a] = df[cols[0]]
            out[a] = cols[0]
    return out


def _root_attrs(f) -> dict:
    attrs = {k: _h5.decode(v) for k, v in f.attrs.items()}
    for k in ("schedulers", "axes"):
        if k in attrs and isinstance(attrs[k], str):
            attrs[k] = [attrs[k]]
    return attrs


def _int_columns(df: pd.DataFrame, cols) -> None:
    for c in cols:
        if c in df and df[c].dtype != np.int64:
            if df[c].dtype == np.uint64 and len(df) and df[c].max() >= 2**63:
                continue  # a seed beyond int64 (never written by geopipe) stays uint64
            df[c] = df[c].astype(np.int64)


def _read(path, jobs: bool = False):
    """(scenarios, valid metrics rows, errors ids, attrs[, jobs]) of a result file."""
    with _h5.open_file(path) as f:
        for t in ("scenarios", "metrics"):
            if t not in f:
                raise ValueError(f"{path}: not a geopipe result file (no /{t} table)")
        if jobs and "jobs" not in f:
            raise ValueError(f"{path}: has no /jobs table: the sweep was run without --save-jobs "
                             "(run it with `geopipe sweep SWEEP.toml -o OUT.h5 --save-jobs` for one row per job)")
        attrs = _root_attrs(f)
        scen = _h5.frame(f["scenarios"][:])
        met = _h5.frame(f["metrics"][:])
        err = f["errors"][:] if "errors" in f else np.zeros(0, dtype=[("id", "<i8")])
        job = _h5.frame(f["jobs"][:]) if jobs else None
    met = met[(met["id"] >= 0) & (met["status"] == 1)].drop_duplicates("id")
    met = _format5_columns(met, "total_cost_usd")
    attrs["evaluator"] = _h5.evaluator(attrs)
    met = _format6_columns(met, attrs["evaluator"])
    met = _format9_columns(_format8_columns(_format7_columns(met), attrs["evaluator"]), attrs["evaluator"], path)
    met = _format10_columns(met, attrs["evaluator"], path)
    if job is not None:
        job = _format9_columns(_format8_columns(_format7_columns(_format5_columns(job, "cost_usd")), attrs["evaluator"]),
                               attrs["evaluator"], path)
    err_ids = sorted({int(i) for i in np.asarray(err["id"]) if int(i) >= 0})
    return scen, met, err_ids, attrs, job


class UnfinishedJobsError(ValueError):
    """A result file whose scenarios left jobs unfinished (a file of model version 1): their
    JCT, cost and other metrics leave those jobs out (docs/analysis.md, "Unfinished jobs")."""


def _check_unfinished(df: pd.DataFrame, path, allow: bool, what: str) -> int:
    """Count the rows of ``df`` with jobs_unfinished > 0; raise UnfinishedJobsError naming the
    first unless ``allow`` (then warn). Returns the count."""
    if "jobs_unfinished" not in df.columns:
        return 0
    bad = df[df["jobs_unfinished"].to_numpy() > 0]
    if bad.empty:
        return 0
    first = bad.iloc[0]
    text = (f"{path}: {len(bad)} of its {len(df)} scenarios left jobs unfinished (the first: id {int(first['id'])}, "
            f"{first['scheduler']}, point {int(first['point'])}, seed {int(first['seed'])}: "
            f"{int(first['jobs_unfinished'])} of {int(first['jobs_total'])} jobs), so {what} leave those jobs out "
            f"(results of model version {df.attrs.get('model_version', '?')}; since version 2 such a run fails "
            "instead: rerun the sweep with this geopipe, or pass allow_unfinished=True to use them anyway, flagged)")
    if not allow:
        raise UnfinishedJobsError(text)
    warnings.warn(text, stacklevel=3)
    return len(bad)


def _format5_columns(df: pd.DataFrame, total: str) -> pd.DataFrame:
    """A table of a file of format 3 or 4 with the columns format 5 added, filled with what they
    are for results written before egress and layer partitions existed (docs/hdf5-format.md,
    "Format versions"): electricity_cost_usd = the total cost, egress_cost_usd = 0, for /metrics
    sched_partition_misses = 0 (every split was even), and for /jobs layers = ""."""
    if "egress_cost_usd" in df.columns or total not in df.columns:
        return df
    df = df.copy()
    at = df.columns.get_loc(total) + 1
    df.insert(at, "electricity_cost_usd", df[total].to_numpy())
    df.insert(at + 1, "egress_cost_usd", 0.0)
    if "sched_truncated_searches" in df.columns and "sched_partition_misses" not in df.columns:
        df.insert(df.columns.get_loc("sched_truncated_searches") + 1, "sched_partition_misses", 0.0)
    if total == "cost_usd" and "regions" in df.columns and "layers" not in df.columns:
        df.insert(df.columns.get_loc("regions") + 1, "layers", "")
    return df


def _format6_columns(df: pd.DataFrame, evaluator: str) -> pd.DataFrame:
    """/metrics of a file before format 6 with its ``value`` column: a test function's values
    were stored as avg_jct_s (moved to ``value``, avg_jct_s = 0, as format 6 writes them); a
    simulation has none (0, as format 6 writes it) (docs/hdf5-format.md, "Format versions")."""
    if "value" in df.columns:
        return df
    df = df.copy()
    if evaluator == "test_function" and "avg_jct_s" in df.columns:
        df["value"] = df["avg_jct_s"].to_numpy(dtype=float)
        df["avg_jct_s"] = 0.0
    else:
        df["value"] = 0.0
    return df


def _format7_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A table of a file before format 7 with the columns data parallelism added, filled with
    what they are for results of jobs that were one pipeline each (docs/hdf5-format.md, "Format
    versions"): /metrics sync_bytes = sync_fraction = 0 (after cross_region_bytes and
    stall_fraction), /jobs data_parallel = 1 (after gpus_per_stage) and sync_bytes = 0 (after
    cross_region_bytes)."""
    if "sync_bytes" in df.columns or "cross_region_bytes" not in df.columns:
        return df
    df = df.copy()
    df.insert(df.columns.get_loc("cross_region_bytes") + 1, "sync_bytes", 0.0)
    if "stall_fraction" in df.columns:
        df.insert(df.columns.get_loc("stall_fraction") + 1, "sync_fraction", 0.0)
    if "gpus_per_stage" in df.columns and "data_parallel" not in df.columns:
        df.insert(df.columns.get_loc("gpus_per_stage") + 1, "data_parallel", np.int32(1))
    return df


def _format8_columns(df: pd.DataFrame, evaluator: str) -> pd.DataFrame:
    """A table of a file before format 8 with the columns of failures and checkpoints added,
    filled with what they are for runs without them (docs/hdf5-format.md, "Format versions"):
    /metrics failures = preemptions = restarts = 0, lost_gpu_hours = checkpoint_gpu_hours = 0,
    goodput = 1 for a simulation (0 for a test function), after sync_fraction; /jobs failures =
    preemptions = restarts = 0, lost_gpu_hours = checkpoint_gpu_hours = 0, after sync_bytes."""
    if "failures" in df.columns or "sync_bytes" not in df.columns:
        return df
    df = df.copy()
    if "sync_fraction" in df.columns:  # /metrics
        at = df.columns.get_loc("sync_fraction") + 1
        cols = (("failures", np.int64(0)), ("preemptions", np.int64(0)), ("restarts", np.int64(0)),
                ("lost_gpu_hours", 0.0), ("checkpoint_gpu_hours", 0.0),
                ("goodput", 1.0 if evaluator == "simulation" else 0.0))
    else:  # /jobs
        at = df.columns.get_loc("sync_bytes") + 1
        cols = (("failures", np.int32(0)), ("preemptions", np.int32(0)), ("restarts", np.int32(0)), ("lost_gpu_hours", 0.0),
                ("checkpoint_gpu_hours", 0.0))
    for k, (name, value) in enumerate(cols):
        df.insert(at + k, name, value)
    return df


# The columns format 9 added (fairness): no older file records them (docs/hdf5-format.md).
FORMAT9_METRICS = ("p99_queue_delay_s", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction", "jain_fairness")
FORMAT9_JOB_COLUMNS = ("isolated_jct_s", "ftf_rho")


def _format9_columns(df: pd.DataFrame, evaluator: str, path) -> pd.DataFrame:
    """A table of a file before format 9 with the fairness columns added, **not recorded**:
    NaN in a simulation's rows (no older file has what they need), 0 in a test function's
    (docs/hdf5-format.md, "Format versions"). /metrics p99_queue_delay_s after
    avg_queue_delay_s, avg_ftf_rho, max_ftf_rho, unfair_fraction, jain_fairness after goodput;
    /jobs isolated_jct_s, ftf_rho last. Warns once when it adds NaN columns."""
    if "goodput" in df.columns and "avg_ftf_rho" in df.columns:
        return df
    if "ftf_rho" in df.columns or ("goodput" not in df.columns and "checkpoint_gpu_hours" not in df.columns):
        return df
    df = df.copy()
    fill = np.nan if evaluator == "simulation" else 0.0
    if "goodput" in df.columns:  # /metrics
        df.insert(df.columns.get_loc("avg_queue_delay_s") + 1, "p99_queue_delay_s", fill)
        at = df.columns.get_loc("goodput") + 1
        for k, name in enumerate(FORMAT9_METRICS[1:]):
            df.insert(at + k, name, fill)
    else:  # /jobs
        for name in FORMAT9_JOB_COLUMNS:
            df[name] = fill
    if evaluator == "simulation" and len(df):
        warnings.warn(f"{path}: written before HDF5 format 9: its fairness columns "
                      f"({', '.join(FORMAT9_METRICS if 'goodput' in df.columns else FORMAT9_JOB_COLUMNS)}) are not "
                      "recorded (NaN); rerun the sweep with this geopipe to have them", stacklevel=4)
    return df


# The column format 10 added (the lower bound on the mean JCT): no older file records it.
FORMAT10_METRICS = ("jct_lower_bound_s",)


def _format10_columns(df: pd.DataFrame, evaluator: str, path) -> pd.DataFrame:
    """/metrics of a file before format 10 with jct_lower_bound_s added after jain_fairness,
    **not recorded**: NaN in a simulation's rows (it needs every job's T_alone), 0 in a test
    function's (docs/hdf5-format.md, "Format versions"). Warns when it adds NaN."""
    if "jct_lower_bound_s" in df.columns or "jain_fairness" not in df.columns:
        return df
    df = df.copy()
    fill = np.nan if evaluator == "simulation" else 0.0
    df.insert(df.columns.get_loc("jain_fairness") + 1, "jct_lower_bound_s", fill)
    if evaluator == "simulation" and len(df):
        warnings.warn(f"{path}: written before HDF5 format 10: its column jct_lower_bound_s is not recorded (NaN); "
                      "rerun the sweep with this geopipe to have it", stacklevel=4)
    return df


def load(path, allow_unfinished: bool = False) -> pd.DataFrame:
    """Load a geopipe result file: one row per finished scenario, sorted by id.

    Columns: id, point, seed (int64), scheduler (str), key, point_key, the parameter columns
    (one per swept parameter, named by its path, e.g. ``network.bandwidth_scale``; text values
    as str), then status and every metric of ``/metrics`` (float64, SI units, the unit in the
    name), then each parameter column again under a name without dots (``alias``:
    ``network_bandwidth_scale``), so that ``df.query("network_bandwidth_scale > 1")`` works;
    ``df.attrs["aliases"]`` maps each alias to its column. Rows of ``/metrics`` that are fill
    rows (id < 0) or failed (status != 1) are dropped, as are duplicate ids. ``df.attrs`` holds
    the file's root attributes decoded to Python values (sweep_name, sweep_toml, base_toml,
    sweep_hash, geopipe_version, created_utc, layout, schedulers, axes, complete, design, ...)
    plus ``path``, ``errors`` (valid rows of ``/errors``), ``error_ids``, ``num_rows``,
    ``metrics`` (the metric columns, in file order), ``aliases`` and ``unfinished_scenarios``.
    Raises FileNotFoundError for a missing file, ValueError for an HDF5 file that is not a
    result file, and UnfinishedJobsError (a ValueError) for a file where a scenario left jobs
    unfinished (possible only in files of model version 1: every metric but the job counts
    leaves those jobs out), unless ``allow_unfinished``, which warns and counts them in
    ``attrs["unfinished_scenarios"]``.
    """
    return _load(path, allow_unfinished)[0]


def _load(path, allow_unfinished: bool = False):
    """(load(path), the /scenarios frame with every scenario of the file, finished or not)."""
    scen, met, err_ids, attrs, _ = _read(path)
    df = scen.merge(met, on="id", how="inner").sort_values("id", kind="stable").reset_index(drop=True)
    _int_columns(df, ("id", "point", "seed"))
    _int_columns(scen, ("id", "point", "seed"))
    attrs.update(path=str(path), errors=len(err_ids), error_ids=err_ids, num_rows=len(df),
                 metrics=[c for c in met.columns if c not in ("id", "status")])
    params = [c for c in attrs.get("axes", []) if c in df.columns]
    attrs["aliases"] = _add_aliases(df, params)
    df.attrs = attrs
    df.attrs["unfinished_scenarios"] = _check_unfinished(df, path, allow_unfinished, "their JCT, cost and other metrics")
    return df, scen


def load_jobs(path) -> pd.DataFrame:
    """The ``/jobs`` table of a result file written with ``geopipe sweep --save-jobs``: one row
    per job of each finished scenario, sorted by (scenario_id, job_id).

    Columns: scenario_id, then its scenario's point, seed (int64), scheduler (str) and
    parameter columns, then the file's job columns (job_id, model, stages, gpus_per_stage,
    data_parallel, regions, layers, arrival_s, start_s, finish_s, iterations, mean_iteration_s,
    first_iteration_s, energy_j, cost_usd, electricity_cost_usd, egress_cost_usd, carbon_g,
    cross_region_bytes, sync_bytes; text decoded to str; files of format 3-6 get the columns of
    the formats after theirs filled), then the dot-free
    aliases of the parameter columns (as ``load``). Only jobs of scenarios that have a valid
    ``/metrics`` row are kept (an interrupted file may hold others), so each scenario has
    ``jobs_total`` rows. ``df.attrs`` as ``load``'s. ValueError for a file without ``/jobs``.
    """
    scen, met, err_ids, attrs, job = _read(path, jobs=True)
    job = job[job["scenario_id"] >= 0].drop_duplicates(["scenario_id", "job_id"])
    job = job[job["scenario_id"].isin(met["id"])]
    params = [c for c in attrs.get("axes", []) if c in scen.columns]
    left = scen[["id", "point", "seed", "scheduler"] + params].rename(columns={"id": "scenario_id"})
    df = left.merge(job, on="scenario_id", how="inner")
    df = df.sort_values(["scenario_id", "job_id"], kind="stable").reset_index(drop=True)
    _int_columns(df, ("scenario_id", "point", "seed"))
    attrs.update(path=str(path), errors=len(err_ids), error_ids=err_ids, num_rows=len(df))
    attrs["aliases"] = _add_aliases(df, params)
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


def summary(df: pd.DataFrame, metric: str, by=None, quantile: Quantile = None) -> pd.DataFrame:
    """Per group (``by``) and scheduler: n, mean, ci (95 % half width), lo, hi of ``metric``.

    The statistics are over the group's rows (its (point, seed) runs), non-finite values
    excluded; ``ci`` = quantile(n - 1) * sd / sqrt(n), quantile = ``t975`` (scipy) by default.
    Schedulers in sweep order.
    """
    by = _by_list(by)
    order = scheduler_order(df)
    rows = []
    for key, sub in _groups(df, by):
        for s in order:
            vals = sub.loc[sub["scheduler"] == s, metric]
            if vals.empty:
                continue
            mc = mean_ci(vals.to_numpy(), quantile)
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


def _ratio_of_means(t: np.ndarray, b: np.ndarray, q) -> tuple:
    """(mean(t) / mean(b) - 1, its 95 % half width by the delta method, mean(t), mean(b)) over
    n paired values, as ``geopipe summarize`` computes them (src/report/summarize.cpp)."""
    n = t.size
    if n == 0:
        return math.nan, math.nan, math.nan, math.nan
    mt, mb = float(t.mean()), float(b.mean())
    if mb == 0:
        return math.nan, math.nan, mt, mb
    r = mt / mb
    # Delta method: R_hat - R ~ mean(d) with d_i = (t_i - R b_i) / mean(b), paired.
    return r - 1.0, mean_ci((t - r * b) / mb, q).ci, mt, mb


def paired_change(df: pd.DataFrame, metric: str, target: str, baseline: str, by=None,
                  quantile: Quantile = None) -> pd.DataFrame:
    """Relative change of ``target`` vs ``baseline`` in ``metric``, paired by (point, seed).

    Sign convention (the one of every geopipe output): **change = target / baseline - 1**, a
    fraction: negative means the target scheduler's value is lower than the baseline's (-0.319
    = 31.9 % lower), positive higher. Both schedulers of a pair saw the same job trace. Per group
    (``by``), over the ``n`` valid pairs (both values finite, baseline != 0), two estimates, as
    ``geopipe summarize`` gives them:

    * the **mean of the ratios**: ``mean``, ``ci``, ``lo``, ``hi`` = the mean over the pairs of
      ``target_i / baseline_i - 1``, its 95 % Student-t half width
      (``quantile(n - 1) * sd / sqrt(n)``) and bounds (every pair weighs the same); the same
      two numbers also as ``change_mean_of_ratios`` and ``change_mean_of_ratios_ci`` (the
      names of summarize's CSV/JSON);
    * the **ratio of the means**: ``change_ratio_of_means`` = ``mean(target) / mean(baseline)
      - 1`` over the same pairs (large values weigh more; one pair with a tiny baseline cannot
      dominate it), ``change_ratio_of_means_ci`` its 95 % half width by the delta method (no
      resampling, deterministic): with R = mean(target) / mean(baseline) and
      d_i = (target_i - R baseline_i) / mean(baseline), the Student-t half width of mean(d),
      ``quantile(n - 1) * sd(d) / sqrt(n)``; ``change_ratio_of_means_lo``/``_hi`` its bounds;
    * ``target_mean``, ``baseline_mean``: the two means over those pairs; ``seeds``: the sorted
      list of the pairs' seeds.

    ``quantile`` = ``t975`` (``scipy.stats.t.ppf``, the exact quantiles summarize uses too) by
    default;
    """
    by = _by_list(by)
    q = t975 if quantile is None else quantile
    pv = paired_values(df, metric, target, baseline, by)
    rows = []
    for key, sub in _groups(pv, by):
        valid = sub[np.isfinite(sub["rel"])]
        mc = mean_ci(valid["rel"].to_numpy(), q)
        rom, rom_ci, mt, mb = _ratio_of_means(valid["target"].to_numpy(dtype=float),
                                              valid["baseline"].to_numpy(dtype=float), q)
        rows.append(dict(zip(by, key), n=mc.n, mean=mc.mean, ci=mc.ci, lo=mc.lo, hi=mc.hi,
                         seeds=sorted({int(s) for s in valid["seed"]}),
                         change_mean_of_ratios=mc.mean, change_mean_of_ratios_ci=mc.ci,
                         change_ratio_of_means=rom, change_ratio_of_means_ci=rom_ci,
                         change_ratio_of_means_lo=rom - rom_ci, change_ratio_of_means_hi=rom + rom_ci,
                         target_mean=mt, baseline_mean=mb))
    return pd.DataFrame(rows, columns=by + ["n", "mean", "ci", "lo", "hi", "seeds", "change_mean_of_ratios",
                                            "change_mean_of_ratios_ci", "change_ratio_of_means",
                                            "change_ratio_of_means_ci", "change_ratio_of_means_lo",
                                            "change_ratio_of_means_hi", "target_mean", "baseline_mean"])


def normalized(df: pd.DataFrame, metric: str, by=None, reference: str = "max",
               quantile: Quantile = None) -> pd.DataFrame:
    """``summary(df, metric, by)`` plus ``norm`` (the group's normaliser), ``norm_mean`` and
    ``norm_ci`` (mean and CI half width divided by it).

    ``reference="max"``: the largest scheduler mean in the group (values in (0, 1], as in
    the paper's normalized plots); a scheduler name: that scheduler's mean in the group.
    """
    by = _by_list(by)
    s = summary(df, metric, by, quantile)
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
