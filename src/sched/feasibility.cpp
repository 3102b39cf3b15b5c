#include "sched/feasibility.h"

#include "model/data_parallel.h"
#include "sched/pathfinder.h"
#include "sim/view.h"

namespace geopipe {

namespace {

/// The search of the feasibility check: the first placement of any number of blocks whose
/// stages fit their GPUs, bandwidth ignored.
SearchSpec first_fit_spec(const Topology& topo) {
  SearchSpec s;
  s.objective = SearchSpec::Objective::kMinTime;
  s.max_blocks = topo.num_regions();
  s.stall_free = false;
  s.bandwidth = BandwidthModel::kBlind;
  s.stop_at_first = true;
  return s;
}

}  // namespace

ClusterView feasibility_view(const Topology& topo) {
  static const ComputeOptions kDefault{};
  return idle_view(topo, kDefault);
}

Placement replicas_first_found(const JobProfile& profile, const ClusterView& view, AllReduceKind kind) {
  ClusterView v = view;
  const SearchSpec s = first_fit_spec(*view.topo);
  Pathfinder pf;
  Placement all;
  for (int k = 0; k < profile.data_parallel; ++k) {
    const SearchResult r = pf.search(profile, v, s);
    if (!r.found) return {};
    v.commit(profile, r.placement);
    all.stage_region.insert(all.stage_region.end(), r.placement.stage_region.begin(), r.placement.stage_region.end());
  }
  if (!sync_rings_connected(all.stage_region, profile.stages, *view.topo, kind)) return {};
  return all;
}

bool fits_empty_cluster(const JobProfile& profile, const Topology& topo, AllReduceKind kind) {
  if (profile.data_parallel > 1) return !replicas_first_found(profile, feasibility_view(topo), kind).empty();
  // Sufficient first: one region with GPUs for every stage, whose GPU type holds every stage,
  // is a placement of one block, which the search below would find too
  // (Feasibility.OneRegionShortcutAgreesWithTheSearch). It spares the search's tables, most
  // of a `validate`'s check of the mix.
  const int S = profile.stages;
  for (int r = 0; r < topo.num_regions(); ++r) {
    if (topo.regions[static_cast<size_t>(r)].gpu_count / profile.gpus_per_stage < S) continue;
    const GpuType& gpu = topo.gpu_of(r);
    bool all = true;
    for (int i = 0; i < S && all; ++i) all = profile.stage_fits(i, gpu);
    if (all) return true;
  }
  return fits_empty_cluster_by_search(profile, topo);
}

bool fits_empty_cluster_by_search(const JobProfile& profile, const Topology& topo) {
  Pathfinder pf;
  return pf.search(profile, feasibility_view(topo), first_fit_spec(topo)).found;
}

}  // namespace geopipe
