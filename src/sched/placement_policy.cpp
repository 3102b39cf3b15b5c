#include "sched/placement_policy.h"

#include "model/data_parallel.h"

namespace geopipe {

Placement PlacementPolicy::place_gang(const SchedContext& ctx, int j, const ClusterView& view) {
  const JobProfile& p = ctx.profile(j);
  const int D = p.data_parallel;
  trial_ = view;
  Placement all;
  all.stage_region.reserve(static_cast<size_t>(D * p.stages));
  for (int k = 0; k < D; ++k) {
    Placement one = place(ctx, j, trial_);
    if (one.empty()) return {};
    trial_.commit(p, one);
    all.stage_region.insert(all.stage_region.end(), one.stage_region.begin(), one.stage_region.end());
  }
  if (!sync_rings_connected(all.stage_region, p.stages, *view.topo, view.compute->allreduce)) return {};
  return all;
}

int PlacementPolicy::choose_variant(const SchedContext&, int, std::span<const VariantCandidate>,
                                    std::span<const JobProfile>, const ClusterView&) {
  return 0;
}

}  // namespace geopipe
