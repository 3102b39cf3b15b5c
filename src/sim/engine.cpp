#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/engine.h"
#include "sim/engine_impl.h"

namespace geopipe {
namespace engine_detail {

std::string format_seconds(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", t);
  return buf;
}

Engine::Engine(const Scenario& sc, const std::vector<Job>& jobs, Scheduler& sched, std::uint64_t seed, const SimOptions& opt) : sc_(sc), topo_(sc.topology), jobs_(jobs), sched_(sched), opt_(opt), net_(sc.topology),
      monitor_(sc.scheduler, sc.topology.num_regions(), seed), acc_(sc.topology, sc.compute.layer_partition != LayerPartition::kBalanced) {
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
  avail_.resize(static_cast<size_t>(R));
  for (int r = 0; r < R; ++r) {
    const Region& reg = topo_.regions[static_cast<size_t>(r)];
    // A spot availability series: the GPUs it has at 0 (GpuCapacitySource follows its steps).
    avail_[static_cast<size_t>(r)] = reg.gpus_series ? static_cast<int>(reg.gpus_series->value_at(0)) : reg.gpu_count;
    free_[static_cast<size_t>(r)] = avail_[static_cast<size_t>(r)];
    has_gpu_series_ |= reg.gpus_series != nullptr;
  }
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
  preempting_ = sched.preempts();
  if (preempting_) {
    service_.resize(n);
    for (size_t i = 0; i < n; ++i) service_[i].queued_since_s = jobs[i].arrival_s;
    ctx_.running = &running_info_;
    ctx_.service = &service_;
  }
  // Migration acts where a link can go down: on a capacity series.
  bool link_series = false;
  for (const Link& l : topo_.links) link_series |= l.capacity_series != nullptr;
  faults_on_ |= sc.faults.migrate_after_s && link_series;
  migrate_on_ = faults_on_ && sc.faults.migrate_after_s.has_value();
  if (faults_on_) {
    fault_seed_ = derive_seed(seed, "faults");
    spot_seed_ = derive_seed(seed, "spot");
    jf_.resize(n);
    for (size_t i = 0; i < n; ++i) jf_[i].resume_remaining = static_cast<double>(jobs[i].iterations);
  }
  make_sources();
}

SimResult Engine::run() {
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
    if (timeline_) {
      // The timeline's busy GPUs are gpu_count − free: GPUs a series takes away are not busy.
      if (has_gpu_series_) {
        tl_free_ = free_;
        for (size_t r = 0; r < tl_free_.size(); ++r) tl_free_[r] += topo_.regions[r].gpu_count - avail_[r];
      }
      timeline_->sample(t, has_gpu_series_ ? tl_free_ : free_, net_.capacities(), net_.residuals(), queue_.size());
    }
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

double Engine::error_limit_of_series(const Topology& topo) {
  double lim = kInf;
  auto take = [&](const StepSeries* s) {
    if (s && s->end() == SeriesEnd::kError) lim = std::min(lim, s->end_s());
  };
  for (const auto& reg : topo.regions) {
    take(reg.price.step_series());
    take(reg.carbon_series.get());
    take(reg.gpus_series.get());
  }
  for (const auto& l : topo.links) take(l.capacity_series.get());
  return lim;
}

void Engine::series_ended(double t) const {
  throw InputError(sc_.source_path, 0, 0,
                   "the simulation reaches t = " + format_seconds(t) + " but a time series of the scenario ends at " +
                       format_seconds(series_limit_s_) +
                       " (sim.series_end = \"error\"; set it to \"hold\" or \"wrap\", or give a longer series)");
}

void Engine::add_variants(const Job& job, size_t k, const LlmSpec& llm) {
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

void Engine::become_variant(int j, int k) {
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

void Engine::acquire_profile(int j) {
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

void Engine::release_profile(int j) {
  free_profiles_.push_back(profile_slot_[static_cast<size_t>(j)]);
  profile_slot_[static_cast<size_t>(j)] = -1;
}

double Engine::next_price_change(double t) const {
  double nx = kInf;
  for (const auto& reg : topo_.regions) nx = std::min(nx, reg.price.next_change_after(t));
  return nx;
}

void Engine::settle(int j, double t) {
  Running& r = running(j);
  const double dt = t - r.last_t;
  if (dt <= 0) return;
  double iters, syncs;
  if (r.restoring)  // its shards cross their links; the job itself does not move (T = +inf)
    for (size_t k = 0; k < r.restore_left.size(); ++k)
      r.restore_left[k] = std::max(0.0, r.restore_left[k] - r.restore_rate[k] * dt);
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
  rates.checkpointing = r.checkpointing || r.restoring;
  on_record(j, [&](auto& rec) {
    acc_.job_ran(rec, rates, r.last_t, t, iters);
    if (r.replicas > 1) acc_.job_synced(rec, SyncRates{r.sync_egress_usd, r.sync_cross_bytes, r.sync_s}, syncs);
  });
  r.last_t = t;
}

void Engine::update_timing(int j, double t) {
  Running& r = running(j);
  if (r.restoring) return restore_timing(j, t);
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
  bool link_down = false;
  for (size_t h = 0; h < H; ++h) link_down |= r.bw_f[h] <= 0 || r.bw_b[h] <= 0;
  if (migrate_on_ && !r.checkpointing) note_stall(j, r, link_down, t);
  const bool down = r.checkpointing || link_down;
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

void Engine::update_timing_dp(int j, double t) {
  Running& r = running(j);
  const JobProfile& p = profile(j);
  const size_t S = static_cast<size_t>(p.stages), D = static_cast<size_t>(r.replicas);
  const size_t H = S - 1;
  bool link_down = false;
  for (size_t h = 0; h < r.hop_lat.size(); ++h) {
    if (r.flow_f[h] < 0) {
      r.bw_f[h] = r.bw_b[h] = topo_.intra_bandwidth_bytes_per_s;
    } else {
      r.bw_f[h] = net_.rate(r.flow_f[h]);
      r.bw_b[h] = net_.rate(r.flow_b[h]);
    }
    link_down |= r.bw_f[h] <= 0 || r.bw_b[h] <= 0;
  }
  for (size_t q = 0; q < r.sync_flow.size(); ++q) {
    r.sync_bw[q] = r.sync_flow[q] < 0 ? topo_.intra_bandwidth_bytes_per_s : net_.rate(r.sync_flow[q]);
    link_down |= r.sync_bw[q] <= 0;
  }
  if (migrate_on_ && !r.checkpointing) note_stall(j, r, link_down, t);
  const bool down = r.checkpointing || link_down;
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

void Engine::start_sync(Running& r, const JobProfile& p, int j) {
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

void Engine::start(int j, Placement&& pl, double t) {
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
  r.job = j;
  r.attempt_start_s = t;
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
  if (!restart) {
    const double alone = alone_s(j, even);
    on_record(j, [&](auto& rec) {
      rec.start_s = t;
      rec.gpus = r.gpus;
      rec.alone_s = alone;
    });
  }
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

double Engine::alone_s(int j, const JobProfile& p) {
  // A fixed job's shape gives its ideal iteration time (a flexible job's depends on its variant).
  const auto shape = static_cast<size_t>(shapes_[static_cast<size_t>(j)]);
  const bool fixed = ctx_.variants_of(j).empty();
  if (fixed && shape < ideal_by_shape_.size() && !std::isnan(ideal_by_shape_[shape]))
    return static_cast<double>(jobs_[static_cast<size_t>(j)].iterations) * ideal_by_shape_[shape];
  const double best = fastest_ideal_iteration(p, topo_, sc_.compute).iteration_s;
  if (fixed) {
    if (ideal_by_shape_.size() <= shape) ideal_by_shape_.resize(shape + 1, std::numeric_limits<double>::quiet_NaN());
    ideal_by_shape_[shape] = best;
  }
  return static_cast<double>(jobs_[static_cast<size_t>(j)].iterations) * best;
}

void Engine::finish(int j, double t) {
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

void Engine::release(int j) {
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
  for (size_t k = 0; k < r.restore_flow.size(); ++k) {  // a restore under way
    net_.remove_flow(r.restore_flow[k]);
    --flow_count_[static_cast<size_t>(r.restore_pair[k])];
  }
  // The slot goes back to the pool (start() resets it; its vectors keep their storage for the
  // next job: at most one slot per GPU, so memory follows the running jobs).
  free_slots_.push_back(slot_of_[static_cast<size_t>(j)]);
  slot_of_[static_cast<size_t>(j)] = -1;
  --running_;
}

void Engine::rebalance(double t) {
  changed_.clear();
  net_.rebalance(changed_);
  for (int j : changed_) {
    if (!is_running(j)) continue;
    Running& r = running(j);
    if (r.T > 0) settle(j, t);
    update_timing(j, t);
  }
  for (int j : pending_start_) {
    if (!is_running(j)) continue;  // a job whose restore ended failed at the same time
    Running& r = running(j);
    if (!std::binary_search(changed_.begin(), changed_.end(), j)) update_timing(j, t);
    const bool first = !faults_on_ || jf_[static_cast<size_t>(j)].attempt == 0;
    if (opt_.record_jobs && first) rec_[static_cast<size_t>(j)].first_iteration_s = r.T;
    if (faults_on_) check_segment(j, r, t);
  }
  pending_start_.clear();
}

void Engine::build_view(double t) {
  view_.topo = &topo_;
  view_.compute = &sc_.compute;
  view_.now_s = t;
  view_.free_gpus = free_;
  if (has_gpu_series_)
    for (size_t r = 0; r < free_.size(); ++r) view_.free_gpus[r] = visible_free(static_cast<int>(r));
  view_.total_free = 0;
  for (int f : view_.free_gpus) view_.total_free += f;
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

void Engine::event_budget_exhausted(double t) const {
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

void Engine::check_progress(double t) {
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
  // Spot availability series that ended below the regions' GPUs (sim.series_end = "hold"): the
  // input, not the scheduler, leaves too few GPUs.
  std::string cause = "a scheduler bug";
  for (size_t r = 0; r < avail_.size(); ++r)
    if (avail_[r] < topo_.regions[r].gpu_count) {
      cause = "region '" + topo_.regions[r].name + "' has " + std::to_string(avail_[r]) + " of its " +
              std::to_string(topo_.regions[r].gpu_count) + " GPUs at the end of its gpus_series: a scheduler bug, or " +
              "spot capacity that never returns (end the series with more GPUs, or wrap it)";
      break;
    }
  throw SimulationFailure("scheduler '" + std::string(sched_.name()) + "' left " + std::to_string(queue_.size()) +
                          " job" + (queue_.size() == 1 ? "" : "s") + " waiting on an idle cluster at t = " +
                          format_seconds(t) + " (the first is job " + std::to_string(queue_.front()) + "; " + why +
                          "; " + cause + ")");
}

void Engine::call_scheduler(double t) {
  build_view(t);
  if (preempting_) fill_running(t);
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

Engine::~Engine() = default;

}  // namespace engine_detail

SimResult simulate(const Scenario& scenario, const std::vector<Job>& jobs, Scheduler& scheduler,
                   std::uint64_t seed, const SimOptions& options) {
  // `wall_s` is the whole simulation: building the engine (a profile per job shape, the event
  // sources), the event loop, the final metrics (JCT percentiles) and releasing the engine.
  const auto wall0 = std::chrono::steady_clock::now();
  SimResult res;
  {
    engine_detail::Engine e(scenario, jobs, scheduler, seed, options);
    res = e.run();
  }
  res.metrics.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace geopipe
