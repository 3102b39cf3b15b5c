// Placement policies (DESIGN.md §3) and the cluster-fit check used for input validation.
#pragma once

#include <memory>
#include <vector>

#include "model/job.h"
#include "model/scenario.h"
#include "model/topology.h"
#include "sim/placement.h"
#include "sim/scheduler_api.h"
#include "sim/view.h"

namespace geopipe {

/// True if the job could run on the *empty* cluster: some placement of contiguous blocks over
/// distinct, consecutively connected regions (any number of switches) where each stage's
/// memory fits its region's GPU type and each region has enough GPUs. Used by the config
/// loader to reject impossible jobs.
bool fits_empty_cluster(const JobProfile& profile, const Topology& topo);

/// Chooses where a job runs, given the scheduler's view; empty placement = wait.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual Placement place(const SchedContext& ctx, int job, const ClusterView& view) = 0;
  /// Search effort counters (for metrics/benchmarks).
  long searches = 0, search_nodes = 0, truncated_searches = 0;
};

std::unique_ptr<PlacementPolicy> make_pathfinder_costmin(const SchedulerParams& p);   // bace-pipe
std::unique_ptr<PlacementPolicy> make_pathfinder_mintime(const SchedulerParams& p);   // bace-no-costmin
std::unique_ptr<PlacementPolicy> make_costmin_blind(const SchedulerParams& p);        // bace-no-pathfinder
std::unique_ptr<PlacementPolicy> make_delay_first(const SchedulerParams& p);
std::unique_ptr<PlacementPolicy> make_cost_first(const SchedulerParams& p);
std::unique_ptr<PlacementPolicy> make_greedy_cost(const SchedulerParams& p);
std::unique_ptr<PlacementPolicy> make_first_fit(const SchedulerParams& p);

}  // namespace geopipe
