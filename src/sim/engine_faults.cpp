// Failures, checkpoints, preemptions and restarts of running jobs (docs/model.md, "Failures and
// checkpoints"): the Engine's members that act on them (sim/engine_impl.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/engine_impl.h"

namespace geopipe::engine_detail {

void Engine::start_attempt(int j, Running& r, const JobProfile& p, double t) {
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
  // A regional checkpoint away from the new stages is moved first; checkpoints count from the
  // restore's end (restore_ends).
  if (fp.checkpoint_regional && !f.ckpt_regions.empty()) begin_restore(j, r, p, t);
  if (std::isfinite(r.ckpt_every_s) && !r.restoring)
    faults_.push({t + r.ckpt_every_s, j, f.attempt, FaultKind::kCheckpointStart});
  r.lambda_spot = preemption_rate_per_s(r.regions, p.gpus_per_stage, topo_);
  if (r.lambda_spot > 0) {
    Rng rng(derive_stream_seed(spot_seed_, (static_cast<std::uint64_t>(j) << 32) | static_cast<std::uint32_t>(f.attempt)));
    faults_.push({t - std::log(rng.uniform_pos()) / r.lambda_spot, j, f.attempt, FaultKind::kPreemptNotice});
  }
}

void Engine::check_segment(int j, const Running& r, double t) const {
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

bool Engine::fault_valid(const FaultEvent& e) const {
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
    case FaultKind::kMigrate:  // the stall that scheduled it goes on (a new stall schedules its own)
      return r.stalled && !r.evicting && e.t == r.stall_since_s + *sc_.faults.migrate_after_s;
    default: return true;
  }
}

void Engine::checkpoint_starts(int j, double t) {
  settle(j, t);
  Running& r = running(j);
  r.checkpointing = true;
  r.ckpt_end_s = t + r.ckpt_cost_s;
  update_timing(j, t);  // no progress, idle power; its completion is withdrawn
  faults_.push({r.ckpt_end_s, j, jf_[static_cast<size_t>(j)].attempt, FaultKind::kCheckpointEnd});
}

void Engine::checkpoint_ends(int j, double t) {
  settle(j, t);
  Running& r = running(j);
  JobFaults& f = jf_[static_cast<size_t>(j)];
  const double gpu_s = r.gpus * r.ckpt_cost_s;
  acc_.checkpoint_written(gpu_s);
  if (opt_.record_jobs) rec_[static_cast<size_t>(j)].checkpoint_gpu_hours += gpu_s / units::kSecondsPerHour;
  if (timeline_) timeline_->job_mark(t, j, TimelineMark::Kind::kCheckpoint, r.ckpt_cost_s);
  f.resume_remaining = r.remaining;
  f.resume_u = r.u;
  if (sc_.faults.checkpoint_regional) f.ckpt_regions = r.regions;
  r.segment_start_s = t;
  r.checkpointing = false;
  if (r.evicting) return job_stops(j, t, /*failed=*/false);  // it saved all it did within its notice
  update_timing(j, t);
  if (std::isfinite(r.ckpt_every_s)) faults_.push({t + r.ckpt_every_s, j, f.attempt, FaultKind::kCheckpointStart});
}

void Engine::preempt_notice(int j, double t, double notice) {
  Running& r = running(j);
  r.evicting = true;
  acc_.job_preempted();
  if (opt_.record_jobs) ++rec_[static_cast<size_t>(j)].preemptions;
  const int attempt = jf_[static_cast<size_t>(j)].attempt;
  if (r.restoring) {  // nothing new to save: it leaves now
    faults_.push({t, j, attempt, FaultKind::kEvicted});
  } else if (r.checkpointing) {
    if (r.ckpt_end_s > t + notice) faults_.push({t + notice, j, attempt, FaultKind::kEvicted});
  } else if (r.ckpt_cost_s <= notice) {
    checkpoint_starts(j, t);
  } else {
    faults_.push({t + notice, j, attempt, FaultKind::kEvicted});
  }
}

void Engine::job_stops(int j, double t, bool failed) {
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
  if (preempting_) service_[static_cast<size_t>(j)].attained_gpu_s += r.gpus * (t - r.attempt_start_s);
  release(j);
  ++f.attempt;
  f.restarting = true;
  ++restarting_;
  if (timeline_) timeline_->job_failed(t, j, failed);
  faults_.push({t + sc_.faults.restart_s, j, f.attempt, FaultKind::kRestart});
}

void Engine::job_restarts(int j, double t) {
  const JobFaults& f = jf_[static_cast<size_t>(j)];
  if (preempting_) service_[static_cast<size_t>(j)].queued_since_s = t;
  jf_[static_cast<size_t>(j)].restarting = false;
  --restarting_;
  if (!(sc_.compute.dp_sync == DpSync::kDiLoCo && profile(j).data_parallel > 1))
    profile_pool_[static_cast<size_t>(profile_slot_[static_cast<size_t>(j)])].iterations = f.resume_remaining;
  queue_.insert(j);
}

int Engine::gpus_in(const Running& r, int reg) const {
  const int stages = static_cast<int>(std::count(r.regions.begin(), r.regions.end(), reg));
  return stages * profile(r.job).gpus_per_stage;
}

bool Engine::gpus_change(int reg, int gpus, double t) {
  const auto k = static_cast<size_t>(reg);
  const int delta = gpus - avail_[k];
  avail_[k] = gpus;
  free_[k] += delta;
  if (free_[k] >= 0) return delta > 0;
  // The jobs there hold more than the region has: jobs under a notice give theirs back at its
  // end; of the others, the attempts started last are evicted first.
  int missing = -free_[k];
  victims_.clear();
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Running& r = slots_[s];
    if (r.job < 0 || slot_of_[static_cast<size_t>(r.job)] != static_cast<int>(s)) continue;  // a free slot
    const int held = gpus_in(r, reg);
    if (held == 0) continue;
    if (r.evicting) missing -= held;
    else victims_.push_back(r.job);
  }
  std::sort(victims_.begin(), victims_.end(), [&](int a, int b) {
    const double sa = running(a).attempt_start_s, sb = running(b).attempt_start_s;
    return sa != sb ? sa > sb : a > b;
  });
  for (int j : victims_) {
    if (missing <= 0) break;
    missing -= gpus_in(running(j), reg);
    preempt_notice(j, t, sc_.faults.preemption_notice_s);
  }
  return delta > 0;
}

void Engine::begin_restore(int j, Running& r, const JobProfile& p, double t) {
  const std::vector<int>& from = jf_[static_cast<size_t>(j)].ckpt_regions;
  const int n_old = static_cast<int>(from.size()), n_new = static_cast<int>(r.regions.size());
  const int R = topo_.num_regions(), S = p.stages;
  double bytes_moved = 0, egress_usd = 0;
  for (int x = 0; x < n_new; ++x) {
    const int a = from[static_cast<size_t>(restore_source_stage(x, n_old, n_new))];
    const int b = r.regions[static_cast<size_t>(x)];
    if (a == b) continue;
    const double bytes =
        restore_shard_bytes(p.params[static_cast<size_t>(x % S)], sc_.faults.checkpoint_bytes_per_param, r.replicas);
    if (topo_.connected(a, b)) {
      r.restore_flow.push_back(net_.add_flow(a, b, kInf, j));
      r.restore_pair.push_back(a * R + b);
      ++flow_count_[static_cast<size_t>(a * R + b)];
      r.restore_left.push_back(bytes);
      r.restore_rate.push_back(0.0);
      bytes_moved += bytes;
      egress_usd += bytes * topo_.link(a, b).egress_usd_per_byte;
    } else {
      // No link between them: read at the new region's storage bandwidth (through storage
      // that both reach; no WAN flow, no egress).
      r.restore_fixed_end_s =
          std::max(r.restore_fixed_end_s, t + bytes / topo_.regions[static_cast<size_t>(b)].checkpoint_bytes_per_s);
    }
  }
  if (r.restore_flow.empty() && r.restore_fixed_end_s <= t) return;  // every shard is where it is needed
  r.restoring = true;
  r.restore_start_s = t;
  on_record(j, [&](auto& rec) {
    rec.cross_region_bytes += bytes_moved;
    rec.egress_cost_usd += egress_usd;
  });
}

void Engine::idle_power(Running& r, const JobProfile& p) {
  std::fill(r.power_w.begin(), r.power_w.end(), 0.0);
  for (const int reg : r.regions) {
    const double w = stage_power_w(p.gpus_per_stage, topo_.regions[static_cast<size_t>(reg)].pue, topo_.gpu_of(reg), 0.0, 1.0);
    const auto k = static_cast<size_t>(std::find(r.power_region.begin(), r.power_region.end(), reg) - r.power_region.begin());
    r.power_w[k] += w;
  }
}

void Engine::restore_timing(int j, double t) {
  Running& r = running(j);
  double end = std::max(t, r.restore_fixed_end_s);
  bool stuck = false;  // a shard on a link that is down waits for it
  for (size_t k = 0; k < r.restore_flow.size(); ++k) {
    r.restore_rate[k] = net_.rate(r.restore_flow[k]);
    if (r.restore_left[k] <= 0) continue;
    if (r.restore_rate[k] <= 0) stuck = true;
    else end = std::max(end, t + r.restore_left[k] / r.restore_rate[k]);
  }
  r.T = kInf;
  idle_power(r, profile(j));
  ++r.version;
  if (!stuck) heap_.push({end, j, r.version});
}

void Engine::restore_ends(int j, double t) {
  settle(j, t);
  Running& r = running(j);
  JobFaults& f = jf_[static_cast<size_t>(j)];
  for (size_t k = 0; k < r.restore_flow.size(); ++k) {
    net_.remove_flow(r.restore_flow[k]);
    --flow_count_[static_cast<size_t>(r.restore_pair[k])];
  }
  r.restore_flow.clear();
  r.restore_pair.clear();
  r.restore_left.clear();
  r.restore_rate.clear();
  r.restoring = false;
  const double gpu_s = r.gpus * (t - r.restore_start_s);
  acc_.checkpoint_written(gpu_s);
  if (opt_.record_jobs) rec_[static_cast<size_t>(j)].checkpoint_gpu_hours += gpu_s / units::kSecondsPerHour;
  f.ckpt_regions = r.regions;  // its shards are now where it runs
  r.segment_start_s = t;
  if (std::isfinite(r.ckpt_every_s)) faults_.push({t + r.ckpt_every_s, j, f.attempt, FaultKind::kCheckpointStart});
  pending_start_.push_back(j);  // timed (and its segment checked) after the links are re-shared
}

void Engine::note_stall(int j, Running& r, bool link_down, double t) {
  if (link_down == r.stalled) return;
  r.stalled = link_down;
  if (!link_down) return;
  r.stall_since_s = t;
  faults_.push({t + *sc_.faults.migrate_after_s, j, jf_[static_cast<size_t>(j)].attempt, FaultKind::kMigrate});
}

}  // namespace geopipe::engine_detail

namespace geopipe::engine_detail {

void Engine::fill_running(double t) {
  running_info_.clear();
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Running& r = slots_[s];
    if (r.job < 0 || slot_of_[static_cast<size_t>(r.job)] != static_cast<int>(s)) continue;
    RunningJob x;
    x.job = r.job;
    x.gpus = r.gpus;
    x.regions = &r.regions;
    x.attempt_start_s = r.attempt_start_s;
    x.leaving = r.evicting;
    const double dt = t - r.last_t;
    const bool moving = !r.checkpointing && !r.restoring && std::isfinite(r.T) && dt > 0;
    if (r.diloco) {
      const double u = moving ? r.clock.advance(r.u, dt, r.T_inner, r.Y) : r.u;
      x.remaining_iterations = std::max(0.0, r.clock.iterations_at(r.U) - r.clock.iterations_at(u));
    } else {
      x.remaining_iterations = std::max(0.0, moving ? r.remaining - dt / r.T : r.remaining);
    }
    running_info_.push_back(x);
  }
  std::sort(running_info_.begin(), running_info_.end(),
            [](const RunningJob& a, const RunningJob& b) { return a.job < b.job; });
}

}  // namespace geopipe::engine_detail
