#include "sched/feasibility.h"

#include "sched/pathfinder.h"
#include "sim/view.h"

namespace geopipe {

bool fits_empty_cluster(const JobProfile& profile, const Topology& topo) {
  static const ComputeOptions kDefault{};
  const ClusterView v = idle_view(topo, kDefault);
  SearchSpec s;
  s.objective = SearchSpec::Objective::kMinTime;
  s.max_blocks = topo.num_regions();
  s.stall_free = false;
  s.bandwidth = BandwidthModel::kBlind;
  s.stop_at_first = true;
  Pathfinder pf;
  return pf.search(profile, v, s).found;
}

}  // namespace geopipe
