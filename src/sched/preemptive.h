// The preemptive literature baselines (docs/model.md, "Literature baselines"): srtf and
// tiresias. Each starts waiting jobs in its priority order with backfill on bace-pipe's
// placement (a ComposedScheduler), then preempts lower-priority running jobs where that makes
// room for a higher-priority waiting one.
#pragma once

#include <memory>
#include <string>

#include "model/scenario.h"
#include "sim/scheduler_api.h"

namespace geopipe {

enum class PreemptiveRule {
  /// Shortest remaining time first: priority = the oracle work a job has left, remaining
  /// iterations × compute-only iteration time on the fastest GPU type present (lower first).
  kSrtf,
  /// Tiresias's discretised 2D-LAS (Gu et al., NSDI'19): K queues by attained service
  /// (GPUs × time held), thresholds SchedulerParams::tiresias_thresholds_gpu_s; within a queue
  /// running jobs before waiting ones, then arrival; the starvation knob
  /// SchedulerParams::tiresias_promote_knob. Needs no job size.
  kTiresias,
};

/// The preemptive scheduler of `rule`, named `name`. Per call:
///  1. start: waiting jobs in the rule's order, each placed by the pathfinder → cost-min
///     allocator on the free GPUs, passing over those that do not place (backfill);
///  2. preempt: for each waiting job still not started, in the same order (flexible jobs,
///     data_parallel = 0, are left out), the running jobs of strictly lower priority that are
///     not leaving already, lowest priority first (ties: the higher id), are released one by
///     one on a copy of the view (their GPUs free, their bandwidth still taken: conservative)
///     until the job's placement succeeds there; if it does, those jobs are preempted
///     (Decision::preempt: they checkpoint and wait again) and the job's placement is booked on
///     the copy, so that no later job counts on the same GPUs. The job itself starts at a later
///     call, once their checkpoints have given the GPUs back. If no set of them makes room, no
///     job is preempted for it.
/// Deterministic; O(q log q + r log r) per call for q waiting and r running jobs (tiresias
/// sorts the queue at every call; srtf's start order is incremental, make_remaining_first).
std::unique_ptr<Scheduler> make_preemptive_scheduler(std::string name, PreemptiveRule rule, const SchedulerParams& p);

}  // namespace geopipe
