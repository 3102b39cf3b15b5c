#include "sim/metrics_accumulator.h"

#include <algorithm>
#include <cmath>

#include "model/units.h"
#include "sim/energy.h"

namespace geopipe {

template <class Record>
void MetricsAccumulator::job_ran(Record& rec, const JobRates& r, double t0_s, double t1_s, double iters) {
  const double dt = t1_s - t0_s;
  for (std::size_t k = 0; k < r.power_regions.size(); ++k) {
    const Region& reg = topo_.regions[static_cast<std::size_t>(r.power_regions[k])];
    const double e = r.power_w[k] * dt;
    rec.energy_j += e;
    rec.electricity_cost_usd += energy_cost_usd(reg.price, r.power_w[k], t0_s, t1_s);
    if (reg.carbon_series)  // a measured intensity: ∫ over [t0, t1], exact for its steps
      rec.carbon_g += units::joules_to_kwh(r.power_w[k] * (reg.carbon_series->integral(t1_s) - reg.carbon_series->integral(t0_s)));
    else
      rec.carbon_g += units::joules_to_kwh(e) * reg.carbon_g_per_kwh;
  }
  rec.cross_region_bytes += iters * r.cross_region_bytes_per_iteration;
  rec.egress_cost_usd += iters * r.egress_usd_per_iteration;
  busy_gpu_s_ += iters * r.busy_gpu_s_per_iteration;
  alloc_gpu_s_ += dt * r.gpus;
  if (r.checkpointing) return;
  run_s_ += dt;
  // A job whose link is down (iteration_s = +inf) is stalled for the whole interval.
  stall_s_ += std::isinf(r.iteration_s) ? dt : dt * (r.iteration_s - r.iteration_nocomm_s) / r.iteration_s;
}

void MetricsAccumulator::scheduler_call(double wall_s) {
  ++m_.sched_calls;
  m_.sched_time_total_s += wall_s;
  m_.sched_time_max_s = std::max(m_.sched_time_max_s, wall_s);
}

template <class Record>
ScenarioMetrics MetricsAccumulator::finish(const std::vector<Record>& records, const SearchEffort& effort,
                                           double wall_s) {
  ScenarioMetrics m = m_;
  m.wall_s = wall_s;
  m.jobs_total = static_cast<int>(records.size());
  std::vector<double> jct;
  jct.reserve(records.size());
  double qsum = 0;
  int started = 0;
  for (const Record& r : records) {
    if (r.start_s >= 0) {
      qsum += r.start_s - r.arrival_s;
      ++started;
    }
    if (r.finished()) {
      jct.push_back(r.finish_s - r.arrival_s);
      m.makespan_s = std::max(m.makespan_s, r.finish_s);
    }
    m.total_energy_j += r.energy_j;
    m.electricity_cost_usd += r.electricity_cost_usd;
    m.egress_cost_usd += r.egress_cost_usd;
    m.total_cost_usd += r.cost_usd();
    m.total_carbon_g += r.carbon_g;
    m.cross_region_bytes += r.cross_region_bytes;
    m.sync_bytes += r.sync_bytes;
  }
  m.jobs_completed = static_cast<int>(jct.size());
  m.jobs_unfinished = m.jobs_total - m.jobs_completed;
  double s = 0;
  for (double x : jct) s += x;
  m.avg_jct_s = jct.empty() ? 0.0 : s / static_cast<double>(jct.size());
  std::sort(jct.begin(), jct.end());  // after the sum above, which is taken in job order
  m.p50_jct_s = percentile_of_sorted(jct, 50);
  m.p95_jct_s = percentile_of_sorted(jct, 95);
  m.p99_jct_s = percentile_of_sorted(jct, 99);
  m.avg_queue_delay_s = started ? qsum / started : 0.0;
  m.gpu_hours = alloc_gpu_s_ / units::kSecondsPerHour;
  m.gpu_utilization = alloc_gpu_s_ > 0 ? busy_gpu_s_ / alloc_gpu_s_ : 0.0;
  m.stall_fraction = run_s_ > 0 ? stall_s_ / run_s_ : 0.0;
  m.sync_fraction = run_s_ > 0 ? sync_s_ / run_s_ : 0.0;
  m.lost_gpu_hours = lost_gpu_s_ / units::kSecondsPerHour;
  m.checkpoint_gpu_hours = checkpoint_gpu_s_ / units::kSecondsPerHour;
  m.goodput = alloc_gpu_s_ > 0 ? (alloc_gpu_s_ - lost_gpu_s_ - checkpoint_gpu_s_) / alloc_gpu_s_ : 0.0;
  m.sched_searches = effort.searches;
  m.sched_search_nodes = effort.nodes;
  m.sched_truncated_searches = effort.truncated;
  m.sched_partition_misses = effort.partition_misses;
  return m;
}

template void MetricsAccumulator::job_ran(JobRecord&, const JobRates&, double, double, double);
template void MetricsAccumulator::job_ran(JobTally&, const JobRates&, double, double, double);
template ScenarioMetrics MetricsAccumulator::finish(const std::vector<JobRecord>&, const SearchEffort&, double);
template ScenarioMetrics MetricsAccumulator::finish(const std::vector<JobTally>&, const SearchEffort&, double);

}  // namespace geopipe
