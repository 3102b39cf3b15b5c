#include "sched/placement.h"

#include <algorithm>
#include <numeric>

#include "sched/estimate.h"
#include "sched/pathfinder.h"

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

namespace {

// Per-job relaxation, decided once on the idle cluster: a policy whose constraints no
// placement could ever meet (more regions than max_region_switches allows, or no stall-free
// path even on empty links) would make the job wait forever; instead the job is allowed as
// many switches as it needs and, if no stall-free path exists at all, the least-stalling one.
struct Relax {
  bool known = false;
  int max_blocks = 0;
  bool stall_tolerant = false;
};

class SearchPolicy : public PlacementPolicy {
 protected:
  explicit SearchPolicy(const SchedulerParams& p) : prm_(p) {}

  SearchResult run(const JobProfile& p, const ClusterView& v, const SearchSpec& s) {
    SearchResult r = pf_.search(p, v, s);
    ++searches;
    search_nodes += r.nodes;
    truncated_searches += r.truncated;
    return r;
  }

  /// Relaxation for job j: tries `strict` (as given) then with all regions allowed, on the idle
  /// cluster; if `stall_free` and neither works, falls back to stall-tolerant.
  const Relax& relax(const SchedContext& ctx, int j, const ClusterView& view, bool stall_free, BandwidthModel bw) {
    if (relax_.size() <= static_cast<size_t>(j)) relax_.resize(static_cast<size_t>(j) + 1);
    Relax& rx = relax_[static_cast<size_t>(j)];
    if (rx.known) return rx;
    rx.known = true;
    const ClusterView idle = idle_view(*ctx.topo, *ctx.compute, view.now_s);
    const JobProfile& p = ctx.profile(j);
    SearchSpec s;
    s.stall_free = stall_free;
    s.bandwidth = bw;
    s.stop_at_first = true;  // feasibility only
    const int K1 = prm_.max_region_switches + 1;
    const int R = idle.regions();
    auto found = [&](bool sf, int mb) {
      s.stall_free = sf;
      s.max_blocks = mb;
      return pf_.search(p, idle, s).found;
    };
    if (found(stall_free, K1)) {
      rx.max_blocks = K1;
    } else if (found(stall_free, R)) {
      rx.max_blocks = R;
    } else if (stall_free && found(false, K1)) {
      rx.max_blocks = K1;
      rx.stall_tolerant = true;
    } else {
      rx.max_blocks = R;
      rx.stall_tolerant = stall_free;
    }
    return rx;
  }
  SchedulerParams prm_;
  Pathfinder pf_;
  std::vector<Relax> relax_;
};

// Bandwidth-aware pathfinder (stall-free hops only), then either the cost-min allocator
// (cheapest estimated cost within (1+ε) of the fastest feasible path) or the fastest path.
class PathfinderPolicy final : public SearchPolicy {
 public:
  PathfinderPolicy(const SchedulerParams& p, bool costmin) : SearchPolicy(p), costmin_(costmin) {}
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    const JobProfile& p = ctx.profile(j);
    const Relax& rx = relax(ctx, j, view, true, BandwidthModel::kExpected);
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = !rx.stall_tolerant;
    s.bandwidth = BandwidthModel::kExpected;
    s.objective = SearchSpec::Objective::kMinTime;
    SearchResult fastest = run(p, view, s);
    if (!fastest.found || !costmin_) return fastest.placement;
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fastest.est_iteration_s * (1.0 + prm_.epsilon) * (1.0 + 1e-12);
    SearchResult cheapest = run(p, view, s);
    return cheapest.found ? cheapest.placement : fastest.placement;
  }

 private:
  bool costmin_;
};

// bace-no-pathfinder: cost-min over all placements with a bandwidth-blind estimate and no
// stall-freedom check (it cannot see bandwidth), within (1+ε) of the blind-fastest.
class CostMinBlindPolicy final : public SearchPolicy {
 public:
  explicit CostMinBlindPolicy(const SchedulerParams& p) : SearchPolicy(p) {}
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    const JobProfile& p = ctx.profile(j);
    const Relax& rx = relax(ctx, j, view, false, BandwidthModel::kBlind);
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = false;
    s.bandwidth = BandwidthModel::kBlind;
    SearchResult fastest = run(p, view, s);
    if (!fastest.found) return {};
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fastest.est_iteration_s * (1.0 + prm_.epsilon) * (1.0 + 1e-12);
    SearchResult cheapest = run(p, view, s);
    return cheapest.found ? cheapest.placement : fastest.placement;
  }
};

// delay-first: the placement with the smallest estimated iteration time, using the bandwidth
// a new flow would get under max-min sharing; price-blind; no stall-freedom requirement.
class DelayFirstPolicy final : public SearchPolicy {
 public:
  explicit DelayFirstPolicy(const SchedulerParams& p) : SearchPolicy(p) {}
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    const Relax& rx = relax(ctx, j, view, false, BandwidthModel::kExpected);
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = false;
    s.bandwidth = BandwidthModel::kExpected;
    return run(ctx.profile(j), view, s).placement;
  }
};

// Fill regions in a fixed order (scenario order or current price), contiguous blocks,
// skipping regions whose GPUs cannot hold the next stage or that are not linked to the
// previous block. Bandwidth-blind; no switch limit.
Placement fill_in_order(const JobProfile& p, const ClusterView& view, const std::vector<int>& order) {
  const Topology& topo = *view.topo;
  const int g = p.gpus_per_stage;
  Placement pl;
  pl.stage_region.reserve(static_cast<size_t>(p.stages));
  int next = 0, last = -1;
  for (int r : order) {
    if (next == p.stages) break;
    if (last >= 0 && !topo.connected(last, r)) continue;
    int take = std::min(view.free_gpus[static_cast<size_t>(r)] / g, p.stages - next);
    int k = 0;
    while (k < take && p.stage_fits(next + k, topo.gpu_of(r))) ++k;
    if (k == 0) continue;
    for (int q = 0; q < k; ++q) pl.stage_region.push_back(r);
    next += k;
    last = r;
  }
  if (next < p.stages) pl.stage_region.clear();
  return pl;
}

std::vector<int> regions_by_price(const ClusterView& view) {
  std::vector<int> order(static_cast<size_t>(view.regions()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return view.topo->regions[static_cast<size_t>(a)].price.usd_per_kwh_at(view.now_s) <
           view.topo->regions[static_cast<size_t>(b)].price.usd_per_kwh_at(view.now_s);
  });
  return order;
}

class FillPolicy final : public PlacementPolicy {
 public:
  explicit FillPolicy(bool by_price) : by_price_(by_price) {}
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    std::vector<int> order;
    if (by_price_) {
      order = regions_by_price(view);
    } else {
      order.resize(static_cast<size_t>(view.regions()));
      std::iota(order.begin(), order.end(), 0);
    }
    return fill_in_order(ctx.profile(j), view, order);
  }

 private:
  bool by_price_;
};

// cost-first: the single region with the lowest estimated cost for the whole job; wait if no
// region can host it now (rigid). A job no single region could ever host (too few GPUs or
// too little memory even when idle) is filled across regions in price order instead.
class CostFirstPolicy final : public PlacementPolicy {
 public:
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    const JobProfile& p = ctx.profile(j);
    const Topology& topo = *ctx.topo;
    const int need = p.stages * p.gpus_per_stage;
    auto hosts = [&](int r, int free) {
      if (free < need) return false;
      for (int i = 0; i < p.stages; ++i)
        if (!p.stage_fits(i, topo.gpu_of(r))) return false;
      return true;
    };
    bool ever = false;
    for (int r = 0; r < topo.num_regions() && !ever; ++r) ever = hosts(r, topo.regions[static_cast<size_t>(r)].gpu_count);
    if (!ever) return fill_in_order(p, view, regions_by_price(view));
    Placement best;
    double best_cost = 0;
    Placement cand;
    cand.stage_region.resize(static_cast<size_t>(p.stages));
    for (int r = 0; r < topo.num_regions(); ++r) {
      if (!hosts(r, view.free_gpus[static_cast<size_t>(r)])) continue;
      std::fill(cand.stage_region.begin(), cand.stage_region.end(), r);
      const double T = estimate_iteration_s(p, cand, view, BandwidthModel::kBlind);
      const double c = estimate_cost_usd(p, cand, T, view);
      if (best.empty() || c < best_cost) {
        best = cand;
        best_cost = c;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_pathfinder_costmin(const SchedulerParams& p) { return std::make_unique<PathfinderPolicy>(p, true); }
std::unique_ptr<PlacementPolicy> make_pathfinder_mintime(const SchedulerParams& p) { return std::make_unique<PathfinderPolicy>(p, false); }
std::unique_ptr<PlacementPolicy> make_costmin_blind(const SchedulerParams& p) { return std::make_unique<CostMinBlindPolicy>(p); }
std::unique_ptr<PlacementPolicy> make_delay_first(const SchedulerParams& p) { return std::make_unique<DelayFirstPolicy>(p); }
std::unique_ptr<PlacementPolicy> make_cost_first(const SchedulerParams&) { return std::make_unique<CostFirstPolicy>(); }
std::unique_ptr<PlacementPolicy> make_greedy_cost(const SchedulerParams&) { return std::make_unique<FillPolicy>(true); }
std::unique_ptr<PlacementPolicy> make_first_fit(const SchedulerParams&) { return std::make_unique<FillPolicy>(false); }

}  // namespace geopipe
