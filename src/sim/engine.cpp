#include "sim/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/data_parallel.h"
#include "model/faults.h"
#include "model/flexible_job.h"
#include "model/rng.h"
#include "model/units.h"
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

// A running job. Its D replicas' stages are replica-major: replica k's stage i at k·S + i, its
// hop i (stage i -> i+1) at k·(S−1) + i; D = 1 is one pipeline.
struct Running {
  long version = 0;
  std::vector<int> regions;        // per stage
  std::vector<double> fwd, bwd;    // per stage, s
  std::vector<double> hop_lat;     // per hop, s (one way, forward direction)
  std::vector<double> hop_lat_b;   // per hop, s (one way, backward direction)
  std::vector<int> flow_f, flow_b; // per hop: flow ids, -1 for intra-region hops
  std::vector<double> bw_f, bw_b;  // per hop: current bandwidth (scratch for the recurrence)
  std::vector<int> power_region;   // distinct regions of the job
  std::vector<double> power_w;     // facility power drawn in each of those regions
  double T = 0, T_nocomm = 0;      // with DiLoCo: T per iteration averaged over a cycle
  double remaining = 0;            // iterations left at last_t (DiLoCo: unused, see u)
  double last_t = 0;
  double busy_gpu_s_per_iter = 0;
  double bytes_per_iter = 0;
  double egress_usd_per_iter = 0;
  int gpus = 0;

  // Data parallelism (D > 1; docs/model.md, "Data parallelism"): per stage i its replicas'
  // synchronisation ring; its hops flat, stage by stage from sync_offset[i].
  int replicas = 1;
  std::vector<SyncRing> rings;          // per stage
  std::vector<double> sync_bytes;       // per stage: params_i × sync_bytes_per_param
  std::vector<int> sync_offset;         // per stage, into the flat hop arrays (size S + 1)
  std::vector<int> sync_flow;           // per ring hop: flow id, -1 inside a region
  std::vector<double> sync_lat, sync_bw;  // per ring hop: one-way latency, current bandwidth
  std::vector<double> stage_end;        // per stage (D·S): end of its last backward (scratch)
  double sync_egress_usd = 0;           // egress of one synchronisation of every stage
  double sync_cross_bytes = 0;          // cross-region bytes of one synchronisation
  double sync_s = 0;                    // seconds of one synchronisation (SyncRates::sync_s_per_sync)
  // DiLoCo: the cycle clock, the position u of U and the inner iteration and sync times.
  bool diloco = false;
  DilocoClock clock;
  double u = 0, U = 0, T_inner = 0, Y = 0;

  // Faults (docs/model.md, "Failures and checkpoints"): this attempt's failure rate,
  // checkpoint cost and interval, the end of its last completed checkpoint (or its start), and
  // whether it writes a checkpoint now (no progress, idle power: update_timing).
  double lambda = 0, ckpt_cost_s = 0, ckpt_every_s = 0, segment_start_s = 0;
  bool checkpointing = false;
  double ckpt_end_s = 0;  // the end of the checkpoint it writes (checkpointing)
  // Spot capacity: the rate of its preemptions; after a notice it is being evicted.
  double lambda_spot = 0;
  bool evicting = false;

  /// The state of a slot about to hold a newly started job: every field as default-constructed,
  /// the vectors emptied but keeping their storage (a slot is reused by job after job).
  void reset() {
    version = 0;
    for (auto* v : {&regions, &flow_f, &flow_b, &power_region, &sync_offset, &sync_flow}) v->clear();
    for (auto* v : {&fwd, &bwd, &hop_lat, &hop_lat_b, &bw_f, &bw_b, &power_w, &sync_bytes, &sync_lat, &sync_bw,
                    &stage_end})
      v->clear();
    rings.clear();
    T = T_nocomm = remaining = last_t = busy_gpu_s_per_iter = bytes_per_iter = egress_usd_per_iter = 0;
    gpus = 0;
    replicas = 1;
    sync_egress_usd = sync_cross_bytes = sync_s = 0;
    diloco = false;
    u = U = T_inner = Y = 0;
    lambda = ckpt_cost_s = ckpt_every_s = segment_start_s = ckpt_end_s = lambda_spot = 0;
    checkpointing = evicting = false;
  }
};

struct Completion {
  double t;
  int job;
  long version;
  bool operator>(const Completion& o) const { return t > o.t || (t == o.t && job > o.job); }
};

class Engine;

/// What a source did at an event time; the engine ORs them over the sources.
struct Fired {
  bool call = false;   ///< the scheduler should be called (if jobs wait)
  bool epoch = false;  ///< resources may have grown: placement-failure caches expire (view.h)
};

/// One source of engine events (docs/model.md, "Events and metrics"). The engine asks every
/// source for its next time, takes the least, and at that time t calls, in list order, each
/// source's before(t), then fire(t) of the sources that change state (kChange: completions,
/// arrivals, price boundaries, link capacities), re-shares the links, then fire(t) of the
/// observers (kObserve: the bandwidth monitor), then the scheduler if a source asked for it
/// and jobs wait. A new time-varying input is one class here and one line in the Engine's
/// constructor. fire(t) is called at every event time, whether or not the source's own next
/// time was t (it acts on what is due by t).
class EventSource {
 public:
  enum class Phase { kChange, kObserve };
  explicit EventSource(Engine& e) : e_(e) {}
  virtual ~EventSource() = default;
  virtual Phase phase() const { return Phase::kChange; }
  /// Time of the next event (+inf if none, or none that matters now).
  virtual double next_s() = 0;
  /// Before anything changes at event time t.
  virtual void before(double /*t*/) {}
  virtual Fired fire(double t) = 0;
  /// Can a later event of this source change what a scheduler that failed now would see? (The
  /// run fails when nothing runs, nothing arrives and no source can: check_progress.)
  virtual bool may_unblock_later() const { return false; }
  /// What its events are, and what input makes fewer of them: the event-budget error names
  /// the source with the most event times ("the simulation needs more than N event times").
  virtual std::string what() const = 0;
  virtual std::string fewer() const = 0;

  std::uint64_t events = 0;  ///< event times at which this source's next_s() was the least

 protected:
  Engine& e_;
};

class Engine {
  friend class CompletionSource;
  friend class ArrivalSource;
  friend class PriceSource;
  friend class LinkCapacitySource;
  friend class MonitorSource;
  friend class FaultSource;
 public:
  Engine(const Scenario& sc, const std::vector<Job>& jobs, Scheduler& sched, std::uint64_t seed, const SimOptions& opt)
      : sc_(sc), topo_(sc.topology), jobs_(jobs), sched_(sched), opt_(opt), net_(sc.topology),
        monitor_(sc.scheduler, sc.topology.num_regions(), seed), acc_(sc.topology) {
    const auto n = jobs.size();
    // One profile per job shape; a job's own (its shape's with its iterations) exists while it
    // waits or runs (acquire_profile, release_profile).
    shapes_ = job_shapes(jobs_, ctx_.num_shapes);
    shape_profiles_.resize(static_cast<size_t>(ctx_.num_shapes));
    std::vector<bool> built(shape_profiles_.size(), false);
    for (size_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(shapes_[i]);
      if (built[k]) continue;
      const LlmSpec& llm = sc.llms[static_cast<size_t>(jobs[i].model)];
      if (is_flexible(jobs[i])) add_variants(jobs[i], k, llm);
      else shape_profiles_[k] = make_profile(jobs[i], llm, sc.compute);
      built[k] = true;
    }
    profile_slot_.assign(n, -1);
    slot_of_.assign(n, -1);
    // At most one slot per running job, and a running job holds at least one GPU.
    slots_.reserve(static_cast<size_t>(std::max(1, sc.topology.total_gpus())));
    for (size_t i = 0; i < n; ++i)
      if (jobs[i].id != static_cast<int>(i)) throw std::logic_error("simulate: job ids must be 0..n-1 in order");
    if (opt.record_jobs) {
      rec_.resize(n);
      for (size_t i = 0; i < n; ++i) {
        rec_[i].id = jobs[i].id;
        rec_[i].model = jobs[i].model;
        rec_[i].stages = jobs[i].stages;
        rec_[i].gpus_per_stage = jobs[i].gpus_per_stage;
        rec_[i].data_parallel = jobs[i].data_parallel;
        rec_[i].arrival_s = jobs[i].arrival_s;
        rec_[i].iterations = static_cast<double>(jobs[i].iterations);
      }
    } else {
      tally_.resize(n);
      for (size_t i = 0; i < n; ++i) tally_[i].arrival_s = jobs[i].arrival_s;
    }
    const int R = topo_.num_regions();
    free_.resize(static_cast<size_t>(R));
    for (int r = 0; r < R; ++r) free_[static_cast<size_t>(r)] = topo_.regions[static_cast<size_t>(r)].gpu_count;
    flow_count_.assign(static_cast<size_t>(R * R), 0);
    ctx_.topo = &topo_;
    ctx_.compute = &sc.compute;
    ctx_.jobs = &jobs_;
    ctx_.profiles = &profile_pool_;
    ctx_.profile_slot = &profile_slot_;
    ctx_.shapes = &shapes_;
    for (const auto& reg : topo_.regions) has_profiles_ |= !reg.price.is_flat();
    if (opt.record_timeline) timeline_.emplace(topo_, n);
    series_limit_s_ = error_limit_of_series(topo_);
    // Faults act when a region fails or checkpoints have a fixed finite interval; otherwise
    // nothing of them runs (the results of a scenario without them are unchanged).
    for (const auto& reg : topo_.regions) faults_on_ |= std::isfinite(reg.gpu_mtbf_s) || reg.spot();
    faults_on_ |= sc.faults.checkpoint_interval_s && std::isfinite(*sc.faults.checkpoint_interval_s);
    faults_on_ |= sched.preempts();  // its preemptions checkpoint and re-queue jobs
    if (faults_on_) {
      fault_seed_ = derive_seed(seed, "faults");
      spot_seed_ = derive_seed(seed, "spot");
      jf_.resize(n);
      for (size_t i = 0; i < n; ++i) jf_[i].resume_remaining = static_cast<double>(jobs[i].iterations);
    }
    make_sources();
  }
  ~Engine();

  /// Runs the simulation; its metrics' `wall_s` is set by simulate(), which times the whole of it.
  SimResult run() {
    const size_t n = jobs_.size();
    double last_t = 0;  // the last event time (for the timeline)
    std::vector<double> next(sources_.size());
    while (true) {
      double t = kInf;
      for (size_t k = 0; k < sources_.size(); ++k) t = std::min(t, next[k] = sources_[k]->next_s());
      if (t == kInf) break;
      for (size_t k = 0; k < sources_.size(); ++k) sources_[k]->events += next[k] == t;
      if (++events_ > opt_.max_events) event_budget_exhausted(t);
      if (t > series_limit_s_) series_ended(t);
      acc_.event();
      for (const auto& src : sources_) src->before(t);
      Fired fired;
      auto fire = [&](EventSource::Phase ph) {
        for (const auto& src : sources_)
          if (src->phase() == ph) {
            const Fired f = src->fire(t);
            fired.call |= f.call;
            fired.epoch |= f.epoch;
          }
      };
      fire(EventSource::Phase::kChange);
      if (fired.epoch) ++epoch_;
      // Re-share the links whose flows or capacities changed, let the observers measure, then
      // the scheduler starts jobs: at every arrival, completion, price boundary and capacity
      // change, and at a monitor tick that changed what the scheduler sees.
      rebalance(t);
      fired.epoch = false;
      fire(EventSource::Phase::kObserve);
      if (fired.epoch) ++epoch_;
      if (!queue_.empty() && fired.call) call_scheduler(t);
      if (timeline_) timeline_->sample(t, free_, net_.capacities(), net_.residuals(), queue_.size());
      last_t = t;
      // Nothing runs and nothing will arrive: only a new measurement of the idle network (or a
      // change of a link's capacity) can still start a waiting job. With none to come, or too
      // many that did not, the run fails loudly instead of ending with work undone
      // (docs/model.md, "Events and metrics").
      if (running_ == 0 && next_arrival_ >= n && !queue_.empty())
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
    // A started job with no completion to come runs over a link that stays down (the loader
    // refuses a capacity series that ends in an outage without wrapping, so this is a bug).
    if (running_ > 0)
      throw SimulationFailure("scheduler '" + std::string(sched_.name()) + "': " + std::to_string(running_) +
                              " started jobs make no progress after t = " + format_seconds(last_t) +
                              " (a link they use stays down)");
    SimResult res;
    res.metrics = opt_.record_jobs ? acc_.finish(rec_, sched_.effort(), 0.0) : acc_.finish(tally_, sched_.effort(), 0.0);
    if (opt_.record_jobs) res.jobs = std::move(rec_);
    if (timeline_) res.timeline = timeline_->finish(last_t);
    return res;
  }

 private:
  void make_sources();

  /// The earliest end of a series under sim.series_end = "error" (+inf if none).
  static double error_limit_of_series(const Topology& topo) {
    double lim = kInf;
    auto take = [&](const StepSeries* s) {
      if (s && s->end() == SeriesEnd::kError) lim = std::min(lim, s->end_s());
    };
    for (const auto& reg : topo.regions) {
      take(reg.price.step_series());
      take(reg.carbon_series.get());
    }
    for (const auto& l : topo.links) take(l.capacity_series.get());
    return lim;
  }

  [[noreturn]] void series_ended(double t) const {
    throw InputError(sc_.source_path, 0, 0,
                     "the simulation reaches t = " + format_seconds(t) + " but a time series of the scenario ends at " +
                         format_seconds(series_limit_s_) +
                         " (sim.series_end = \"error\"; set it to \"hold\" or \"wrap\", or give a longer series)");
  }

  bool valid(const Completion& c) const {
    const int s = slot_of_[static_cast<size_t>(c.job)];
    return s >= 0 && slots_[static_cast<size_t>(s)].version == c.version;
  }

  /// f(job j's JobRecord) with SimOptions::record_jobs, else f(its JobTally): the fields both
  /// have (metrics_accumulator.h), written once for either.
  template <class F>
  decltype(auto) on_record(int j, F&& f) {
    if (opt_.record_jobs) return f(rec_[static_cast<size_t>(j)]);
    return f(tally_[static_cast<size_t>(j)]);
  }

  /// Flexible job shape k (of `job`): its variants that fit (model/flexible_job.h), their
  /// profiles and shape ids in the context; the shape's own profile is the first variant's.
  void add_variants(const Job& job, size_t k, const LlmSpec& llm) {
    if (variants_.empty()) {
      variants_.resize(shape_profiles_.size());
      variant_shape_.assign(shape_profiles_.size(), -1);
      next_variant_shape_ = ctx_.num_shapes;
      ctx_.variants = &variants_;
      ctx_.variant_shape = &variant_shape_;
    }
    for (const Job& v : flexible_variants_that_fit(job, llm, topo_, sc_.compute))
      variants_[k].push_back(make_profile(v, llm, sc_.compute));
    if (variants_[k].empty())
      throw std::logic_error("simulate: a flexible job of " + std::to_string(job.stages) +
                             " slots has no variant that fits (the config loader refuses it)");
    shape_profiles_[k] = variants_[k].front();
    variant_shape_[k] = next_variant_shape_;
    next_variant_shape_ += static_cast<int>(variants_[k].size());
  }
  /// Flexible job j starts as its variant k: its profile becomes the variant's (with its
  /// iterations), its record shows the variant's D and S.
  void become_variant(int j, int k) {
    const std::span<const JobProfile> vs = ctx_.variants_of(j);
    if (vs.empty()) {
      if (k == -1) return;
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": a variant for a job of fixed shape");
    }
    if (k < 0 || k >= static_cast<int>(vs.size()))
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": flexible job started without a valid variant");
    JobProfile& p = profile_pool_[static_cast<size_t>(profile_slot_[static_cast<size_t>(j)])];
    p = vs[static_cast<size_t>(k)];
    p.iterations = static_cast<double>(jobs_[static_cast<size_t>(j)].iterations);
    if (opt_.record_jobs) {
      rec_[static_cast<size_t>(j)].stages = p.stages;
      rec_[static_cast<size_t>(j)].data_parallel = p.data_parallel;
    }
  }

  /// Job j's profile (it has arrived and not finished).
  const JobProfile& profile(int j) const { return ctx_.profile(j); }
  /// Gives arriving job j its profile: its shape's, with its iterations (make_profile's, bit for
  /// bit: a shape's profiles differ only there). Pooled slots keep their vectors' storage.
  void acquire_profile(int j) {
    if (free_profiles_.empty()) {
      free_profiles_.push_back(static_cast<int>(profile_pool_.size()));
      profile_pool_.emplace_back();
    }
    const int s = free_profiles_.back();
    free_profiles_.pop_back();
    JobProfile& p = profile_pool_[static_cast<size_t>(s)];
    p = shape_profiles_[static_cast<size_t>(shapes_[static_cast<size_t>(j)])];
    p.iterations = static_cast<double>(jobs_[static_cast<size_t>(j)].iterations);
    profile_slot_[static_cast<size_t>(j)] = s;
  }
  void release_profile(int j) {
    free_profiles_.push_back(profile_slot_[static_cast<size_t>(j)]);
    profile_slot_[static_cast<size_t>(j)] = -1;
  }

  /// The state of running job j (slot_of_[j] >= 0).
  Running& running(int j) { return slots_[static_cast<size_t>(slot_of_[static_cast<size_t>(j)])]; }
  bool is_running(int j) const { return slot_of_[static_cast<size_t>(j)] >= 0; }

  double next_price_change(double t) const {
    double nx = kInf;
    for (const auto& reg : topo_.regions) nx = std::min(nx, reg.price.next_change_after(t));
    return nx;
  }

  // Accrue progress, energy, cost, ... of job j from its last update to t.
  void settle(int j, double t) {
    Running& r = running(j);
    const double dt = t - r.last_t;
    if (dt <= 0) return;
    double iters, syncs;
    if (r.diloco) {
      // A stalled job (a link down: T = +inf) does not move.
      const double u = std::isinf(r.T) ? r.u : r.clock.advance(r.u, dt, r.T_inner, r.Y);
      iters = r.clock.iterations_at(u) - r.clock.iterations_at(r.u);
      syncs = r.clock.syncs_at(u) - r.clock.syncs_at(r.u);
      r.u = u;
    } else {
      iters = dt / r.T;
      syncs = iters;
      r.remaining -= iters;
    }
    JobRates rates{r.T, r.T_nocomm, r.gpus, r.busy_gpu_s_per_iter, r.bytes_per_iter, r.egress_usd_per_iter,
                   r.power_region, r.power_w};
    // DiLoCo: the interval's own mean iteration time, so that its stall (dt − iterations ·
    // T_nocomm) is exact in a part of a cycle too; +inf for an interval without an iteration.
    if (r.diloco) rates.iteration_s = iters > 0 ? dt / iters : kInf;
    rates.checkpointing = r.checkpointing;
    on_record(j, [&](auto& rec) {
      acc_.job_ran(rec, rates, r.last_t, t, iters);
      if (r.replicas > 1) acc_.job_synced(rec, SyncRates{r.sync_egress_usd, r.sync_cross_bytes, r.sync_s}, syncs);
    });
    r.last_t = t;
  }

  // Recompute T_iter and power of job j from its current hop allocations; reschedule its end.
  void update_timing(int j, double t) {
    Running& r = running(j);
    if (r.replicas > 1) return update_timing_dp(j, t);
    const JobProfile& p = profile(j);
    const size_t H = r.hop_lat.size();
    for (size_t h = 0; h < H; ++h) {
      if (r.flow_f[h] < 0) {
        r.bw_f[h] = r.bw_b[h] = topo_.intra_bandwidth_bytes_per_s;
      } else {
        r.bw_f[h] = net_.rate(r.flow_f[h]);
        r.bw_b[h] = net_.rate(r.flow_b[h]);
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
    // A hop whose link is down gets no bandwidth: the job makes no progress (T = +inf) and its
    // GPUs draw idle power until the link returns (docs/model.md, "Time series").
    // A job writing a checkpoint makes no progress and draws idle power too.
    bool down = r.checkpointing;
    for (size_t h = 0; h < H; ++h) down |= r.bw_f[h] <= 0 || r.bw_b[h] <= 0;
    r.T = down ? kInf : schedule_.iteration_time(in, scratch_);
    std::fill(r.power_w.begin(), r.power_w.end(), 0.0);
    for (int i = 0; i < p.stages; ++i) {
      const int reg = r.regions[static_cast<size_t>(i)];
      const double busy = down ? 0.0 : stage_busy_per_iteration_s(p.micro_batches, r.fwd[static_cast<size_t>(i)],
                                                                            p.bwd_per_fwd[static_cast<size_t>(i)]);
      const double w = stage_power_w(p.gpus_per_stage, topo_.regions[static_cast<size_t>(reg)].pue, topo_.gpu_of(reg),
                                     busy, down ? 1.0 : r.T);
      const auto k = static_cast<size_t>(std::find(r.power_region.begin(), r.power_region.end(), reg) - r.power_region.begin());
      r.power_w[k] += w;
    }
    ++r.version;
    r.remaining = std::max(0.0, r.remaining);
    if (!down) heap_.push({t + r.remaining * r.T, j, r.version});
  }

  /// T_iter and power of a running job of D > 1 replicas (docs/model.md, "Data parallelism"):
  /// each replica's pipeline exactly, then each stage's synchronisation over its ring at the
  /// rates its hops get now.
  ///  * allreduce: stage i's all-reduce starts when the last of its replicas' last backwards
  ///    ends; T = max over stages of (that end + its all-reduce) + the optimizer step.
  ///  * diloco: the replicas' inner iterations take T_inner = the slowest replica's iteration;
  ///    every H of them a blocking synchronisation of Y = the slowest stage's all-reduce (all
  ///    stages' rings at once); T (for power and the stall fraction) is the cycle's average
  ///    per iteration, (H·T_inner + Y)/H, and progress follows the cycle (DilocoClock).
  /// A hop or ring hop whose link is down stalls the job (T = +inf).
  void update_timing_dp(int j, double t) {
    Running& r = running(j);
    const JobProfile& p = profile(j);
    const size_t S = static_cast<size_t>(p.stages), D = static_cast<size_t>(r.replicas);
    const size_t H = S - 1;
    bool down = r.checkpointing;
    for (size_t h = 0; h < r.hop_lat.size(); ++h) {
      if (r.flow_f[h] < 0) {
        r.bw_f[h] = r.bw_b[h] = topo_.intra_bandwidth_bytes_per_s;
      } else {
        r.bw_f[h] = net_.rate(r.flow_f[h]);
        r.bw_b[h] = net_.rate(r.flow_b[h]);
      }
      down |= r.bw_f[h] <= 0 || r.bw_b[h] <= 0;
    }
    for (size_t q = 0; q < r.sync_flow.size(); ++q) {
      r.sync_bw[q] = r.sync_flow[q] < 0 ? topo_.intra_bandwidth_bytes_per_s : net_.rate(r.sync_flow[q]);
      down |= r.sync_bw[q] <= 0;
    }
    double T = kInf;
    if (!down) {
      PipelineInput in;
      in.micro_batches = p.micro_batches;
      in.activation_bytes = p.activation_bytes;
      in.optimizer_step_s = sc_.compute.optimizer_step_s;
      double T_inner = 0;
      for (size_t k = 0; k < D; ++k) {
        in.fwd_s = std::span<const double>(r.fwd).subspan(k * S, S);
        in.bwd_s = std::span<const double>(r.bwd).subspan(k * S, S);
        in.hop_fwd_bytes_per_s = std::span<const double>(r.bw_f).subspan(k * H, H);
        in.hop_bwd_bytes_per_s = std::span<const double>(r.bw_b).subspan(k * H, H);
        in.hop_latency_s = std::span<const double>(r.hop_lat).subspan(k * H, H);
        in.hop_bwd_latency_s = std::span<const double>(r.hop_lat_b).subspan(k * H, H);
        in.stage_end_s = std::span<double>(r.stage_end).subspan(k * S, S);
        T_inner = std::max(T_inner, schedule_.iteration_time(in, scratch_));
      }
      double end = 0, sync = 0;
      for (size_t i = 0; i < S; ++i) {
        const auto from = static_cast<size_t>(r.sync_offset[i]);
        const auto n = static_cast<size_t>(r.sync_offset[i + 1]) - from;
        const double ar = sync_time_s(r.rings[i], r.sync_bytes[i], std::span<const double>(r.sync_bw).subspan(from, n),
                                      std::span<const double>(r.sync_lat).subspan(from, n),
                                      topo_.intra_bandwidth_bytes_per_s, topo_.intra_latency_s);
        double last = 0;
        for (size_t k = 0; k < D; ++k) last = std::max(last, r.stage_end[k * S + i]);
        end = std::max(end, last + ar);
        sync = std::max(sync, ar);
      }
      if (r.diloco) {
        r.T_inner = T_inner;
        r.Y = sync;
        const double Hs = static_cast<double>(r.clock.interval);
        T = (Hs * T_inner + sync) / Hs;
        r.sync_s = sync;
      } else {
        T = end + sc_.compute.optimizer_step_s;
        double last = 0;  // the iteration with every all-reduce instantaneous ends here
        for (size_t x = 0; x < D * S; ++x) last = std::max(last, r.stage_end[x]);
        r.sync_s = end - last;
      }
    }
    r.T = T;
    std::fill(r.power_w.begin(), r.power_w.end(), 0.0);
    for (size_t x = 0; x < D * S; ++x) {
      const int reg = r.regions[x];
      const size_t i = x % S;
      const double busy = down ? 0.0 : stage_busy_per_iteration_s(p.micro_batches, r.fwd[x], p.bwd_per_fwd[i]);
      const double w = stage_power_w(p.gpus_per_stage, topo_.regions[static_cast<size_t>(reg)].pue, topo_.gpu_of(reg),
                                     busy, down ? 1.0 : r.T);
      const auto k = static_cast<size_t>(std::find(r.power_region.begin(), r.power_region.end(), reg) - r.power_region.begin());
      r.power_w[k] += w;
    }
    ++r.version;
    if (down) return;
    if (r.diloco) {
      const double left_s = r.clock.time_to(r.U, r.T_inner, r.Y) - r.clock.time_to(r.u, r.T_inner, r.Y);
      heap_.push({t + std::max(0.0, left_s), j, r.version});
    } else {
      r.remaining = std::max(0.0, r.remaining);
      heap_.push({t + r.remaining * r.T, j, r.version});
    }
  }

  /// The synchronisation rings of a job of D > 1 replicas just placed (start()): one per stage
  /// over its replicas' regions (sync_ring), a flow of unbounded demand for each ring hop
  /// between two regions (a bulk transfer takes its max-min share), and the egress of one
  /// synchronisation: each cross-region ring hop sends ring_hop_bytes of the stage's bytes.
  void start_sync(Running& r, const JobProfile& p, int j) {
    const int S = p.stages, D = p.data_parallel, R = topo_.num_regions();
    r.diloco = sc_.compute.dp_sync == DpSync::kDiLoCo;
    r.clock.interval = sc_.compute.diloco_interval;
    r.stage_end.assign(static_cast<size_t>(D * S), 0.0);
    r.sync_offset.push_back(0);
    std::vector<int> replica_region(static_cast<size_t>(D));
    for (int i = 0; i < S; ++i) {
      for (int k = 0; k < D; ++k) replica_region[static_cast<size_t>(k)] = r.regions[static_cast<size_t>(k * S + i)];
      r.rings.push_back(sync_ring(replica_region, sc_.compute.allreduce));
      const SyncRing& ring = r.rings.back();
      const double bytes = p.params[static_cast<size_t>(i)] * sc_.compute.sync_bytes_per_param;
      r.sync_bytes.push_back(bytes);
      const double hop_bytes = ring_hop_bytes(ring.members, bytes);
      for (const RingHop& h : ring.hops) {
        if (h.from == h.to) {
          r.sync_flow.push_back(-1);
          r.sync_lat.push_back(topo_.intra_latency_s);
        } else {
          if (!topo_.connected(h.from, h.to))
            throw std::logic_error("scheduler " + std::string(sched_.name()) + ": replicas of a stage in unconnected regions");
          r.sync_flow.push_back(net_.add_flow(h.from, h.to, kInf, j));
          ++flow_count_[static_cast<size_t>(h.from * R + h.to)];
          r.sync_lat.push_back(topo_.link(h.from, h.to).latency_s);
          r.sync_egress_usd += hop_bytes * topo_.link(h.from, h.to).egress_usd_per_byte;
          r.sync_cross_bytes += hop_bytes;
        }
        r.sync_bw.push_back(0.0);
      }
      r.sync_offset.push_back(static_cast<int>(r.sync_flow.size()));
    }
  }

  /// Starts job j on `pl` at t; the placement moves into the job's record (with SimOptions::record_jobs).
  void start(int j, Placement&& pl, double t) {
    const JobProfile& even = profile(j);
    const int S = even.stages;
    const int D = even.data_parallel;
    if (static_cast<int>(pl.stage_region.size()) != D * S)
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": placement size != replicas × stages");
    for (int reg : pl.stage_region)
      if (reg < 0 || reg >= topo_.num_regions()) throw std::logic_error("scheduler: bad region index");
    // The layer split the job runs with on this placement (sim.layer_partition); replicas share
    // the even one (their stages all-reduce the same layers).
    std::optional<JobProfile> placed;
    if (sc_.compute.layer_partition != LayerPartition::kEven && D == 1)
      placed = placed_profile(even, pl.stage_region, topo_, sc_.compute);
    const JobProfile& p = placed ? *placed : even;
    const bool restart = faults_on_ && jf_[static_cast<size_t>(j)].attempt > 0;
    if (is_running(j) || (!restart && on_record(j, [](const auto& rec) { return rec.start_s >= 0; })))
      throw std::logic_error("scheduler " + std::string(sched_.name()) + ": job started twice");
    if (free_slots_.empty()) {
      free_slots_.push_back(static_cast<int>(slots_.size()));
      slots_.emplace_back();
    }
    slot_of_[static_cast<size_t>(j)] = free_slots_.back();
    free_slots_.pop_back();
    Running& r = running(j);
    r.reset();
    r.regions = pl.stage_region;
    r.replicas = D;
    r.fwd.resize(static_cast<size_t>(D * S));
    r.bwd.resize(static_cast<size_t>(D * S));
    const size_t H = static_cast<size_t>(D * (S - 1));
    r.hop_lat.resize(H);
    r.hop_lat_b.resize(H);
    r.flow_f.assign(H, -1);
    r.flow_b.assign(H, -1);
    r.bw_f.resize(H);
    r.bw_b.resize(H);
    for (int x = 0; x < D * S; ++x) {
      const int i = x % S;  // the stage of replica x / S
      const int reg = pl.stage_region[static_cast<size_t>(x)];
      if (reg < 0 || reg >= topo_.num_regions()) throw std::logic_error("scheduler: bad region index");
      if (!p.stage_fits(i, topo_.gpu_of(reg))) throw std::logic_error("scheduler: stage does not fit GPU memory");
      auto& fr = free_[static_cast<size_t>(reg)];
      fr -= p.gpus_per_stage;
      if (fr < 0) throw std::logic_error("scheduler " + std::string(sched_.name()) + ": over-allocated GPUs");
      r.fwd[static_cast<size_t>(x)] = forward_time(p, i, topo_.gpu_of(reg), sc_.compute);
      r.bwd[static_cast<size_t>(x)] = backward_time(r.fwd[static_cast<size_t>(x)], p.bwd_per_fwd[static_cast<size_t>(i)]);
      r.busy_gpu_s_per_iter += gpu_busy_s_per_iteration(p.gpus_per_stage, p.micro_batches, r.fwd[static_cast<size_t>(x)],
                                                        p.bwd_per_fwd[static_cast<size_t>(i)]);
      if (std::find(r.power_region.begin(), r.power_region.end(), reg) == r.power_region.end()) r.power_region.push_back(reg);
    }
    r.power_w.assign(r.power_region.size(), 0.0);
    const int R = topo_.num_regions();
    for (size_t h = 0; h < H; ++h) {
      // hop i of replica k joins its stages k·S + i and k·S + i + 1
      const size_t x = h / static_cast<size_t>(S - 1) * static_cast<size_t>(S) + h % static_cast<size_t>(S - 1);
      const int a = pl.stage_region[x], b = pl.stage_region[x + 1];
      if (a == b) {
        r.hop_lat[h] = r.hop_lat_b[h] = topo_.intra_latency_s;
        continue;
      }
      if (!topo_.connected(a, b)) throw std::logic_error("scheduler: hop between unconnected regions");
      r.hop_lat[h] = topo_.link(a, b).latency_s;
      r.hop_lat_b[h] = topo_.link(b, a).latency_s;
      const double beta = stall_free_demand_bytes_per_s(p.activation_bytes, r.fwd[x], r.fwd[x + 1]);
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
      if (D == 1) {
        r.T_nocomm = schedule_.iteration_time(in, scratch_);
      } else {
        // the slowest replica without communication; a free synchronisation takes no time
        r.T_nocomm = 0;
        for (int k = 0; k < D; ++k) {
          in.fwd_s = std::span<const double>(r.fwd).subspan(static_cast<size_t>(k * S), static_cast<size_t>(S));
          in.bwd_s = std::span<const double>(r.bwd).subspan(static_cast<size_t>(k * S), static_cast<size_t>(S));
          in.hop_fwd_bytes_per_s = in.hop_bwd_bytes_per_s = std::span<const double>(inf).first(static_cast<size_t>(S - 1));
          in.hop_latency_s = std::span<const double>(zero).first(static_cast<size_t>(S - 1));
          r.T_nocomm = std::max(r.T_nocomm, schedule_.iteration_time(in, scratch_));
        }
      }
    }
    if (D > 1) start_sync(r, p, j);
    r.gpus = D * p.stages * p.gpus_per_stage;
    r.remaining = p.iterations;
    if (r.diloco) r.U = r.clock.total_units(static_cast<double>(jobs_[static_cast<size_t>(j)].iterations));
    r.last_t = t;
    ++running_;
    if (faults_on_) start_attempt(j, r, p, t);
    if (!restart) on_record(j, [&](auto& rec) { rec.start_s = t; });
    pending_start_.push_back(j);
    if (timeline_) timeline_->job_started(t, j, pl.stage_region);
    // The placement and layer split are outputs only (no metric reads them): kept when the
    // records are returned.
    if (opt_.record_jobs) {
      JobRecord& rec = rec_[static_cast<size_t>(j)];
      rec.stage_region = std::move(pl.stage_region);
      rec.layers = p.layers;
    }
  }

  void finish(int j, double t) {
    settle(j, t);
    release(j);
    release_profile(j);
    if (opt_.record_jobs) {
      JobRecord& rec = rec_[static_cast<size_t>(j)];
      rec.finish_s = t;
      rec.mean_iteration_s = (t - rec.start_s) / rec.iterations;
    } else {
      tally_[static_cast<size_t>(j)].finish_s = t;
    }
    if (timeline_) timeline_->job_finished(t, j);
  }

  /// Running job j gives back its GPUs, flows and slot (it finished or failed; settled).
  void release(int j) {
    Running& r = running(j);
    const JobProfile& p = profile(j);
    const int R = topo_.num_regions();
    for (int reg : r.regions) free_[static_cast<size_t>(reg)] += p.gpus_per_stage;
    const size_t S = static_cast<size_t>(p.stages);
    for (size_t h = 0; h < r.flow_f.size(); ++h) {
      if (r.flow_f[h] < 0) continue;
      net_.remove_flow(r.flow_f[h]);
      net_.remove_flow(r.flow_b[h]);
      const size_t x = h / (S - 1) * S + h % (S - 1);
      const int a = r.regions[x], b = r.regions[x + 1];
      --flow_count_[static_cast<size_t>(a * R + b)];
      --flow_count_[static_cast<size_t>(b * R + a)];
    }
    for (size_t s = 0; s < r.rings.size(); ++s)
      for (int q = r.sync_offset[s]; q < r.sync_offset[s + 1]; ++q) {
        const int f = r.sync_flow[static_cast<size_t>(q)];
        if (f < 0) continue;
        net_.remove_flow(f);
        const RingHop& hop = r.rings[s].hops[static_cast<size_t>(q - r.sync_offset[s])];
        --flow_count_[static_cast<size_t>(hop.from * R + hop.to)];
      }
    // The slot goes back to the pool (start() resets it; its vectors keep their storage for the
    // next job: at most one slot per GPU, so memory follows the running jobs).
    free_slots_.push_back(slot_of_[static_cast<size_t>(j)]);
    slot_of_[static_cast<size_t>(j)] = -1;
    --running_;
  }

  // Re-run max-min on changed links; settle and re-time the jobs whose share changed, and
  // time the jobs just started.
  void rebalance(double t) {
    changed_.clear();
    net_.rebalance(changed_);
    for (int j : changed_) {
      if (!is_running(j)) continue;
      Running& r = running(j);
      if (r.T > 0) settle(j, t);
      update_timing(j, t);
    }
    for (int j : pending_start_) {
      Running& r = running(j);
      if (!std::binary_search(changed_.begin(), changed_.end(), j)) update_timing(j, t);
      const bool first = !faults_on_ || jf_[static_cast<size_t>(j)].attempt == 0;
      if (opt_.record_jobs && first) rec_[static_cast<size_t>(j)].first_iteration_s = r.T;
      if (faults_on_) check_segment(j, r, t);
    }
    pending_start_.clear();
  }

  // ---- Failures and checkpoints (docs/model.md, "Failures and checkpoints") ----
  // A running job's attempt has a failure time (Poisson, rate λ, from its own stream) and a
  // checkpoint timer; a failed job waits restart_s holding nothing, then waits in the queue.
  enum class FaultKind : int {
    kFailure = 0,
    kEvicted = 1,          ///< the end of a preemption notice that left no time for a checkpoint
    kCheckpointEnd = 2,
    kPreemptNotice = 3,    ///< spot capacity takes the job's GPUs back after preemption_notice_s
    kCheckpointStart = 4,
    kRestart = 5,
  };
  struct FaultEvent {
    double t;
    int job;
    int attempt;
    FaultKind kind;
    /// (time, job id, kind): a failure before a checkpoint's end at the same time.
    bool operator>(const FaultEvent& o) const {
      if (t != o.t) return t > o.t;
      if (job != o.job) return job > o.job;
      return kind > o.kind;
    }
  };
  /// Per job, while faults act.
  struct JobFaults {
    double resume_remaining = 0;  ///< iterations left at its last completed checkpoint (all before one)
    double resume_u = 0;          ///< DiLoCo: its cycle position there
    long version = 0;             ///< its Running::version when it failed (completions of old attempts stay invalid)
    int attempt = 0;              ///< failures so far
    bool restarting = false;      ///< between a failure and the end of restart_s
  };

  /// A new attempt of job j starts on `r` at t (start()): where it resumes, its rate, checkpoint
  /// cost and interval, and its first fault events.
  void start_attempt(int j, Running& r, const JobProfile& p, double t) {
    JobFaults& f = jf_[static_cast<size_t>(j)];
    r.version = f.version;
    r.remaining = f.resume_remaining;
    if (r.diloco) r.u = f.resume_u;
    if (f.attempt > 0) {
      acc_.job_restarted();
      if (opt_.record_jobs) ++rec_[static_cast<size_t>(j)].restarts;
    }
    const FaultParams& fp = sc_.faults;
    r.lambda = failure_rate_per_s(r.regions, p.gpus_per_stage, topo_);
    r.ckpt_cost_s = fp.checkpoint_cost_s ? *fp.checkpoint_cost_s
                                         : checkpoint_cost_auto_s(p.params, r.regions, fp.checkpoint_bytes_per_param, topo_);
    r.ckpt_every_s = fp.checkpoint_interval_s ? *fp.checkpoint_interval_s
                                              : young_daly_interval_s(r.ckpt_cost_s, r.lambda > 0 ? 1.0 / r.lambda : kInf);
    r.segment_start_s = t;
    if (r.lambda > 0) {
      Rng rng(derive_stream_seed(fault_seed_, (static_cast<std::uint64_t>(j) << 32) | static_cast<std::uint32_t>(f.attempt)));
      faults_.push({t - std::log(rng.uniform_pos()) / r.lambda, j, f.attempt, FaultKind::kFailure});
    }
    if (std::isfinite(r.ckpt_every_s)) faults_.push({t + r.ckpt_every_s, j, f.attempt, FaultKind::kCheckpointStart});
    r.lambda_spot = preemption_rate_per_s(r.regions, p.gpus_per_stage, topo_);
    if (r.lambda_spot > 0) {
      Rng rng(derive_stream_seed(spot_seed_, (static_cast<std::uint64_t>(j) << 32) | static_cast<std::uint32_t>(f.attempt)));
      faults_.push({t - std::log(rng.uniform_pos()) / r.lambda_spot, j, f.attempt, FaultKind::kPreemptNotice});
    }
  }

  /// A job just timed at its start: refuses an attempt that expects more than
  /// kMaxExpectedFailuresPerSegment failures before its next checkpoint (or its end), which
  /// would practically never finish.
  void check_segment(int j, const Running& r, double t) const {
    // Preemptions lose work too when no checkpoint fits in their notice.
    const double lambda = r.lambda + (r.ckpt_cost_s > sc_.faults.preemption_notice_s ? r.lambda_spot : 0.0);
    if (lambda <= 0 || std::isinf(r.T)) return;
    const double left_s = r.diloco ? r.clock.time_to(r.U, r.T_inner, r.Y) - r.clock.time_to(r.u, r.T_inner, r.Y)
                                   : r.remaining * r.T;
    const double x = std::min(r.ckpt_every_s + r.ckpt_cost_s, left_s);
    const double expected = std::expm1(lambda * x);
    if (!(expected > kMaxExpectedFailuresPerSegment)) return;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "job %d, started at t = %s on %d GPUs (a failure every %s), needs %s of work before its next "
                  "checkpoint or its end and would expect %.3g failures before it got there",
                  j, format_seconds(t).c_str(), r.gpus, format_seconds(1.0 / lambda).c_str(), format_seconds(x).c_str(),
                  expected);
    throw InputError(sc_.source_path, 0, 0,
                     std::string(buf) + " (expected at most " + std::to_string(static_cast<long>(kMaxExpectedFailuresPerSegment)) +
                         ": a longer faults.gpu_mtbf_h or spot_mtbp_h, or checkpoints: faults.checkpoint_interval_s)");
  }

  bool fault_valid(const FaultEvent& e) const {
    const JobFaults& f = jf_[static_cast<size_t>(e.job)];
    if (f.attempt != e.attempt) return false;
    if (e.kind == FaultKind::kRestart) return f.restarting;
    if (!is_running(e.job)) return false;
    const Running& r = slots_[static_cast<size_t>(slot_of_[static_cast<size_t>(e.job)])];
    switch (e.kind) {
      case FaultKind::kCheckpointStart: return !r.checkpointing && !r.evicting;
      case FaultKind::kCheckpointEnd: return r.checkpointing;
      case FaultKind::kPreemptNotice: return !r.evicting;
      case FaultKind::kEvicted: return r.evicting;
      default: return true;
    }
  }

  void checkpoint_starts(int j, double t) {
    settle(j, t);
    Running& r = running(j);
    r.checkpointing = true;
    r.ckpt_end_s = t + r.ckpt_cost_s;
    update_timing(j, t);  // no progress, idle power; its completion is withdrawn
    faults_.push({r.ckpt_end_s, j, jf_[static_cast<size_t>(j)].attempt, FaultKind::kCheckpointEnd});
  }

  void checkpoint_ends(int j, double t) {
    settle(j, t);
    Running& r = running(j);
    JobFaults& f = jf_[static_cast<size_t>(j)];
    const double gpu_s = r.gpus * r.ckpt_cost_s;
    acc_.checkpoint_written(gpu_s);
    if (opt_.record_jobs) rec_[static_cast<size_t>(j)].checkpoint_gpu_hours += gpu_s / units::kSecondsPerHour;
    if (timeline_) timeline_->job_mark(t, j, TimelineMark::Kind::kCheckpoint, r.ckpt_cost_s);
    f.resume_remaining = r.remaining;
    f.resume_u = r.u;
    r.segment_start_s = t;
    r.checkpointing = false;
    if (r.evicting) return job_stops(j, t, /*failed=*/false);  // it saved all it did within its notice
    update_timing(j, t);
    if (std::isfinite(r.ckpt_every_s)) faults_.push({t + r.ckpt_every_s, j, f.attempt, FaultKind::kCheckpointStart});
  }

  /// Spot capacity preempts job j at t: it gets preemption_notice_s. If a checkpoint fits in
  /// it (or the one it writes ends within it) it saves its work and leaves at the checkpoint's
  /// end; otherwise it trains on and loses its work since its last checkpoint at the end of the
  /// notice. Either way it then restarts as after a failure.
  void preempt_notice(int j, double t, double notice) {
    Running& r = running(j);
    r.evicting = true;
    acc_.job_preempted();
    if (opt_.record_jobs) ++rec_[static_cast<size_t>(j)].preemptions;
    const int attempt = jf_[static_cast<size_t>(j)].attempt;
    if (r.checkpointing) {
      if (r.ckpt_end_s > t + notice) faults_.push({t + notice, j, attempt, FaultKind::kEvicted});
    } else if (r.ckpt_cost_s <= notice) {
      checkpoint_starts(j, t);
    } else {
      faults_.push({t + notice, j, attempt, FaultKind::kEvicted});
    }
  }

  /// Job j stops at t, failed or evicted (a preemption's end): it loses its work since its last
  /// completed checkpoint, gives back its GPUs and links, and waits restart_s before it waits
  /// in the queue again.
  void job_stops(int j, double t, bool failed) {
    settle(j, t);
    Running& r = running(j);
    JobFaults& f = jf_[static_cast<size_t>(j)];
    const double lost_gpu_s = r.gpus * (t - r.segment_start_s);
    acc_.job_lost(lost_gpu_s, failed);
    if (opt_.record_jobs) {
      JobRecord& rec = rec_[static_cast<size_t>(j)];
      if (failed) ++rec.failures;
      rec.lost_gpu_hours += lost_gpu_s / units::kSecondsPerHour;
    }
    f.version = r.version + 1;
    release(j);
    ++f.attempt;
    f.restarting = true;
    ++restarting_;
    if (timeline_) timeline_->job_failed(t, j, failed);
    faults_.push({t + sc_.faults.restart_s, j, f.attempt, FaultKind::kRestart});
  }

  /// Failed or preempted job j waits again: the scheduler sees what is left of it (its
  /// profile's iterations, which its estimates and priorities read), not its whole length. A
  /// DiLoCo job keeps its whole length (its progress is a cycle position).
  void job_restarts(int j) {
    const JobFaults& f = jf_[static_cast<size_t>(j)];
    jf_[static_cast<size_t>(j)].restarting = false;
    --restarting_;
    if (!(sc_.compute.dp_sync == DpSync::kDiLoCo && profile(j).data_parallel > 1))
      profile_pool_[static_cast<size_t>(profile_slot_[static_cast<size_t>(j)])].iterations = f.resume_remaining;
    queue_.insert(j);
  }

  void build_view(double t) {
    view_.topo = &topo_;
    view_.compute = &sc_.compute;
    view_.now_s = t;
    view_.free_gpus = free_;
    view_.total_free = 0;
    for (int f : free_) view_.total_free += f;
    view_.flows = flow_count_;
    if (has_link_series_) {
      view_.capacity = net_.capacities();
      view_.capacity_version = capacity_version_;
    }
    bool changed = false;
    view_.residual = monitor_.view_for_call(net_.residuals(), changed);
    if (changed) ++epoch_;
    view_.epoch = epoch_;
  }

  // The run needs more than opt_.max_events event times: an InputError that names the source
  // of most of them (ties: the first in list order) and what makes it produce fewer.
  [[noreturn]] void event_budget_exhausted(double t) const {
    const EventSource* most = sources_.front().get();
    for (const auto& src : sources_)
      if (src->events > most->events) most = src.get();
    const double share = 100.0 * static_cast<double>(most->events) / static_cast<double>(events_);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f", share);
    throw InputError(sc_.source_path, 0, 0,
                     "the simulation needs more than " + std::to_string(opt_.max_events) +
                         " event times (simulated time " + format_seconds(t) + "; " + pct + " % of them " +
                         most->what() + "; expected a scenario whose jobs finish in a bounded time: " +
                         most->fewer() + ")");
  }

  // Called when nothing runs, nothing will arrive and jobs wait, after this event's scheduler
  // call: throws SimulationFailure if no later measurement can change the view the scheduler
  // failed on, or if it failed on opt_.max_idle_measurements measurements of the idle network.
  void check_progress(double t) {
    for (const auto& src : sources_)
      if (src->may_unblock_later()) return;  // e.g. a link that is down now comes back
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
    // Preemptions first (a checkpoint, then the GPUs come back: not within this call).
    bool starts = false;
    for (const Decision& d : decisions_) {
      if (!d.preempt) {
        starts = true;
        continue;
      }
      if (!sched_.preempts())
        throw std::logic_error("scheduler " + std::string(sched_.name()) + ": a preemption, but preempts() is false");
      if (d.job < 0 || d.job >= static_cast<int>(jobs_.size()) || !is_running(d.job) || running(d.job).evicting)
        throw std::logic_error("scheduler " + std::string(sched_.name()) + ": preempted a job that is not running");
      preempt_notice(d.job, t, kInf);  // no deadline: its checkpoint always completes
    }
    if (!starts) return;
    for (Decision& d : decisions_) {
      if (d.preempt) continue;
      if (d.job < 0 || d.job >= static_cast<int>(jobs_.size()) || profile_slot_[static_cast<size_t>(d.job)] < 0)
        throw std::logic_error("scheduler " + std::string(sched_.name()) + ": started a job that is not waiting");
      become_variant(d.job, d.variant);
      start(d.job, std::move(d.placement), t);
    }
    // Started jobs leave the queue (amortised O(log n) each, arrival order kept).
    for (const Decision& d : decisions_)
      if (!d.preempt) queue_.erase(d.job);
    rebalance(t);
  }

  const Scenario& sc_;
  const Topology& topo_;
  const std::vector<Job>& jobs_;
  Scheduler& sched_;
  SimOptions opt_;
  NetworkState net_;
  BandwidthMonitor monitor_;
  std::vector<JobProfile> shape_profiles_;  ///< per job shape (shapes_)
  /// Flexible shapes (SchedContext::variants, variant_shape): empty when no job is flexible.
  std::vector<std::vector<JobProfile>> variants_;
  std::vector<int> variant_shape_;
  int next_variant_shape_ = 0;
  /// The waiting and running jobs' profiles (SchedContext::profile_slot): at most one per
  /// such job, reused.
  std::vector<JobProfile> profile_pool_;
  std::vector<int> profile_slot_, free_profiles_;
  std::vector<int> shapes_;
  /// Per job: its slot in slots_ while it runs, else -1. The slots hold the running jobs' state
  /// (reused: memory follows the number of running jobs, at most the GPUs, not the jobs).
  std::vector<int> slot_of_;
  std::vector<Running> slots_;
  std::vector<int> free_slots_;
  /// Per job, by id: its record with SimOptions::record_jobs (returned as SimResult::jobs), else
  /// only what the metrics need (the other stays empty).
  std::vector<JobRecord> rec_;
  std::vector<JobTally> tally_;
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
  long capacity_version_ = 0;  ///< steps of capacity series that changed a capacity so far
  int running_ = 0;
  std::uint64_t events_ = 0;  ///< event times processed (bounded by opt_.max_events)
  bool has_profiles_ = false;
  bool has_link_series_ = false;
  size_t next_arrival_ = 0;           ///< first job not yet arrived
  double series_limit_s_ = kInf;      ///< error_limit_of_series
  std::vector<std::unique_ptr<EventSource>> sources_;  ///< in processing order (make_sources)
  const PipelineSchedule& schedule_ = sc_.compute.schedule();
  PipelineScratch scratch_;
  std::vector<double> inf_buf_, zero_buf_;
  MetricsAccumulator acc_;
  std::optional<TimelineRecorder> timeline_;  ///< only if opt_.record_timeline
  // Faults: on only when a region fails or checkpoints have a fixed interval (constructor).
  bool faults_on_ = false;
  std::uint64_t fault_seed_ = 0;  ///< the "faults" stream; attempt k of job j draws from its stream (j, k)
  std::uint64_t spot_seed_ = 0;   ///< the "spot" stream, likewise for preemptions
  std::vector<JobFaults> jf_;     ///< per job (faults_on_ only)
  std::priority_queue<FaultEvent, std::vector<FaultEvent>, std::greater<>> faults_;
  int restarting_ = 0;            ///< failed jobs within their restart_s
};

// Completions in (time, job id) order; a completion frees GPUs and links (a new epoch).
class CompletionSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    while (!e_.heap_.empty() && !e_.valid(e_.heap_.top())) e_.heap_.pop();
    return e_.heap_.empty() ? kInf : e_.heap_.top().t;
  }
  Fired fire(double t) override {
    bool released = false;
    while (!e_.heap_.empty()) {
      if (!e_.valid(e_.heap_.top())) {
        e_.heap_.pop();
        continue;
      }
      if (e_.heap_.top().t > t) break;
      const int j = e_.heap_.top().job;
      e_.heap_.pop();
      e_.finish(j, t);
      released = true;
    }
    return {released, released};
  }
  std::string what() const override { return "were job completions"; }
  std::string fewer() const override { return "fewer jobs"; }
};

// Arrivals in job id order (the trace is sorted by arrival).
class ArrivalSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    return e_.next_arrival_ < e_.jobs_.size() ? e_.jobs_[e_.next_arrival_].arrival_s : kInf;
  }
  Fired fire(double t) override {
    bool arrived = false;
    while (e_.next_arrival_ < e_.jobs_.size() && e_.jobs_[e_.next_arrival_].arrival_s <= t) {
      e_.acquire_profile(static_cast<int>(e_.next_arrival_));
      e_.queue_.push_back(static_cast<int>(e_.next_arrival_++));
      arrived = true;
    }
    return {arrived, false};
  }
  std::string what() const override { return "were job arrivals"; }
  std::string fewer() const override { return "fewer jobs"; }
};

// Boundaries of non-flat price profiles (hours, or a series' steps): events only while jobs
// wait or will arrive, since they change decisions, not progress (cost integrates exactly).
class PriceSource final : public EventSource {
 public:
  explicit PriceSource(Engine& e) : EventSource(e), next_(e.next_price_change(0.0)) {}
  double next_s() override {
    const bool waiting_matters = !e_.queue_.empty() || e_.next_arrival_ < e_.jobs_.size();
    return waiting_matters ? next_ : kInf;
  }
  Fired fire(double t) override {
    if (t < next_) return {};
    next_ = e_.next_price_change(t);
    return {true, false};
  }
  std::string what() const override {
    return "were price steps (hour boundaries of a price profile, or a price series' steps) while jobs waited";
  }
  std::string fewer() const override {
    return "a flat price or a coarser price series, or jobs that wait less (shorter or fewer jobs, more GPUs)";
  }

 private:
  double next_;
};

// Steps of link capacity series (model/topology.h Link::capacity_series): each re-shares its
// link and starts a new epoch: after a rise a placement that failed may fit, after a fall a
// policy's relaxations may allow what they did not (ClusterView::capacity_version).
class LinkCapacitySource final : public EventSource {
 public:
  explicit LinkCapacitySource(Engine& e) : EventSource(e) {
    const int R = e.topo_.num_regions();
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < R; ++b)
        if (a != b) {
          const StepSeries* s = e.topo_.link(a, b).capacity_series.get();
          if (!s) continue;
          const int k = static_cast<int>(cursors_.size());
          cursors_.emplace_back(*s);
          links_.push_back(a * R + b);
          const double nx = cursors_.back().next_change_s();
          if (nx < kInf) due_.push({nx, k});
        }
  }
  // Steps matter while a job runs, waits or will arrive; past the last job nothing needs them
  // (a wrapped series has steps for ever), and fire() catches up with the value at t.
  double next_s() override {
    const bool matters = e_.running_ > 0 || !e_.queue_.empty() || e_.next_arrival_ < e_.jobs_.size();
    return matters && !due_.empty() ? due_.top().t : kInf;
  }
  Fired fire(double t) override {
    Fired f;
    const int R = e_.topo_.num_regions();
    while (!due_.empty() && due_.top().t <= t) {
      const int k = due_.top().series;
      due_.pop();
      const int a = links_[static_cast<size_t>(k)] / R, b = links_[static_cast<size_t>(k)] % R;
      StepSeries::Cursor& c = cursors_[static_cast<size_t>(k)];
      c.advance_to(t);  // its steps in (last fire, t]: the value at t, no search
      const double now = e_.net_.capacity(a, b), next = c.value();
      if (next != now) {
        e_.net_.set_capacity(a, b, next);
        f.call = true;
        f.epoch = true;
        ++e_.capacity_version_;
      }
      const double nx = c.next_change_s();
      if (nx < kInf) due_.push({nx, k});
    }
    return f;
  }
  bool may_unblock_later() const override { return !due_.empty(); }
  std::string what() const override { return "were steps of link capacity series (bandwidth_trace)"; }
  std::string fewer() const override {
    return "a coarser bandwidth series (fewer steps), or jobs that finish sooner (shorter or fewer jobs, faster "
           "links)";
  }

 private:
  struct Due {
    double t;
    int series;  ///< index into cursors_ (link index order: ties by link a * R + b)
    bool operator>(const Due& o) const { return t > o.t || (t == o.t && series > o.series); }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::vector<StepSeries::Cursor> cursors_;  ///< one per direction with a series, in link index order
  std::vector<int> links_;                   ///< its direction a * R + b
};

// The scheduler's bandwidth monitor (sim/bandwidth_monitor.h): its ticks are events only while
// jobs wait (otherwise no decision needs them, and before() takes the latest one lazily); it
// observes the links after they were re-shared.
//
// A stale monitor without noise whose view equals the truth skips its ticks until the link
// state changes (SimOptions::skip_quiet_monitor_ticks): each would measure the same truth and
// change nothing, and the next event's before() takes the latest of them lazily.
class MonitorSource final : public EventSource {
 public:
  using EventSource::EventSource;
  Phase phase() const override { return Phase::kObserve; }
  double next_s() override {
    if (e_.queue_.empty()) return kInf;
    if (e_.opt_.skip_quiet_monitor_ticks && !e_.monitor_.may_change(e_.net_.residuals())) return kInf;
    return e_.monitor_.next_tick_s();
  }
  void before(double t) override {
    if (e_.monitor_.catch_up(t, e_.net_.residuals())) ++e_.epoch_;
  }
  Fired fire(double t) override {
    const BandwidthMonitor::Tick tick = e_.monitor_.tick(t, e_.net_.residuals());
    return {tick.call, tick.view_changed};
  }
  std::string what() const override {
    const SchedulerParams& p = e_.sc_.scheduler;
    const bool stale = p.view_staleness_s > 0;
    return std::string("were ticks of the scheduler's bandwidth monitor while jobs waited (every ") +
           format_seconds(stale ? p.view_staleness_s : p.view_refresh_s) + ", scheduler." +
           (stale ? "view_staleness_s" : "view_refresh_s") + ")";
  }
  std::string fewer() const override {
    return std::string("a longer scheduler.") +
           (e_.sc_.scheduler.view_staleness_s > 0 ? "view_staleness_s" : "view_refresh_s") +
           ", or jobs that wait less (shorter or fewer jobs, more GPUs)";
  }
};

// Failures, checkpoints and restarts (docs/model.md, "Failures and checkpoints"), in (time,
// job id, kind) order: a failure frees GPUs (a new epoch, the scheduler is called), a restart
// puts the job back in the queue (the scheduler is called).
class FaultSource final : public EventSource {
 public:
  using EventSource::EventSource;
  double next_s() override {
    while (!e_.faults_.empty() && !e_.fault_valid(e_.faults_.top())) e_.faults_.pop();
    return e_.faults_.empty() ? kInf : e_.faults_.top().t;
  }
  Fired fire(double t) override {
    Fired f;
    while (!e_.faults_.empty()) {
      const Engine::FaultEvent ev = e_.faults_.top();
      if (!e_.fault_valid(ev)) {
        e_.faults_.pop();
        continue;
      }
      if (ev.t > t) break;
      e_.faults_.pop();
      switch (ev.kind) {
        case Engine::FaultKind::kFailure:
          e_.job_stops(ev.job, t, /*failed=*/true);
          f.call = f.epoch = true;
          break;
        case Engine::FaultKind::kEvicted:
          e_.job_stops(ev.job, t, /*failed=*/false);
          f.call = f.epoch = true;
          break;
        case Engine::FaultKind::kPreemptNotice: e_.preempt_notice(ev.job, t, e_.sc_.faults.preemption_notice_s); break;
        case Engine::FaultKind::kCheckpointStart: e_.checkpoint_starts(ev.job, t); break;
        case Engine::FaultKind::kCheckpointEnd:
          // The end of a checkpoint under a preemption notice releases the job's GPUs.
          if (e_.running(ev.job).evicting) f.call = f.epoch = true;
          e_.checkpoint_ends(ev.job, t);
          break;
        case Engine::FaultKind::kRestart:
          e_.job_restarts(ev.job);
          f.call = true;
          break;
      }
    }
    return f;
  }
  bool may_unblock_later() const override { return e_.restarting_ > 0; }
  std::string what() const override { return "were failures, checkpoints and restarts of jobs"; }
  std::string fewer() const override {
    return "a longer faults.gpu_mtbf_h or faults.checkpoint_interval_s, or jobs that finish sooner";
  }
};

void Engine::make_sources() {
  sources_.push_back(std::make_unique<CompletionSource>(*this));
  if (faults_on_) sources_.push_back(std::make_unique<FaultSource>(*this));
  sources_.push_back(std::make_unique<ArrivalSource>(*this));
  if (has_profiles_ && opt_.price_events) sources_.push_back(std::make_unique<PriceSource>(*this));
  for (const Link& l : topo_.links) has_link_series_ |= l.capacity_series != nullptr;
  if (has_link_series_) sources_.push_back(std::make_unique<LinkCapacitySource>(*this));
  sources_.push_back(std::make_unique<MonitorSource>(*this));
}

Engine::~Engine() = default;

}  // namespace

SimResult simulate(const Scenario& scenario, const std::vector<Job>& jobs, Scheduler& scheduler,
                   std::uint64_t seed, const SimOptions& options) {
  // `wall_s` is the whole simulation: building the engine (a profile per job shape, the event
  // sources), the event loop, the final metrics (JCT percentiles) and releasing the engine.
  const auto wall0 = std::chrono::steady_clock::now();
  SimResult res;
  {
    Engine e(scenario, jobs, scheduler, seed, options);
    res = e.run();
  }
  res.metrics.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace geopipe
