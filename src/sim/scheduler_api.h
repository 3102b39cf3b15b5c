// The interface between the event engine and a scheduler (docs/design.md, "Layers"). The
// simulator only knows this interface; the policies and presets live in src/sched.
#pragma once

#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/job.h"
#include "model/topology.h"
#include "sim/placement.h"
#include "sim/view.h"
#include "sim/waiting_queue.h"

namespace geopipe {

/// A running job as a preempting scheduler (Scheduler::preempts()) sees it: SchedContext::running.
struct RunningJob {
  int job = -1;
  int gpus = 0;                               ///< GPUs it holds (D·S·g)
  const std::vector<int>* regions = nullptr;  ///< the region of each of its D·S stages (valid during the call)
  double attempt_start_s = 0;                 ///< when its current attempt started
  /// Iterations it has left at the call's time (exact: its progress since the engine last
  /// settled it at its current iteration time; a job writing a checkpoint or restoring one, or
  /// stalled on a link that is down, does not progress).
  double remaining_iterations = 0;
  /// Preempted or evicted already (writing its checkpoint, or within its notice): it gives its
  /// GPUs back soon and cannot be preempted again.
  bool leaving = false;
};

/// What a preempting scheduler may know of a job's past: SchedContext::service.
struct JobService {
  double attained_gpu_s = 0;  ///< GPU-seconds its attempts that ended (preempted, evicted, failed) held
  double queued_since_s = 0;  ///< when it last entered the waiting queue (its arrival, or the end of its restart_s)
};

/// Read-only facts about the jobs of the running scenario.
struct SchedContext {
  const Topology* topo = nullptr;
  const ComputeOptions* compute = nullptr;
  const std::vector<Job>* jobs = nullptr;          ///< all jobs, index = Job::id
  /// The jobs' profiles: indexed by job, or, when profile_slot is set, job j's is
  /// profiles[profile_slot[j]]. The engine sets it: it keeps the profiles of the waiting and
  /// running jobs only (memory follows them, not the scenario's jobs), so a scheduler may ask
  /// for the profile of a job that has arrived and not finished, and not hold it across calls.
  const std::vector<JobProfile>* profiles = nullptr;
  const std::vector<int>* profile_slot = nullptr;     ///< per job: its index in profiles, -1 if it has none
  const std::vector<int>* shapes = nullptr;           ///< indexed by job: job_shapes() (model/job.h)
  int num_shapes = 0;
  /// Flexible jobs (Job::data_parallel == 0: the scheduler chooses D, model/flexible_job.h).
  /// Per job shape: the profiles of its variants that fit (flexible_variants_that_fit, in
  /// increasing D, iterations 0); empty for a fixed shape. A waiting flexible job's profile()
  /// is its reference variant's (the first that fits), until a Decision starts it as one of
  /// these (Decision::variant). Null: no flexible job in the run.
  const std::vector<std::vector<JobProfile>>* variants = nullptr;
  /// Per job shape: the shape id of its variant 0 (variant k's is that + k; all variant ids are
  /// >= num_shapes and distinct), or -1 for a fixed shape. Null with `variants`.
  const std::vector<int>* variant_shape = nullptr;
  /// A scheduler trying variant k of flexible job `override_job` calls its placement policy
  /// with a copy of the context (with_variant) in which profile() and shape() of that job
  /// answer for the variant: every policy places the variant as if it were a fixed job.
  /// Preempting schedulers only (Scheduler::preempts(); null for the others): the running
  /// jobs at the call, in increasing id order, and per job its service so far. A running job's
  /// attained service (GPUs × time held, Tiresias's) is service[j].attained_gpu_s +
  /// gpus·(now − attempt_start_s).
  const std::vector<RunningJob>* running = nullptr;
  const std::vector<JobService>* service = nullptr;
  int override_job = -1;
  const JobProfile* override_profile = nullptr;  ///< the variant's profile (with the job's iterations)
  int override_shape = -1;                       ///< the variant's shape id

  const Job& job(int j) const { return (*jobs)[static_cast<size_t>(j)]; }
  /// The variants of job j (empty unless it is flexible).
  std::span<const JobProfile> variants_of(int j) const {
    if (!variants) return {};
    return (*variants)[static_cast<size_t>(shape_of_job(j))];
  }
  /// This context with job j seen as variant k (profile `p`: variants_of(j)[k] with j's
  /// iterations, owned by the caller and alive while the copy is used).
  SchedContext with_variant(int j, int k, const JobProfile& p) const {
    SchedContext c = *this;
    c.override_job = j;
    c.override_profile = &p;
    c.override_shape = (*variant_shape)[static_cast<size_t>(shape_of_job(j))] + k;
    return c;
  }
  const JobProfile& profile(int j) const {
    if (j == override_job) return *override_profile;
    if (!profile_slot) return (*profiles)[static_cast<size_t>(j)];
    const int s = (*profile_slot)[static_cast<size_t>(j)];
    if (s < 0) throw std::logic_error("SchedContext::profile: job " + std::to_string(j) + " is not waiting or running");
    return (*profiles)[static_cast<size_t>(s)];
  }
  int shape(int j) const { return j == override_job ? override_shape : shape_of_job(j); }

 private:
  int shape_of_job(int j) const { return (*shapes)[static_cast<size_t>(j)]; }
};

/// Deterministic counters of a scheduler's placement searches (reported as metrics).
struct SearchEffort {
  long searches = 0;   ///< placement searches run
  long nodes = 0;      ///< search nodes expanded in them
  long truncated = 0;  ///< searches that hit their node budget and returned the best found so far
  /// Searches whose result a placement they reached beats under the balanced layer split
  /// (balanced_split_beats, sched/pathfinder.h); 0 with the even split.
  long partition_misses = 0;
};

/// Start job `job` now on `placement`; or, with `preempt`, preempt running job `job`.
struct Decision {
  int job = -1;
  Placement placement;
  /// A flexible job: the index in SchedContext::variants_of(job) of the variant it starts as
  /// (the placement lists that variant's D·S stages); -1 for a fixed job.
  int variant = -1;
  /// Preempt running job `job` (placement and variant unused; only a scheduler whose
  /// preempts() is true may): it writes a checkpoint (its checkpoint cost, blocking, its GPUs
  /// held), then gives its GPUs back, holds none for faults.restart_s and waits in the queue
  /// again ahead of later arrivals, resuming from that checkpoint. Its GPUs are free only once
  /// the checkpoint ends, when the scheduler is called again; the view of this call does not
  /// show them free (docs/model.md, "Failures and checkpoints").
  bool preempt = false;
};

/// A scheduler is invoked at every event time with the waiting queue. It must be
/// deterministic (no dependence on wall time, addresses or thread timing).
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const = 0;
  /// `queue`: waiting jobs in arrival order, which is increasing id order. Appends the jobs to start now; each
  /// placement must fit the view's free GPUs after the previous decisions of this call (use
  /// ClusterView::commit). `view` is the scheduler's own copy.
  virtual void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                        std::vector<Decision>& out) = 0;
  /// Search effort so far (zero for schedulers that do not search).
  virtual SearchEffort effort() const { return {}; }
  /// May it preempt running jobs (Decision::preempt)? Only the preemptive literature baselines
  /// do (srtf, tiresias: sched/preemptive.h); the paper's presets never preempt.
  virtual bool preempts() const { return false; }
  /// A preempting or deferring (defers()) scheduler whose decisions change with time alone
  /// (Tiresias's demotion thresholds, Gavel's rounds, wait-awhile's release times) asks to be
  /// called again at this time, if jobs wait then; +inf: no such time.
  /// Read after each call; a time not after that call's is ignored.
  virtual double next_call_s() const { return std::numeric_limits<double>::infinity(); }
  /// Does it hold waiting jobs that could start now, releasing them by time alone (wait-awhile's
  /// temporal shifting, sched/wait_awhile.h)? Then the engine calls it at next_call_s() too
  /// (as it does a preempting scheduler), and an idle cluster with jobs waiting is no failure
  /// while such a time is to come. False for every other preset.
  virtual bool defers() const { return false; }
};

}  // namespace geopipe
