#include "sim/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>

#include "model/rng.h"
#include "sim/bandwidth_monitor.h"
#include "sim/energy.h"
#include "sim/metrics_accumulator.h"
#include "sim/network.h"
#include "model/pipeline_schedule.h"
#include "util/input_error.h"

namespace geopipe {
namespace {

/// "1.2e+15 s": a simulated time for a message.
std::string format_seconds(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", t);
  return buf;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Running {
  bool active = false;
  long version = 0;
  std::vector<int> regions;        // per stage
  std::vector<double> fwd, bwd;    // per stage, s
  std::vector<double> hop_lat;     // per hop, s (one way, forward direction)
  std::vector<double> hop_lat_b;   // per hop, s (one way, backward direction)
  std::vector<int> flow_f, flow_b; // per hop: flow ids, -1 for intra-region hops
  std::vector<double> bw_f, bw_b;  // per hop: current bandwidth (scratch for the recurrence)
  std::vector<int> power_region;   // distinct regions of the job
  std::vector<double> power_w;     // facility power drawn in each of those regions
  double T = 0, T_nocomm = 0;
  double remaining = 0;            // iterations left at last_t
  double last_t = 0;
  double busy_gpu_s_per_iter = 0;
  double bytes_per_iter = 0;
  double egress_usd_per_iter = 0;
  int gpus = 0;
};

struct Completion {
  double t;
  int job;
  long version;
  bool operator>(const Completion& o) const { return t > o.t || (t == o.t && job > o.job); }
};

class Engine {
 public:
  Engine(const Scenario& sc, const std::vector<Job>& jobs, Scheduler& sched, std::uint64_t seed, const SimOptions& opt)
      : sc_(sc), topo_(sc.topology), jobs_(jobs), sched_(sched), opt_(opt), net_(sc.topology),
        monitor_(sc.scheduler, sc.topology.num_regions(), seed), acc_(sc.topology) {
    const auto n = jobs.size();
    profiles_.reserve(n);
    for (const Job& j : jobs) profiles_.push_back(make_profile(j, sc.llms[static_cast<size_t>(j.model)], sc.compute));
    run_.resize(n);
    rec_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (jobs[i].id != static_cast<int>(i)) throw std::logic_error("simulate: job ids must be 0..n-1 in order");
      rec_[i].id = jobs[i].id;
      rec_[i].model = jobs[i].model;
      rec_[i].stages = jobs[i].stages;
      rec_[i].gpus_per_stage = jobs[i].gpus_per_stage;
      rec_[i].arrival_s = jobs[i].arrival_s;
      rec_[i].iterations = static_cast<double>(jobs[i].iterations);
    }
    const int R = topo_.num_regions();
    free_.resize(static_cast<size_t>(R));
    for (int r = 0; r < R; ++r) free_[static_cast<size_t>(r)] = topo_.regions[static_cast<size_t>(r)].gpu_count;
    flow_count_.assign(static_cast<size_t>(R * R), 0);
    ctx_.topo = &topo_;
    ctx_.compute = &sc.compute;
    ctx_.jobs = &jobs_;
    ctx_.profiles = &profiles_;
    shapes_ = job_shapes(jobs_, ctx_.num_shapes);
    ctx_.shapes = &shapes_;
    for (const auto& reg : topo_.regions) has_profiles_ |= !reg.price.is_flat();
    if (opt.record_timeline) timeline_.emplace(topo_, n);
  }

  SimResult run() {
    const auto wall0 = std::chrono::steady_clock::now();
    size_t next_arrival = 0;
    const size_t n = jobs_.size();
    double next_price = has_profiles_ && opt_.price_events ? next_price_change(0.0) : kInf;
    double last_t = 0;  // the last event time (for the timeline)
    while (true) {
      while (!heap_.empty() && !valid(heap_.top())) heap_.pop();
      const double ta = next_arrival < n ? jobs_[next_arrival].arrival_s : kInf;
      const double tc = heap_.empty() ? kInf : heap_.top().t;
      const bool waiting_matters = !queue_.empty() || next_arrival < n;
      const double tp = waiting_matters ? next_price : kInf;
      // The bandwidth monitor's ticks are events only while jobs wait (otherwise no decision
      // needs them, and catch_up() below takes the latest one lazily).
      const double tm = queue_.empty() ? kInf : monitor_.next_tick_s();
      const double t = std::min({ta, tc, tp, tm});
      if (t == kInf) break;
      if (++events_ > opt_.max_events)
        throw InputError(sc_.source_path, 0, 0,
                         "the simulation needs more than " + std::to_string(opt_.max_events) +
                             " event times (simulated time " + format_seconds(t) +
                             "; expected a scenario whose jobs finish in a bounded time: shorter or fewer "
                             "jobs, faster links, or a flat price)");
      acc_.event();
      // 0. a monitor tick between the previous event and this one (taken lazily: no job waited)
      if (monitor_.catch_up(t, net_.residuals())) ++epoch_;
      // 1. completions at t (heap order: time, then job id)
      bool released = false;
      while (!heap_.empty()) {
        if (!valid(heap_.top())) {
          heap_.pop();
          continue;
        }
        if (heap_.top().t > t) break;
        const int j = heap_.top().job;
        heap_.pop();
        finish(j, t);
        released = true;
      }
      if (released) ++epoch_;
      // 2. arrivals at t
      bool arrived = false;
      while (next_arrival < n && jobs_[next_arrival].arrival_s <= t) {
        queue_.push_back(static_cast<int>(next_arrival++));
        arrived = true;
      }
      // 3. price boundary
      const bool price_boundary = t >= next_price;
      if (price_boundary) next_price = next_price_change(t);
      // 4. re-share links freed by completions, the monitor's tick at t, then let the
      // scheduler start jobs: at every arrival, completion and price boundary, and at a tick
      // that changed what the scheduler sees.
      rebalance(t);
      const BandwidthMonitor::Tick tick = monitor_.tick(t, net_.residuals());
      if (tick.view_changed) ++epoch_;
      if (!queue_.empty() && (released || arrived || price_boundary || tick.call)) call_scheduler(t);
      if (timeline_) timeline_->sample(t, free_, net_.residuals(), queue_.size());
      last_t = t;
      // Nothing runs and nothing will arrive: only a new measurement of the idle network can
      // still start a waiting job. With none to come, or too many that did not, the run fails
      // loudly instead of ending with work undone (docs/model.md, "Events and metrics").
      if (running_ == 0 && next_arrival >= n && !queue_.empty())
        check_progress(t);
      else
        idle_since_measurement_ = kUnset;
    }
    // No event is left: jobs that still wait could only be started by a monitor tick that will
    // never come (its ticks saturated: sim/bandwidth_monitor.h). Never a silent end either.
    if (!queue_.empty())
      throw SimulationFailure("scheduler '" + std::string(sched_.name()) + "' left " + std::to_string(queue_.size()) +
                              " jobs waiting at t = " + format_seconds(last_t) +
                              " with no event left (the bandwidth monitor ticks no more after 2^62 periods)");
    SimResult res;
    res.metrics = acc_.finish(rec_, sched_.effort(),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    if (opt_.record_jobs) res.jobs = std::move(rec_);
    if (timeline_) res.timeline = timeline_->finish(last_t);
    return res;
  }

 private:
  bool valid(const Completion& c) const {
    const Running& r = run_[static_cast<size_t>(c.job)];
    return r.active && r.version == c.version;
  }

  double next_price_change(double t) const {
    double nx = kInf;
    for (const auto& reg : topo_.regions) nx = std::min(nx, reg.price.next_change_after(t));
    return nx;
  }

  // Accrue progress, energy, cost, ... of job j from its last update to t.
  void settle(int j, double t) {
    Running& r = run_[static_cast<size_t>(j)];
    const double dt = t - r.last_t;
    if (dt <= 0) return;
    JobRecord& rec = rec_[static_cast<size_t>(j)];
    const double iters = dt / r.T;
    r.remaining -= iters;
    const JobRates rates{r.T, r.T_nocomm, r.gpus, r.busy_gpu_s_per_iter, r.bytes_per_iter, r.egress_usd_per_iter,
                         r.power_region, r.power_w};
    acc_.job_ran(rec, rates, r.last_t, t, iters);
    r.last_t = t;
  }

  // Recompute T_iter and power of job j from its current hop allocations; reschedule its end.
  void update_timing(int j, double t) {
    Running& r = run_[static_cast<size_t>(j)];
    const JobProfile& p = profiles_[static_cast<size_t>(j)];
    const size_t H = r.hop_lat.size();
    for (size_t h = 0; h < H; ++h) {
      if (r.flow_f[h] < 0) {
        r.bw_f[h] = r.bw_b[h] = topo_.intra_bandwidth_bytes_per_s;
      } else {
        r.bw_f[h] = net_.allocation(r.flow_f[h]);
        r.bw_b[h] = net_.allocation(r.flow_b[h]);
      }
    }
    PipelineInput in;
    in.micro_batches = p.micro_batches;
    in.fwd_s = r.fwd;
    in.bwd_s = r.bwd;
    in.hop_fwd_bytes_per_s = r.bw_f;
    in.hop_bwd_bytes_per_s = r.bw_b;
    in.hop_latency_s = r.hop_lat;
    in.hop_bwd_latency_s = r.hop_lat_b;
    in.activation_bytes = p.activation_bytes;
    in.optimizer_step_s = sc_.compute.optimizer_step_s;
    r.T = schedule_.iteration_time(in, scratch_);
    std::fill(r.power_w.begin(), r.power_w.end(), 0.0);
    for (int i = 0; i < p.stages; ++i) {
      const int reg = r.regions[static_cast<size_t>(i)];
      const double busy = stage_busy_per_iteration_s(p.micro_batches, r.fwd[static_cast<size_t>(i)]);
      const double w = stage_power_w(p.gpus_per_stage, topo_.regions[static_cast<size_t>(reg)].pue, topo_.gpu_of(reg), busy, r.T);
      const auto k = static_cast<size_t>(std::find(r.power_region.begin(), r.power_region.end(), reg) - r.power_region.begin());
      r.power_w[k] += w;
    }
    ++r.version;
    r.remaining = std::max(0.0, r.remaining);
    heap_.push({t + r.remaining * r.T, j, r.version});
  }

  void start(int j, const Placement& pl, double t) {
    const JobProfile& even = profiles_[static_cast<size_t>(j)];
    const int S = even.stages;
    if (static_cast<int>(pl.stage_region.size()) != S)
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": placement size != stages");
    for (int reg : pl.stage_region)
      if (reg < 0 || reg >= topo_.num_regions()) throw std::logic_error("scheduler: bad region index");
    // The layer split the job runs with on this placement (sim.layer_partition).
    std::optional<JobProfile> placed;
    if (sc_.compute.layer_partition != LayerPartition::kEven) placed = placed_profile(even, pl.stage_region, topo_, sc_.compute);
    const JobProfile& p = placed ? *placed : even;
    Running& r = run_[static_cast<size_t>(j)];
    if (r.active || rec_[static_cast<size_t>(j)].start_s >= 0)
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": job started twice");
    r = Running{};
    r.active = true;
    r.regions = pl.stage_region;
    r.fwd.resize(static_cast<size_t>(S));
    r.bwd.resize(static_cast<size_t>(S));
    const size_t H = static_cast<size_t>(S - 1);
    r.hop_lat.resize(H);
    r.hop_lat_b.resize(H);
    r.flow_f.assign(H, -1);
    r.flow_b.assign(H, -1);
    r.bw_f.resize(H);
    r.bw_b.resize(H);
    for (int i = 0; i < S; ++i) {
      const int reg = pl.stage_region[static_cast<size_t>(i)];
      if (reg < 0 || reg >= topo_.num_regions()) throw std::logic_error("scheduler: bad region index");
      if (!p.stage_fits(i, topo_.gpu_of(reg))) throw std::logic_error("scheduler: stage does not fit GPU memory");
      auto& fr = free_[static_cast<size_t>(reg)];
      fr -= p.gpus_per_stage;
      if (fr < 0) throw std::logic_error("scheduler " + std::string(sched_.name()) + ": over-allocated GPUs");
      r.fwd[static_cast<size_t>(i)] = forward_time(p, i, topo_.gpu_of(reg), sc_.compute);
      r.bwd[static_cast<size_t>(i)] = backward_time(r.fwd[static_cast<size_t>(i)]);
      r.busy_gpu_s_per_iter += gpu_busy_s_per_iteration(p.gpus_per_stage, p.micro_batches, r.fwd[static_cast<size_t>(i)]);
      if (std::find(r.power_region.begin(), r.power_region.end(), reg) == r.power_region.end()) r.power_region.push_back(reg);
    }
    r.power_w.assign(r.power_region.size(), 0.0);
    const int R = topo_.num_regions();
    for (size_t h = 0; h < H; ++h) {
      const int a = pl.stage_region[h], b = pl.stage_region[h + 1];
      if (a == b) {
        r.hop_lat[h] = r.hop_lat_b[h] = topo_.intra_latency_s;
        continue;
      }
      if (!topo_.connected(a, b)) throw std::logic_error("scheduler: hop between unconnected regions");
      r.hop_lat[h] = topo_.link(a, b).latency_s;
      r.hop_lat_b[h] = topo_.link(b, a).latency_s;
      const double beta = stall_free_demand_bytes_per_s(p.activation_bytes, r.fwd[h], r.fwd[h + 1]);
      r.flow_f[h] = net_.add_flow(a, b, beta, j);
      r.flow_b[h] = net_.add_flow(b, a, beta, j);
      ++flow_count_[static_cast<size_t>(a * R + b)];
      ++flow_count_[static_cast<size_t>(b * R + a)];
      r.bytes_per_iter += hop_bytes_per_iteration(p.micro_batches, p.activation_bytes);
      r.egress_usd_per_iter += hop_egress_usd_per_iteration(p.micro_batches, p.activation_bytes, topo_.link(a, b), topo_.link(b, a));
    }
    // Compute-only time (infinite bandwidth, zero latency) for the stall fraction.
    {
      inf_buf_.assign(H, kInf);
      zero_buf_.assign(H, 0.0);
      const std::vector<double>& inf = inf_buf_;
      const std::vector<double>& zero = zero_buf_;
      PipelineInput in;
      in.micro_batches = p.micro_batches;
      in.fwd_s = r.fwd;
      in.bwd_s = r.bwd;
      in.hop_fwd_bytes_per_s = inf;
      in.hop_bwd_bytes_per_s = inf;
      in.hop_latency_s = zero;
      in.activation_bytes = p.activation_bytes;
      in.optimizer_step_s = sc_.compute.optimizer_step_s;
      r.T_nocomm = schedule_.iteration_time(in, scratch_);
    }
    r.gpus = p.stages * p.gpus_per_stage;
    r.remaining = p.iterations;
    r.last_t = t;
    ++running_;
    JobRecord& rec = rec_[static_cast<size_t>(j)];
    rec.start_s = t;
    rec.stage_region = pl.stage_region;
    rec.layers = p.layers;
    pending_start_.push_back(j);
    if (timeline_) timeline_->job_started(t, j, pl.stage_region);
  }

  void finish(int j, double t) {
    settle(j, t);
    Running& r = run_[static_cast<size_t>(j)];
    const JobProfile& p = profiles_[static_cast<size_t>(j)];
    const int R = topo_.num_regions();
    for (int reg : r.regions) free_[static_cast<size_t>(reg)] += p.gpus_per_stage;
    for (size_t h = 0; h < r.flow_f.size(); ++h) {
      if (r.flow_f[h] < 0) continue;
      net_.remove_flow(r.flow_f[h]);
      net_.remove_flow(r.flow_b[h]);
      const int a = r.regions[h], b = r.regions[h + 1];
      --flow_count_[static_cast<size_t>(a * R + b)];
      --flow_count_[static_cast<size_t>(b * R + a)];
    }
    r.remaining = 0;
    r.active = false;
    --running_;
    JobRecord& rec = rec_[static_cast<size_t>(j)];
    rec.finish_s = t;
    rec.mean_iteration_s = (t - rec.start_s) / rec.iterations;
    if (timeline_) timeline_->job_finished(t, j);
  }

  // Re-run max-min on changed links; settle and re-time the jobs whose share changed, and
  // time the jobs just started.
  void rebalance(double t) {
    changed_.clear();
    net_.rebalance(changed_);
    for (int j : changed_) {
      Running& r = run_[static_cast<size_t>(j)];
      if (!r.active) continue;
      if (r.T > 0) settle(j, t);
      update_timing(j, t);
    }
    for (int j : pending_start_) {
      Running& r = run_[static_cast<size_t>(j)];
      if (!std::binary_search(changed_.begin(), changed_.end(), j)) update_timing(j, t);
      rec_[static_cast<size_t>(j)].first_iteration_s = r.T;
    }
    pending_start_.clear();
  }

  void build_view(double t) {
    view_.topo = &topo_;
    view_.compute = &sc_.compute;
    view_.now_s = t;
    view_.free_gpus = free_;
    view_.total_free = 0;
    for (int f : free_) view_.total_free += f;
    view_.flows = flow_count_;
    bool changed = false;
    view_.residual = monitor_.view_for_call(net_.residuals(), changed);
    if (changed) ++epoch_;
    view_.epoch = epoch_;
  }

  // Called when nothing runs, nothing will arrive and jobs wait, after this event's scheduler
  // call: throws SimulationFailure if no later measurement can change the view the scheduler
  // failed on, or if it failed on opt_.max_idle_measurements measurements of the idle network.
  void check_progress(double t) {
    if (idle_since_measurement_ == kUnset) idle_since_measurement_ = monitor_.measurements();
    const std::uint64_t tried = monitor_.measurements() - idle_since_measurement_;
    std::string why;
    if (!monitor_.may_change(net_.residuals()))
      why = monitor_.exact() ? "it sees the network exactly, and nothing will change"
                             : "its view of the network is current, and no later measurement can change it";
    else if (tried >= opt_.max_idle_measurements)
      why = "it found no placement in " + std::to_string(tried) + " measurements of the idle network";
    if (why.empty()) return;
    throw SimulationFailure("scheduler '" + std::string(sched_.name()) + "' left " + std::to_string(queue_.size()) +
                            " job" + (queue_.size() == 1 ? "" : "s") + " waiting on an idle cluster at t = " +
                            format_seconds(t) + " (the first is job " + std::to_string(queue_.front()) + "; " + why +
                            "; a scheduler bug)");
  }

  void call_scheduler(double t) {
    build_view(t);
    decisions_.clear();
    const auto c0 = std::chrono::steady_clock::now();
    sched_.schedule(ctx_, queue_, view_, decisions_);
    acc_.scheduler_call(std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count());
    if (decisions_.empty()) return;
    for (const Decision& d : decisions_) start(d.job, d.placement, t);
    // Started jobs leave the queue (amortised O(log n) each, arrival order kept).
    for (const Decision& d : decisions_) queue_.erase(d.job);
    rebalance(t);
  }

  const Scenario& sc_;
  const Topology& topo_;
  const std::vector<Job>& jobs_;
  Scheduler& sched_;
  SimOptions opt_;
  NetworkState net_;
  BandwidthMonitor monitor_;
  std::vector<JobProfile> profiles_;
  std::vector<int> shapes_;
  std::vector<Running> run_;
  std::vector<JobRecord> rec_;
  std::vector<int> free_, flow_count_;
  WaitingQueue queue_;
  std::vector<int> changed_, pending_start_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> heap_;
  SchedContext ctx_;
  ClusterView view_;
  std::vector<Decision> decisions_;
  static constexpr std::uint64_t kUnset = ~std::uint64_t{0};
  /// Measurements the monitor had taken when the cluster last fell idle with jobs waiting and
  /// none to arrive (kUnset while it is not in that state).
  std::uint64_t idle_since_measurement_ = kUnset;
  long epoch_ = 0;
  int running_ = 0;
  std::uint64_t events_ = 0;  ///< event times processed (bounded by opt_.max_events)
  bool has_profiles_ = false;
  const PipelineSchedule& schedule_ = sc_.compute.schedule();
  PipelineScratch scratch_;
  std::vector<double> inf_buf_, zero_buf_;
  MetricsAccumulator acc_;
  std::optional<TimelineRecorder> timeline_;  ///< only if opt_.record_timeline
};

}  // namespace

SimResult simulate(const Scenario& scenario, const std::vector<Job>& jobs, Scheduler& scheduler,
                   std::uint64_t seed, const SimOptions& options) {
  Engine e(scenario, jobs, scheduler, seed, options);
  return e.run();
}

}  // namespace geopipe
