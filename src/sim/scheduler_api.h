// The interface between the event engine and a scheduler (docs/design.md, "Layers"). The
// simulator only knows this interface; the policies and presets live in src/sched.
#pragma once

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
  const std::vector<JobProfile>* profiles = nullptr;  ///< same indexing
  const std::vector<int>* shapes = nullptr;           ///< same indexing: job_shapes() (model/job.h)
  int num_shapes = 0;
  const Job& job(int j) const { return (*jobs)[static_cast<size_t>(j)]; }
  const JobProfile& profile(int j) const { return (*profiles)[static_cast<size_t>(j)]; }
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
