// Per-scenario and per-job results (DESIGN.md §2.6). All values SI, names carry units.
// Everything except the *_wall_s / sched_time_* fields is a deterministic function of the
// scenario, the seed and the scheduler: those are bit-identical across runs and machines of
// the same build; the timing fields are measurements.
#pragma once

#include <string>
#include <vector>

namespace geopipe {

struct JobRecord {
  int id = 0;
  int model = 0;
  int stages = 0;
  int gpus_per_stage = 0;
  std::vector<int> stage_region;   ///< placement (empty if never started)
  double arrival_s = 0;
  double start_s = -1;             ///< -1: never started
  double finish_s = -1;            ///< -1: not finished
  double iterations = 0;
  double mean_iteration_s = 0;     ///< (finish − start) / iterations
  double first_iteration_s = 0;    ///< T_iter at start (before any later re-sharing)
  double energy_j = 0;
  double cost_usd = 0;
  double carbon_g = 0;
  double cross_region_bytes = 0;
  bool finished() const { return finish_s >= 0; }
};

struct ScenarioMetrics {
  int jobs_total = 0;
  int jobs_completed = 0;
  int jobs_unfinished = 0;          ///< could never be started by this scheduler (see docs)
  double avg_jct_s = 0;             ///< mean of finish − arrival over completed jobs
  double p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0;  ///< linear-interpolated percentiles
  double avg_queue_delay_s = 0;     ///< mean of start − arrival over started jobs
  double makespan_s = 0;            ///< last completion time (time 0 = first possible arrival)
  double total_energy_j = 0;
  double total_cost_usd = 0;
  double total_carbon_g = 0;
  double gpu_hours = 0;             ///< allocated GPU-hours
  double gpu_utilization = 0;       ///< busy GPU-seconds / allocated GPU-seconds
  double cross_region_bytes = 0;
  double stall_fraction = 0;        ///< Σ run·(T_iter − T_iter_nocomm)/T_iter / Σ run time
  long sched_calls = 0;
  double sched_time_total_s = 0;    ///< wall time inside the scheduler (measurement)
  double sched_time_max_s = 0;      ///< longest single scheduler call (measurement)
  long sched_searches = 0;          ///< placement searches run
  long sched_search_nodes = 0;      ///< DFS nodes expanded in those searches
  long sched_truncated_searches = 0;  ///< searches that ran out of node budget (best found so far used)
  long events = 0;                  ///< event times processed
  double wall_s = 0;                ///< wall time of the whole simulation (measurement)
};

/// Linear-interpolation percentile (numpy's default) of unsorted values; 0 for none.
double percentile(std::vector<double> values, double q);

/// Name/value pairs of the metrics in a fixed order (for tables, JSON, HDF5 columns).
struct MetricField {
  const char* name;
  double value;
  bool deterministic;  ///< false for wall-clock measurements
};
std::vector<MetricField> metric_fields(const ScenarioMetrics& m);

}  // namespace geopipe
