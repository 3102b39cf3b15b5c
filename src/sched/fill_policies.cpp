// The fill-based placement policies: first-fit, greedy-cost and cost-first (docs/model.md,
// "Schedulers"). Bandwidth-blind; contiguous blocks in a fixed region order.
#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <vector>

#include "sched/estimate.h"
#include "sched/placement_policy.h"

namespace geopipe {
namespace {

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

// The complete fill: the first placement, in the order of a depth-first search that tries
// regions in `order` (unused, linked to the previous block) and the longest block first, of
// contiguous blocks on distinct regions within the view's free GPUs and memory. Unlike the
// greedy fill above it finds a placement whenever one exists (a region skipped for one stage
// may take a later one; a shorter block may leave the stages that fit elsewhere). Failed
// states (next stage, last region, used regions) are remembered, so the search visits each at
// most once.
class CompleteFill {
 public:
  Placement run(const JobProfile& p, const ClusterView& view, const std::vector<int>& order) {
    p_ = &p;
    view_ = &view;
    order_ = &order;
    failed_.clear();
    path_.clear();
    Placement pl;
    if (dfs(0, -1, 0)) pl.stage_region = path_;
    return pl;
  }

 private:
  bool dfs(int next, int last, std::uint64_t used) {
    const int S = p_->stages;
    if (next == S) return true;
    const auto key = std::make_tuple(next, last, used);
    if (failed_.count(key)) return false;
    const Topology& topo = *view_->topo;
    const int g = p_->gpus_per_stage;
    for (int r : *order_) {
      if (used >> r & 1U) continue;
      if (last >= 0 && !topo.connected(last, r)) continue;
      const int take = std::min(view_->free_gpus[static_cast<size_t>(r)] / g, S - next);
      int k = 0;
      while (k < take && p_->stage_fits(next + k, topo.gpu_of(r))) ++k;
      for (; k > 0; --k) {
        path_.insert(path_.end(), static_cast<size_t>(k), r);
        if (dfs(next + k, r, used | std::uint64_t{1} << r)) return true;
        path_.resize(path_.size() - static_cast<size_t>(k));
      }
    }
    failed_.insert(key);
    return false;
  }

  const JobProfile* p_ = nullptr;
  const ClusterView* view_ = nullptr;
  const std::vector<int>* order_ = nullptr;
  std::vector<int> path_;
  std::set<std::tuple<int, int, std::uint64_t>> failed_;
};

// A fill policy's placement (docs/model.md, "Relaxations"): the greedy fill in `order`; if it
// finds none, and the greedy fill in this order could not place the job even on the idle
// cluster (it would wait for ever: missing links, memory that only some regions have), the
// complete fill in the same order.
Placement fill_relaxed(const JobProfile& p, const ClusterView& view, const std::vector<int>& order, CompleteFill& complete) {
  Placement pl = fill_in_order(p, view, order);
  if (!pl.empty()) return pl;
  const ClusterView idle = idle_view(*view.topo, *view.compute, view.now_s);
  if (!fill_in_order(p, idle, order).empty()) return pl;  // it will fit once GPUs are released
  return complete.run(p, view, order);
}

class FillPolicy final : public PlacementPolicy {
 public:
  explicit FillPolicy(bool by_price) : by_price_(by_price) {}
  // Scenario order: success depends on free GPUs and the shape only. Price order: the order
  // changes with the clock, which is treated as not deciding *whether* a fill exists
  // (docs/model.md, "Skipping hopeless searches", states when that holds).
  bool failures_depend_only_on_shape_and_epoch() const override { return true; }
  Placement place(const SchedContext& ctx, int j, const ClusterView& view) override {
    std::vector<int> order;
    if (by_price_) {
      order = regions_by_price(view);
    } else {
      order.resize(static_cast<size_t>(view.regions()));
      std::iota(order.begin(), order.end(), 0);
    }
    return fill_relaxed(ctx.profile(j), view, order, complete_);
  }

 private:
  bool by_price_;
  CompleteFill complete_;
};

// cost-first: the single region with the lowest estimated cost for the whole job; wait if no
// region can host it now (rigid). A job no single region could ever host (too few GPUs or
// too little memory even when idle) is filled across regions in price order instead.
class CostFirstPolicy final : public PlacementPolicy {
 public:
  // Waits unless a region's free GPUs hold the whole job (shape and free GPUs only); prices
  // only choose among the regions that can. The fallback fill is the price-ordered fill above.
  bool failures_depend_only_on_shape_and_epoch() const override { return true; }
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
    if (!ever) return fill_relaxed(p, view, regions_by_price(view), complete_);
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

 private:
  CompleteFill complete_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_cost_first(const SchedulerParams&) { return std::make_unique<CostFirstPolicy>(); }
std::unique_ptr<PlacementPolicy> make_greedy_cost(const SchedulerParams&) { return std::make_unique<FillPolicy>(true); }
std::unique_ptr<PlacementPolicy> make_first_fit(const SchedulerParams&) { return std::make_unique<FillPolicy>(false); }

}  // namespace geopipe
