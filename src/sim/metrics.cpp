#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

namespace geopipe {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

std::vector<MetricField> metric_fields(const ScenarioMetrics& m) {
  return {
      {"jobs_total", static_cast<double>(m.jobs_total), true},
      {"jobs_completed", static_cast<double>(m.jobs_completed), true},
      {"jobs_unfinished", static_cast<double>(m.jobs_unfinished), true},
      {"avg_jct_s", m.avg_jct_s, true},
      {"p50_jct_s", m.p50_jct_s, true},
      {"p95_jct_s", m.p95_jct_s, true},
      {"p99_jct_s", m.p99_jct_s, true},
      {"avg_queue_delay_s", m.avg_queue_delay_s, true},
      {"makespan_s", m.makespan_s, true},
      {"total_energy_j", m.total_energy_j, true},
      {"total_cost_usd", m.total_cost_usd, true},
      {"total_carbon_g", m.total_carbon_g, true},
      {"gpu_hours", m.gpu_hours, true},
      {"gpu_utilization", m.gpu_utilization, true},
      {"cross_region_bytes", m.cross_region_bytes, true},
      {"stall_fraction", m.stall_fraction, true},
      {"sched_calls", static_cast<double>(m.sched_calls), true},
      {"sched_searches", static_cast<double>(m.sched_searches), true},
      {"sched_search_nodes", static_cast<double>(m.sched_search_nodes), true},
      {"sched_truncated_searches", static_cast<double>(m.sched_truncated_searches), true},
      {"events", static_cast<double>(m.events), true},
      {"sched_time_total_s", m.sched_time_total_s, false},
      {"sched_time_max_s", m.sched_time_max_s, false},
      {"wall_s", m.wall_s, false},
  };
}

}  // namespace geopipe
