// What a scheduler sees of the cluster at one decision (docs/model.md, "Schedulers"): free GPUs per region,
// residual bandwidth per link direction (possibly stale or noisy, see SchedulerParams), flow
// counts, and prices through the topology. The engine owns the truth and builds a fresh view
// for each scheduler call; a scheduler updates its copy with commit() as it places jobs so
// that later decisions in the same call see the resources already taken.
#pragma once

#include <vector>

#include "model/job.h"
#include "model/topology.h"
#include "sim/placement.h"

namespace geopipe {

struct ClusterView {
  const Topology* topo = nullptr;
  const ComputeOptions* compute = nullptr;
  double now_s = 0;
  std::vector<int> free_gpus;        ///< per region
  std::vector<double> residual;      ///< R×R bytes/s, direction a -> b (diagonal +inf)
  std::vector<int> flows;            ///< R×R number of flows on each direction
  /// R×R current capacity of each direction (bytes/s) when some link follows a capacity series
  /// (the scheduler knows a link's capacity as it is now, outages included, while residuals
  /// come through the bandwidth monitor); empty: the topology's constant capacities.
  std::vector<double> capacity;
  /// Changes whenever some link's capacity changes (a step of a capacity series; 0 for
  /// constant capacities): what a policy decided on `capacity` is to be decided again.
  long capacity_version = 0;
  int total_free = 0;                ///< Σ free_gpus
  /// Increases whenever resources may have grown since the previous view (a job finished,
  /// the bandwidth view was refreshed), and whenever a link's capacity changed (a rise may let
  /// a placement fit, a fall may relax a policy's constraints: sched/search_policies.cpp). A job that could not be placed at epoch e cannot be
  /// placed later at the same epoch: schedulers may cache such failures.
  long epoch = 0;

  int regions() const { return static_cast<int>(free_gpus.size()); }
  double residual_bw(int a, int b) const { return residual[static_cast<size_t>(a * regions() + b)]; }
  int flow_count(int a, int b) const { return flows[static_cast<size_t>(a * regions() + b)]; }
  /// Bandwidth a new flow of demand β would likely get on a -> b under max-min sharing:
  /// min(β, max(residual, capacity / (flows + 1))); 0 on a link that is down.
  double expected_share(int a, int b, double demand) const;
  double capacity_bw(int a, int b) const {
    return capacity.empty() ? topo->link(a, b).capacity_bytes_per_s : capacity[static_cast<size_t>(a * regions() + b)];
  }

  /// Takes the placement's GPUs and subtracts its hops' demands from the residuals. The
  /// placement holds one replica's S stages, or D replicas' stages replica by replica (D·S):
  /// then each stage's synchronisation ring also books a flow of unbounded demand on each of
  /// its cross-region hops, which leaves that direction no residual (model/data_parallel.h).
  void commit(const JobProfile& p, const Placement& pl);
};

/// Stall-free demand β of hop i (stage i in region a, stage i+1 in region b):
/// stall_free_demand_bytes_per_s(A, f_i(a), f_{i+1}(b)) (model/job.h).
double hop_demand_bytes_per_s(const JobProfile& p, int i, int a, int b, const Topology& topo,
                              const ComputeOptions& opt);

}  // namespace geopipe

namespace geopipe {
/// View of the idle cluster: all GPUs free, full link capacities, no flows. The capacities are
/// the topology's (a series' maximum) or, if `capacity` is given and not empty, those (R×R
/// bytes/s, e.g. a view's capacities in force), which are then also the view's `capacity`.
ClusterView idle_view(const Topology& topo, const ComputeOptions& compute, double now_s = 0,
                      const std::vector<double>* capacity = nullptr);
}  // namespace geopipe
