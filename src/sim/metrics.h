// The per-scenario metrics (docs/model.md, "Events and metrics"): the one list of their
// names, units and kinds. Every consumer walks this list: the JSON of `geopipe run`, its table,
// the HDF5 /metrics columns, the MPI result messages and `geopipe summarize`. Adding a metric
// is one line in GEOPIPE_SCENARIO_METRICS plus the code that computes it
// (sim/metrics_accumulator.cpp) and its definition in docs/model.md.
//
// All values are SI and names carry their unit. Everything except the measurements
// (deterministic = false: wall-clock times) is a deterministic function of the scenario, the
// seed and the scheduler: bit-identical across runs, machines, ranks and threads of one build.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace geopipe {

/// How a metric is shown to people (tables); stored values are always the SI value.
enum class MetricDisplay {
  kPlain,  ///< as stored
  kHours,  ///< seconds shown as hours
  kMwh,    ///< joules shown as MWh
  kTb,     ///< bytes shown as TB (1e12 bytes)
  kMs,     ///< seconds shown as milliseconds
};

/// What produces a metric (run/evaluator.h): a simulation of the scenario, or the analytic test
/// function of a [test_function] sweep. Each produces its own metrics and leaves the others at
/// 0 (a simulation's `value`, a test function's JCTs); a result file says which produced its
/// rows (StoreMeta::evaluator), and the reports refuse a metric of the other kind.
enum class MetricSource {
  kSimulation,
  kTestFunction,
};
/// "simulation" or "test_function" (the StoreMeta::evaluator of a result file).
const char* metric_source_name(MetricSource s);

// X(type, name, unit, display, deterministic, source, doc) — in column order.
#define GEOPIPE_SCENARIO_METRICS(X)                                                                      \
  X(int, jobs_total, "", kPlain, true, kSimulation, "jobs in the scenario")                                            \
  X(int, jobs_completed, "", kPlain, true, kSimulation, "jobs that finished")                                          \
  X(int, jobs_unfinished, "", kPlain, true, kSimulation, "jobs left waiting at the end (0 since model version 2)")     \
  X(double, avg_jct_s, "s", kHours, true, kSimulation, "mean of finish - arrival over completed jobs")                 \
  X(double, p50_jct_s, "s", kHours, true, kSimulation, "median JCT (linear interpolation)")                            \
  X(double, p95_jct_s, "s", kHours, true, kSimulation, "95th percentile JCT")                                          \
  X(double, p99_jct_s, "s", kHours, true, kSimulation, "99th percentile JCT")                                          \
  X(double, avg_queue_delay_s, "s", kHours, true, kSimulation, "mean of start - arrival over started jobs")            \
  X(double, p99_queue_delay_s, "s", kHours, true, kSimulation, "99th percentile of start - arrival (linear interpolation)") \
  X(double, makespan_s, "s", kHours, true, kSimulation, "last completion time")                                        \
  X(double, total_energy_j, "J", kMwh, true, kSimulation, "facility energy of all jobs")                               \
  X(double, total_cost_usd, "USD", kPlain, true, kSimulation, "electricity + egress cost of all jobs")                 \
  X(double, electricity_cost_usd, "USD", kPlain, true, kSimulation, "electricity cost of all jobs")                    \
  X(double, egress_cost_usd, "USD", kPlain, true, kSimulation, "inter-region traffic cost of all jobs")                \
  X(double, total_carbon_g, "g", kPlain, true, kSimulation, "CO2 of all jobs (regions with a known intensity)")        \
  X(double, gpu_hours, "h", kPlain, true, kSimulation, "allocated GPU-hours")                                          \
  X(double, gpu_utilization, "", kPlain, true, kSimulation, "busy / allocated GPU-seconds")                            \
  X(double, cross_region_bytes, "bytes", kTb, true, kSimulation, "bytes sent between regions")                         \
  X(double, sync_bytes, "bytes", kTb, true, kSimulation, "bytes of data-parallel synchronisation between regions")   \
  X(double, stall_fraction, "", kPlain, true, kSimulation, "run-time-weighted share of iterations lost to comm.")      \
  X(double, sync_fraction, "", kPlain, true, kSimulation, "run-time-weighted share of iterations spent synchronising") \
  X(long, failures, "", kPlain, true, kSimulation, "job failures (docs/model.md, Failures and checkpoints)")          \
  X(long, preemptions, "", kPlain, true, kSimulation, "preemptions of jobs by spot capacity or a scheduler")           \
  X(long, restarts, "", kPlain, true, kSimulation, "starts of jobs after a failure or preemption")                     \
  X(double, lost_gpu_hours, "h", kPlain, true, kSimulation, "GPU-hours of work thrown away by failures")               \
  X(double, checkpoint_gpu_hours, "h", kPlain, true, kSimulation, "GPU-hours spent writing (regional: restoring) checkpoints") \
  X(double, goodput, "", kPlain, true, kSimulation, "useful / allocated GPU-hours (1 without failures, checkpoints)")   \
  X(double, avg_ftf_rho, "", kPlain, true, kSimulation, "mean finish-time fairness rho = JCT / isolated JCT")         \
  X(double, max_ftf_rho, "", kPlain, true, kSimulation, "worst finish-time fairness rho")                              \
  X(double, unfair_fraction, "", kPlain, true, kSimulation, "share of completed jobs with rho > 1.05")                 \
  X(double, jain_fairness, "", kPlain, true, kSimulation, "Jain's index of 1 / rho over completed jobs")               \
  X(double, jct_lower_bound_s, "s", kHours, true, kSimulation, "lower bound on avg_jct_s: max(mean T_alone, SRPT on one G-GPU machine)") \
  X(long, sched_calls, "", kPlain, true, kSimulation, "scheduler invocations")                                         \
  X(long, sched_searches, "", kPlain, true, kSimulation, "placement searches run")                                     \
  X(long, sched_search_nodes, "", kPlain, true, kSimulation, "search nodes expanded in them")                          \
  X(long, sched_truncated_searches, "", kPlain, true, kSimulation, "searches that ran out of node budget")             \
  X(long, sched_partition_misses, "", kPlain, true, kSimulation, "searches a placement they reached beats, balanced split") \
  X(long, events, "", kPlain, true, kSimulation, "event times processed")                                              \
  X(double, sched_time_total_s, "s", kMs, false, kSimulation, "wall time inside the scheduler")                        \
  X(double, sched_time_max_s, "s", kMs, false, kSimulation, "longest single scheduler call")                           \
  X(double, wall_s, "s", kPlain, false, kSimulation, "wall time of the whole simulation")                              \
  X(double, value, "", kPlain, true, kTestFunction, "a [test_function]'s value at the point (0 in a simulation)")

struct ScenarioMetrics {
#define GEOPIPE_METRIC_MEMBER(type, name, unit, display, deterministic, source, doc) type name = 0;
  GEOPIPE_SCENARIO_METRICS(GEOPIPE_METRIC_MEMBER)
#undef GEOPIPE_METRIC_MEMBER
};

/// What the list says about one metric.
struct MetricDef {
  const char* name;        ///< JSON key, HDF5 column, `summarize --metric` name
  const char* unit;        ///< SI unit of the stored value ("" = dimensionless or a count)
  MetricDisplay display;
  bool deterministic;      ///< false for wall-clock measurements
  MetricSource source;     ///< what produces it
  const char* doc;
};

/// Every metric, in column order.
const std::vector<MetricDef>& metric_defs();
/// A metric by name, or nullptr.
const MetricDef* find_metric(std::string_view name);
/// Does the metric's value of a scenario leave out jobs the scheduler never finished? True for
/// every metric of a simulation but the three job counts (jobs_total, jobs_completed,
/// jobs_unfinished; a test function's `value` has no jobs to leave out): JCTs
/// cover completed jobs only, energy and cost the jobs that ran. A result with
/// jobs_unfinished > 0 (only in files of model version 1; since version 2 such a run fails)
/// is refused or flagged wherever one of these is aggregated (docs/analysis.md, "Unfinished jobs").
bool metric_leaves_out_unfinished_jobs(std::string_view name);

/// Calls f(const MetricDef&, member&) for every metric of `m`, in column order (`M` is
/// ScenarioMetrics or const ScenarioMetrics; the member is an int, long or double).
template <class M, class F>
void for_each_metric(M& m, F&& f) {
  std::size_t k = 0;
  const auto& defs = metric_defs();
#define GEOPIPE_METRIC_VISIT(type, name, unit, display, deterministic, source, doc) f(defs[k++], m.name);
  GEOPIPE_SCENARIO_METRICS(GEOPIPE_METRIC_VISIT)
#undef GEOPIPE_METRIC_VISIT
}

/// Name/value pairs of the metrics in column order (values as double; counts are exact).
struct MetricField {
  const char* name;
  double value;
  bool deterministic;  ///< false for wall-clock measurements
};
std::vector<MetricField> metric_fields(const ScenarioMetrics& m);

/// The value as people read it: `value` scaled for the metric's display, and the unit shown.
struct DisplayValue {
  double value;
  const char* unit;  ///< "h", "MWh", "TB", "ms", or the metric's own unit
};
DisplayValue display_value(const MetricDef& def, double value);

/// Linear-interpolation percentile (numpy's default) of unsorted values; 0 for none.
double percentile(std::vector<double> values, double q);
/// percentile() of values already sorted in increasing order (the same number, without the
/// sort: several percentiles of one sample sort it once).
double percentile_of_sorted(std::span<const double> sorted, double q);

}  // namespace geopipe
