// The interface between the event engine and a scheduler (docs/design.md, "Layers"). The
// simulator only knows this interface; the policies and presets live in src/sched.
#pragma once

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
  const Job& job(int j) const { return (*jobs)[static_cast<size_t>(j)]; }
  const JobProfile& profile(int j) const {
    if (!profile_slot) return (*profiles)[static_cast<size_t>(j)];
    const int s = (*profile_slot)[static_cast<size_t>(j)];
    if (s < 0) throw std::logic_error("SchedContext::profile: job " + std::to_string(j) + " is not waiting or running");
    return (*profiles)[static_cast<size_t>(s)];
  }
  int shape(int j) const { return (*shapes)[static_cast<size_t>(j)]; }
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

/// Start job `job` now on `placement`.
struct Decision {
  int job = -1;
  Placement placement;
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
};

}  // namespace geopipe
