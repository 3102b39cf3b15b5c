"""The per-scenario metrics of a result file's ``/metrics`` table: units and display units.

A copy of the list in ``src/sim/metrics.h`` (GEOPIPE_SCENARIO_METRICS), in column order; the
test ``analysis.python_package`` compares it with what the binary lists (``geopipe list
metrics``) and with the columns of a real result file, so it cannot drift.

Stored values are SI (the unit is in the name). ``display`` is how the CLI shows a metric in
its tables, and how ``geopipe.plot`` labels and scales its y axis: seconds of job completion
and queueing times in hours, energy in MWh, bytes in TB (1e12), the scheduler's wall-clock
times in ms.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Metric", "METRICS", "COMPLETE_WITH_UNFINISHED", "TEST_FUNCTION_METRICS", "leaves_out_unfinished_jobs", "metric_source", "metric_names", "metric_unit", "display_unit", "display_scale", "metric_label"]

Metric = namedtuple("Metric", ["name", "unit", "display", "deterministic", "doc"])
Metric.__doc__ = ("One metric: ``unit`` = SI unit of the stored value ('' = a count or a ratio), ``display`` = "
                  "the unit the CLI shows it in ('h', 'MWh', 'TB', 'ms', or '' = as stored), "
                  "``deterministic`` = False for wall-clock measurements, ``doc`` = one line.")

# name, SI unit, display unit ("" = as stored), deterministic, meaning (src/sim/metrics.h)
METRICS = tuple(Metric(*m) for m in (
    ("jobs_total", "", "", True, "jobs in the scenario"),
    ("jobs_completed", "", "", True, "jobs that finished"),
    ("jobs_unfinished", "", "", True, "jobs left waiting at the end (0 since model version 2)"),
    ("avg_jct_s", "s", "h", True, "mean of finish - arrival over completed jobs"),
    ("p50_jct_s", "s", "h", True, "median JCT (linear interpolation)"),
    ("p95_jct_s", "s", "h", True, "95th percentile JCT"),
    ("p99_jct_s", "s", "h", True, "99th percentile JCT"),
    ("avg_queue_delay_s", "s", "h", True, "mean of start - arrival over started jobs"),
    ("p99_queue_delay_s", "s", "h", True, "99th percentile of start - arrival (linear interpolation)"),
    ("makespan_s", "s", "h", True, "last completion time"),
    ("total_energy_j", "J", "MWh", True, "facility energy of all jobs"),
    ("total_cost_usd", "USD", "", True, "electricity + egress cost of all jobs"),
    ("electricity_cost_usd", "USD", "", True, "electricity cost of all jobs"),
    ("egress_cost_usd", "USD", "", True, "inter-region traffic cost of all jobs"),
    ("total_carbon_g", "g", "", True, "CO2 of all jobs (regions with a known intensity)"),
    ("gpu_hours", "h", "", True, "allocated GPU-hours"),
    ("gpu_utilization", "", "", True, "busy / allocated GPU-seconds"),
    ("cross_region_bytes", "bytes", "TB", True, "bytes sent between regions"),
    ("sync_bytes", "bytes", "TB", True, "bytes of data-parallel synchronisation between regions"),
    ("stall_fraction", "", "", True, "run-time-weighted share of iterations lost to comm."),
    ("sync_fraction", "", "", True, "run-time-weighted share of iterations spent synchronising"),
    ("failures", "", "", True, "job failures (docs/model.md, Failures and checkpoints)"),
    ("preemptions", "", "", True, "preemptions of jobs by spot capacity or a scheduler"),
    ("restarts", "", "", True, "starts of jobs after a failure or preemption"),
    ("lost_gpu_hours", "h", "", True, "GPU-hours of work thrown away by failures"),
    ("checkpoint_gpu_hours", "h", "", True, "GPU-hours spent writing (regional: restoring) checkpoints"),
    ("goodput", "", "", True, "useful / allocated GPU-hours (1 without failures, checkpoints)"),
    ("avg_ftf_rho", "", "", True, "mean finish-time fairness rho = JCT / isolated JCT"),
    ("max_ftf_rho", "", "", True, "worst finish-time fairness rho"),
    ("unfair_fraction", "", "", True, "share of completed jobs with rho > 1.05"),
    ("jain_fairness", "", "", True, "Jain's index of 1 / rho over completed jobs"),
    ("jct_lower_bound_s", "s", "h", True, "lower bound on avg_jct_s: max(mean T_alone, SRPT on one G-GPU machine)"),
    ("sched_calls", "", "", True, "scheduler invocations"),
    ("sched_searches", "", "", True, "placement searches run"),
    ("sched_search_nodes", "", "", True, "search nodes expanded in them"),
    ("sched_truncated_searches", "", "", True, "searches that ran out of node budget"),
    ("sched_partition_misses", "", "", True, "searches a placement they reached beats, balanced split"),
    ("events", "", "", True, "event times processed"),
    ("sched_time_total_s", "s", "ms", False, "wall time inside the scheduler"),
    ("sched_time_max_s", "s", "ms", False, "longest single scheduler call"),
    ("wall_s", "s", "", False, "wall time of the whole simulation"),
    ("value", "", "", True, "a [test_function]'s value at the point (0 in a simulation)"),
))
# The metrics a [test_function] sweep produces (MetricSource::kTestFunction in src/sim/metrics.h);
# every other metric is a simulation's. A result file's ``attrs["evaluator"]`` says which it holds.
TEST_FUNCTION_METRICS = ("value",)

_BY_NAME = {m.name: m for m in METRICS}
# The metrics whose value is whole even where a scenario left jobs unfinished (the job counts);
# every other metric leaves those jobs out (src/sim/metrics.h metric_leaves_out_unfinished_jobs).
COMPLETE_WITH_UNFINISHED = ("jobs_total", "jobs_completed", "jobs_unfinished")


def leaves_out_unfinished_jobs(name: str) -> bool:
    """Does metric ``name`` leave out the jobs a scenario did not finish (JCTs cover completed
    jobs, energy and cost the jobs that ran)? True for every metric but the job counts and a
    test function's ``value``. Such
    results exist only in files of model version 1: since version 2 a run that would leave jobs
    waiting fails instead (docs/analysis.md, "Unfinished jobs")."""
    return name not in COMPLETE_WITH_UNFINISHED and name not in TEST_FUNCTION_METRICS


def metric_source(name: str) -> str:
    """What produces metric ``name``: "test_function" (``value``) or "simulation"."""
    _get(name)
    return "test_function" if name in TEST_FUNCTION_METRICS else "simulation"
# Stored value x display unit -> the value shown (src/sim/metrics.cpp, display_value).
_SCALE = {"h": 1.0 / 3600.0, "MWh": 1.0 / 3.6e9, "TB": 1e-12, "ms": 1e3, "": 1.0}
# The unit suffix of a metric name, dropped when the label shows another unit.
_SUFFIX = {"s": "_s", "J": "_j", "USD": "_usd", "g": "_g", "bytes": "_bytes"}


def metric_names() -> list:
    """Every metric name, in the column order of ``/metrics``."""
    return [m.name for m in METRICS]


def _get(name: str) -> Metric:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown metric '{name}' (expected one of: {', '.join(metric_names())})") from None


def metric_unit(name: str) -> str:
    """The SI unit of the stored values of metric ``name`` ('' for counts and ratios); KeyError
    for an unknown name."""
    return _get(name).unit


def display_unit(name: str) -> str:
    """The unit the CLI shows ``name`` in: 'h' for the JCT/queueing/makespan seconds, 'MWh',
    'TB', 'ms' for the scheduler times, else the SI unit. A name that is not a metric has ''."""
    m = _BY_NAME.get(name)
    if m is None:
        return ""
    return m.display or m.unit


def display_scale(name: str) -> float:
    """The factor from the stored SI value to the value in ``display_unit(name)`` (1 / 3600
    for hours, 1 / 3.6e9 for MWh, 1e-12 for TB, 1000 for ms, else 1)."""
    m = _BY_NAME.get(name)
    return 1.0 if m is None else _SCALE[m.display]


def metric_label(name: str) -> str:
    """An axis label: the name without its SI suffix when shown in another unit, then the unit
    in brackets: 'avg_jct [h]', 'total_energy [MWh]', 'total_cost_usd [USD]',
    'gpu_utilization' (no unit)."""
    m = _BY_NAME.get(name)
    if m is None:
        return name
    unit = m.display or m.unit
    label = name
    if m.display and m.unit in _SUFFIX and name.endswith(_SUFFIX[m.unit]):
        label = name[: -len(_SUFFIX[m.unit])]
    return f"{label} [{unit}]" if unit else label
