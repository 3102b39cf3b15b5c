#include "sim/metrics_accumulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "model/units.h"
#include "sim/energy.h"
#include "sim/jct_bound.h"

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
      rec.carbon_g += units::joules_to_kwh(r.power_w[k] * reg.carbon_series_integral(t0_s, t1_s));
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

std::vector<double> mean_jobs_in_system(std::span<const double> arrival_s, std::span<const double> finish_s) {
  const std::size_t n = arrival_s.size();
  struct Event {
    double t;
    int kind;  // 0 arrival, 1 completion: arrivals first at one time
    int id;
  };
  std::vector<Event> ev;
  ev.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    ev.push_back({arrival_s[i], 0, static_cast<int>(i)});
    if (finish_s[i] >= 0) ev.push_back({finish_s[i], 1, static_cast<int>(i)});
  }
  std::sort(ev.begin(), ev.end(),
            [](const Event& a, const Event& b) { return std::tie(a.t, a.kind, a.id) < std::tie(b.t, b.kind, b.id); });
  std::vector<double> at_arrival(n, 0.0), out(n, 0.0);
  double integral = 0, last_t = ev.empty() ? 0.0 : ev.front().t;
  long count = 0;
  for (std::size_t k = 0; k < ev.size();) {
    const double t = ev[k].t;
    integral += static_cast<double>(count) * (t - last_t);  // I(t): the same for every event at t
    last_t = t;
    for (; k < ev.size() && ev[k].t == t && ev[k].kind == 0; ++k) {
      ++count;
      at_arrival[static_cast<std::size_t>(ev[k].id)] = integral;
    }
    const long after_arrivals = count;
    for (; k < ev.size() && ev[k].t == t && ev[k].kind == 1; ++k) {
      --count;
      const auto i = static_cast<std::size_t>(ev[k].id);
      const double span = finish_s[i] - arrival_s[i];
      out[i] = span > 0 ? (integral - at_arrival[i]) / span : static_cast<double>(after_arrivals);
    }
  }
  return out;
}

double jain_index(std::span<const double> x) {
  if (x.empty()) return 0.0;
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  return s2 > 0 ? s * s / (static_cast<double>(x.size()) * s2) : 0.0;
}

template <class Record>
ScenarioMetrics MetricsAccumulator::finish(std::vector<Record>& records, const SearchEffort& effort, double wall_s) {
  ScenarioMetrics m = m_;
  m.wall_s = wall_s;
  m.jobs_total = static_cast<int>(records.size());
  std::vector<double> jct, queue_delay;
  jct.reserve(records.size());
  double qsum = 0;
  int started = 0;
  for (const Record& r : records) {
    if (r.start_s >= 0) {
      qsum += r.start_s - r.arrival_s;
      queue_delay.push_back(r.start_s - r.arrival_s);
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
  m.p99_queue_delay_s = percentile(std::move(queue_delay), 99);
  m.gpu_hours = alloc_gpu_s_ / units::kSecondsPerHour;
  m.gpu_utilization = alloc_gpu_s_ > 0 ? busy_gpu_s_ / alloc_gpu_s_ : 0.0;
  m.stall_fraction = run_s_ > 0 ? stall_s_ / run_s_ : 0.0;
  m.sync_fraction = run_s_ > 0 ? sync_s_ / run_s_ : 0.0;
  m.lost_gpu_hours = lost_gpu_s_ / units::kSecondsPerHour;
  m.checkpoint_gpu_hours = checkpoint_gpu_s_ / units::kSecondsPerHour;
  m.goodput = alloc_gpu_s_ > 0 ? (alloc_gpu_s_ - lost_gpu_s_ - checkpoint_gpu_s_) / alloc_gpu_s_ : 0.0;
  fairness(records, m);
  jct_bound(records, m);
  m.sched_searches = effort.searches;
  m.sched_search_nodes = effort.nodes;
  m.sched_truncated_searches = effort.truncated;
  m.sched_partition_misses = effort.partition_misses;
  return m;
}

template <class Record>
void MetricsAccumulator::fairness(std::vector<Record>& records, ScenarioMetrics& m) const {
  const std::size_t n = records.size();
  std::vector<double> arrival(n), finish(n);
  for (std::size_t i = 0; i < n; ++i) {
    arrival[i] = records[i].arrival_s;
    finish[i] = records[i].finished() ? records[i].finish_s : -1.0;
  }
  const std::vector<double> nbar = mean_jobs_in_system(arrival, finish);
  const int total_gpus = topo_.total_gpus();
  std::vector<double> x;  // 1/ρ, in job order
  x.reserve(n);
  double rho_sum = 0;
  int unfair = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Record& r = records[i];
    if (!r.finished() || !(r.alone_s > 0)) continue;
    const double iso = isolated_jct_s(r.alone_s, nbar[i], r.gpus, total_gpus);
    const double rho = (r.finish_s - r.arrival_s) / iso;
    if constexpr (requires { r.ftf_rho; }) {
      r.isolated_jct_s = iso;
      r.ftf_rho = rho;
    }
    rho_sum += rho;
    m.max_ftf_rho = std::max(m.max_ftf_rho, rho);
    unfair += rho > kUnfairRho;
    x.push_back(1.0 / rho);
  }
  if (x.empty()) return;
  const auto count = static_cast<double>(x.size());
  m.avg_ftf_rho = rho_sum / count;
  m.unfair_fraction = unfair / count;
  m.jain_fairness = jain_index(x);
}

template <class Record>
void MetricsAccumulator::jct_bound(const std::vector<Record>& records, ScenarioMetrics& m) const {
  const std::size_t n = records.size();
  if (!alone_bounds_run_time_ && n > 0) {
    m.jct_lower_bound_s = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  std::vector<double> arrival(n), alone(n);
  std::vector<int> gpus(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Record& r = records[i];
    // The bound covers every job: one without a finish or a T_alone leaves it undefined.
    if (!r.finished() || !(r.alone_s > 0) || r.gpus <= 0) {
      m.jct_lower_bound_s = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    arrival[i] = r.arrival_s;
    alone[i] = r.alone_s;
    gpus[i] = r.gpus;
  }
  m.jct_lower_bound_s = jct_lower_bound(arrival, gpus, alone, std::max(topo_.total_gpus(), 1)).bound_s;
}

template void MetricsAccumulator::job_ran(JobRecord&, const JobRates&, double, double, double);
template void MetricsAccumulator::job_ran(JobTally&, const JobRates&, double, double, double);
template ScenarioMetrics MetricsAccumulator::finish(std::vector<JobRecord>&, const SearchEffort&, double);
template ScenarioMetrics MetricsAccumulator::finish(std::vector<JobTally>&, const SearchEffort&, double);

}  // namespace geopipe
