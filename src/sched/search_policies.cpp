// The search-based placement policies: bace-pipe's pathfinder + cost-min allocator and its
// ablations, and delay-first. All run the branch-and-bound of sched/pathfinder.h on the
// scheduler's view, with a per-job relaxation that keeps impossible constraints from making a
// job wait forever (docs/model.md, "Relaxations").
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "model/data_parallel.h"
#include "sched/estimate.h"
#include "sched/pathfinder.h"
#include "sched/placement_policy.h"

namespace geopipe {
namespace {

// Per-job relaxation, decided on the idle cluster: a policy whose constraints no placement
// could ever meet (more regions than max_region_switches allows, or no stall-free path even on
// empty links) would make the job wait forever; instead the job is allowed as many switches as
// it needs and, if no stall-free path exists at all, the least-stalling one.
//
// The idle cluster has the link capacities in force (ClusterView::capacity: with capacity
// series they change in time, and a capacity that has dropped below a job's stall-free demand
// for good must let the job run stall-tolerant; deciding on a series' maximum, as model version
// 4 did, stranded it). So the relaxations are decided again whenever the capacities change
// (ClusterView::capacity_version), which also starts a new epoch.
//
// At given capacities the relaxation is a function of the job's shape (SchedContext::shape): the
// searches below are feasibility searches (stop_at_first) for the least time, which read the
// profile's stages, micro-batching, GPUs per stage, FLOP, memory and activation size (equal
// within a shape: its profiles differ only in `iterations`, which only the cost objective reads)
// and the idle view (the capacities and GPU counts; its now_s only enters prices, which only
// the cost objective reads). So RelaxationScope::kPerShape decides it once per shape, for the
// first job of the shape that asks; kPerJob decides it for every job (the reference:
// Schedulers.RelaxationPerShapeChangesNoDecision compares the two).
struct Relax {
  bool known = false;
  int max_blocks = 0;
  bool stall_tolerant = false;
};

class SearchPolicy : public PlacementPolicy {
 public:
  // Whether a placement exists depends on the job's profile without its iterations (the
  // fastest search ignores prices), the relaxation decided on the idle cluster (a function of
  // the shape and the capacities in force, which change only with a new epoch), and the view's
  // free GPUs and residuals: shape and epoch.
  bool failures_depend_only_on_shape_and_epoch() const override { return true; }

  Placement place(const SchedContext& ctx, int j, const ClusterView& view) final {
    return place_one(ctx, j, relax_of(ctx, j, view), view);
  }

  /// bace-pipe and its ablations (sync_aware_) choose a gang among q-stacked ones
  /// (docs/model.md, "Data parallelism"): for every divisor q of D (ascending), the D/q groups of
  /// q replicas are placed group after group, each group's q replicas on the same regions
  /// (stage i of all q in one region), by this policy's own search on a copy of the view in
  /// which a region offers ⌊free/(q·g)⌋ stages and every link direction 1/q of its residual and
  /// capacity (what one of q equal flows would get); q = 1 is the rule per replica. Of the
  /// gangs whose rings are connected, the one with the least estimate_gang_iteration_s, or,
  /// for the cost-min allocator, the cheapest estimate_gang_cost_usd among those within
  /// (1 + ε) of the fastest; ties: the smaller q. Cost: σ(D) searches (the sum of D's
  /// divisors: 15 for D = 8) where the rule per replica takes D.
  Placement place_gang(const SchedContext& ctx, int j, const ClusterView& view) override {
    if (!sync_aware_) return PlacementPolicy::place_gang(ctx, j, view);
    const JobProfile& p = ctx.profile(j);
    const int D = p.data_parallel, S = p.stages;
    const Relax& rx = relax_of(ctx, j, view);
    gangs_.clear();
    for (int q = 1; q <= D; ++q) {
      if (D % q != 0) continue;
      trial_ = view;
      Placement gang;
      gang.stage_region.reserve(static_cast<size_t>(D * S));
      for (int t = 0; t < D / q; ++t) {
        const ClusterView* sv = &trial_;
        if (q > 1) {
          stacked_view(trial_, q, p.gpus_per_stage, stacked_);
          sv = &stacked_;
        }
        const Placement one = place_one(ctx, j, rx, *sv);
        if (one.empty()) {
          gang.stage_region.clear();
          break;
        }
        for (int c = 0; c < q; ++c) {
          trial_.commit(p, one);
          gang.stage_region.insert(gang.stage_region.end(), one.stage_region.begin(), one.stage_region.end());
        }
      }
      if (gang.empty() || !sync_rings_connected(gang.stage_region, S, *view.topo, view.compute->allreduce)) continue;
      const double t_s = estimate_gang_iteration_s(p, gang, view, bandwidth_);
      gangs_.push_back({std::move(gang), t_s});
    }
    if (gangs_.empty()) return {};
    const size_t best = fastest_or_cheapest(gangs_.size(), [&](size_t c) { return gangs_[c].iteration_s; },
                                            [&](size_t c) {
                                              return estimate_gang_cost_usd(p, gangs_[c].placement, gangs_[c].iteration_s, view);
                                            });
    return std::move(gangs_[best].placement);
  }

  /// A flexible job's variant (docs/model.md, "Choosing D"): the one whose placement has the
  /// least estimate_gang_iteration_s under this policy's bandwidth model (for one replica the
  /// single-pipeline estimate, bit for bit), or, for the cost-min allocator, the cheapest
  /// estimate_gang_cost_usd among those within (1 + ε) of it; ties: the smaller D.
  /// bace-pipe and its ablations (sync_aware_) are patient, as their pathfinder is with stalls:
  /// only a variant whose estimate is at most scheduler.variant_patience times the best the
  /// idle cluster offers the job (idle_best_s) may start, else the job waits (-1); never on a
  /// cluster whose GPUs are all free, so the job starts at the latest when the cluster is idle.
  int choose_variant(const SchedContext& ctx, int j, std::span<const VariantCandidate> cands,
                     std::span<const JobProfile> variants, const ClusterView& view) override {
    variant_s_.resize(cands.size());
    for (size_t c = 0; c < cands.size(); ++c)
      variant_s_[c] = estimate_gang_iteration_s(*cands[c].profile, cands[c].placement, view, bandwidth_);
    eligible_.clear();
    const bool idle = view.total_free >= view.topo->total_gpus();
    const double cap_s = sync_aware_ && !idle ? idle_best_s(ctx, j, variants, view) * prm_.variant_patience * (1.0 + 1e-12)
                                              : std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < cands.size(); ++c)
      if (variant_s_[c] <= cap_s) eligible_.push_back(c);
    if (eligible_.empty()) return -1;
    const size_t best = fastest_or_cheapest(eligible_.size(), [&](size_t e) { return variant_s_[eligible_[e]]; }, [&](size_t e) {
      const size_t c = eligible_[e];
      return estimate_gang_cost_usd(*cands[c].profile, cands[c].placement, variant_s_[c], view);
    });
    return static_cast<int>(eligible_[best]);
  }

 protected:
  /// `sync_aware`: place_gang chooses among stacked gangs by the gang estimate (bace-pipe and
  /// its ablations), else by the rule per replica (delay-first); `bandwidth` the estimate's
  /// bandwidth model; `costmin` whether the cheapest gang within (1 + ε) of the fastest wins.
  SearchPolicy(const SchedulerParams& p, RelaxationScope scope, bool sync_aware, BandwidthModel bandwidth, bool costmin)
      : prm_(p), scope_(scope), costmin_(costmin), sync_aware_(sync_aware), bandwidth_(bandwidth) {}

  /// The least estimate_gang_iteration_s of flexible job j's variants, each placed by this policy
  /// (place, or place_gang for D > 1) on the idle cluster at the view's capacities (+inf if none
  /// places there). Decided once per flexible shape and capacity state, as the relaxations are
  /// (the cost-min allocator's placements there depend on the prices of the clock it was
  /// decided at, within its (1 + ε) of the fastest).
  double idle_best_s(const SchedContext& ctx, int j, std::span<const JobProfile> variants, const ClusterView& view) {
    if (view.capacity_version != idle_capacity_version_) {
      idle_best_.clear();
      idle_capacity_version_ = view.capacity_version;
    }
    const auto key = static_cast<size_t>(ctx.shape(j));
    if (idle_best_.size() <= key) idle_best_.resize(key + 1, std::numeric_limits<double>::quiet_NaN());
    double& best = idle_best_[key];
    if (!std::isnan(best)) return best;
    best = std::numeric_limits<double>::infinity();
    const ClusterView idle = idle_view(*ctx.topo, *ctx.compute, view.now_s, &view.capacity);
    for (size_t k = 0; k < variants.size(); ++k) {
      const SchedContext vc = ctx.with_variant(j, static_cast<int>(k), variants[k]);
      const Placement pl = variants[k].data_parallel > 1 ? place_gang(vc, j, idle) : place(vc, j, idle);
      if (!pl.empty()) best = std::min(best, estimate_gang_iteration_s(variants[k], pl, idle, bandwidth_));
    }
    return best;
  }

  /// Of n candidates with estimated iteration times time_s(c): the fastest, or, for the cost-min
  /// allocator, the cheapest usd(c) among those within (1 + ε) of it; ties: the lower index.
  template <class Time, class Usd>
  size_t fastest_or_cheapest(size_t n, Time&& time_s, Usd&& usd) const {
    size_t best = 0;
    for (size_t c = 1; c < n; ++c)
      if (time_s(c) < time_s(best)) best = c;
    if (!costmin_) return best;
    const double cap_s = time_s(best) * (1.0 + prm_.epsilon) * (1.0 + 1e-12);
    double best_usd = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < n; ++c) {
      if (!(time_s(c) <= cap_s)) continue;
      const double u = usd(c);
      if (u < best_usd) {
        best_usd = u;
        best = c;
      }
    }
    return best;
  }

  /// The relaxation of job j (relax() with the policy's own arguments).
  virtual const Relax& relax_of(const SchedContext& ctx, int j, const ClusterView& view) = 0;
  /// One pipeline of job j on `search_view` under relaxation `rx`, or empty.
  virtual Placement place_one(const SchedContext& ctx, int j, const Relax& rx, const ClusterView& search_view) = 0;

  SearchResult run(const JobProfile& p, const ClusterView& v, SearchSpec s) {
    // Under the balanced split the search ranks by the even split's estimate: keep what it
    // reached, to count the searches where that ranking provably cost something.
    // (Replicas of a D > 1 job run the even split: nothing to count.)
    s.keep_incumbents = v.compute->layer_partition != LayerPartition::kEven && p.data_parallel == 1;
    SearchResult r = pf_.search(p, v, s);
    ++effort_.searches;
    effort_.nodes += r.nodes;
    effort_.truncated += r.truncated;
    effort_.partition_misses += balanced_split_beats(p, v, s, r);
    return r;
  }

  /// Relaxation for job j: tries `strict` (as given) then with all regions allowed, on the idle
  /// cluster at the view's capacities; if `stall_free` and neither works, falls back to
  /// stall-tolerant. Decided once per shape or per job (scope_, see Relax) and capacity state.
  const Relax& relax(const SchedContext& ctx, int j, const ClusterView& view, bool stall_free, BandwidthModel bw) {
    if (view.capacity_version != relax_capacity_version_) {
      relax_.clear();
      relax_capacity_version_ = view.capacity_version;
    }
    // kPerJob keys by job; a flexible job's variants (SchedContext::with_variant) are other
    // shapes of the same job, so under kPerJob a variant's relaxation is decided afresh at every
    // call (the reference mode: nothing cached that another variant could see).
    Relax* slot = &uncached_;
    if (scope_ == RelaxationScope::kPerShape || j != ctx.override_job) {
      const int key = scope_ == RelaxationScope::kPerShape ? ctx.shape(j) : j;
      if (relax_.size() <= static_cast<size_t>(key)) relax_.resize(static_cast<size_t>(key) + 1);
      slot = &relax_[static_cast<size_t>(key)];
      if (slot->known) return *slot;
    }
    Relax& rx = *slot;
    rx = Relax{};
    rx.known = true;
    const ClusterView idle = idle_view(*ctx.topo, *ctx.compute, view.now_s, &view.capacity);
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
  RelaxationScope scope_;
  Pathfinder pf_;
  std::vector<Relax> relax_;  ///< by shape or by job (scope_), at relax_capacity_version_
  Relax uncached_;            ///< kPerJob: a flexible job's variant's, decided at each call
  long relax_capacity_version_ = 0;
  bool costmin_;  ///< the cost-min allocator follows the fastest search (one replica and a gang)

 private:
  /// `v` as one of q equal replicas stacked on the same regions sees it: free GPUs rounded down
  /// to whole stacks of q·g per region (⌊free/(q·g)⌋·g), and each link direction's residual and
  /// capacity divided by q (flow counts unchanged).
  static void stacked_view(const ClusterView& v, int q, int g, ClusterView& out) {
    out = v;
    const int R = v.regions();
    out.total_free = 0;
    for (int r = 0; r < R; ++r) {
      int& f = out.free_gpus[static_cast<size_t>(r)];
      f = f / (q * g) * g;
      out.total_free += f;
    }
    if (out.capacity.empty()) {
      out.capacity.assign(static_cast<size_t>(R * R), 0.0);
      for (int a = 0; a < R; ++a)
        for (int b = 0; b < R; ++b)
          if (a != b) out.capacity[static_cast<size_t>(a * R + b)] = v.topo->link(a, b).capacity_bytes_per_s;
    }
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < R; ++b) {
        if (a == b) continue;
        out.residual[static_cast<size_t>(a * R + b)] /= q;
        out.capacity[static_cast<size_t>(a * R + b)] /= q;
      }
  }
  struct Gang {
    Placement placement;
    double iteration_s = 0;
  };
  bool sync_aware_;
  BandwidthModel bandwidth_;
  std::vector<Gang> gangs_;  ///< place_gang's candidates (storage reused)
  std::vector<double> variant_s_;  ///< choose_variant's estimates (storage reused)
  std::vector<size_t> eligible_;   ///< choose_variant's candidates within the patience bound
  std::vector<double> idle_best_;  ///< by flexible shape: idle_best_s, NaN = not yet (at idle_capacity_version_)
  long idle_capacity_version_ = 0;
  ClusterView stacked_;      ///< place_gang's stacked view (storage reused)
};

// Bandwidth-aware pathfinder (stall-free hops only), then either the cost-min allocator
// (cheapest estimated cost within (1+ε) of the fastest feasible path) or the fastest path.
class PathfinderPolicy final : public SearchPolicy {
 public:
  PathfinderPolicy(const SchedulerParams& p, RelaxationScope scope, bool costmin)
      : SearchPolicy(p, scope, true, BandwidthModel::kExpected, costmin) {}

 private:
  const Relax& relax_of(const SchedContext& ctx, int j, const ClusterView& view) override {
    return relax(ctx, j, view, true, BandwidthModel::kExpected);
  }
  Placement place_one(const SchedContext& ctx, int j, const Relax& rx, const ClusterView& view) override {
    const JobProfile& p = ctx.profile(j);
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = !rx.stall_tolerant;
    s.bandwidth = BandwidthModel::kExpected;
    s.objective = SearchSpec::Objective::kMinTime;
    SearchResult fastest = run(p, view, s);
    if (!fastest.found || !costmin_) return fastest.placement;
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fastest.est_iteration_s * (1.0 + prm_.epsilon) * (1.0 + 1e-12);
    s.same_job_and_view = true;  // right after the fastest search of the same job and view
    SearchResult cheapest = run(p, view, s);
    return cheapest.found ? cheapest.placement : fastest.placement;
  }
};

// bace-no-pathfinder: cost-min over all placements with a bandwidth-blind estimate and no
// stall-freedom check (it cannot see bandwidth), within (1+ε) of the blind-fastest.
class CostMinBlindPolicy final : public SearchPolicy {
 public:
  CostMinBlindPolicy(const SchedulerParams& p, RelaxationScope scope) : SearchPolicy(p, scope, true, BandwidthModel::kBlind, true) {}

 private:
  const Relax& relax_of(const SchedContext& ctx, int j, const ClusterView& view) override {
    return relax(ctx, j, view, false, BandwidthModel::kBlind);
  }
  Placement place_one(const SchedContext& ctx, int j, const Relax& rx, const ClusterView& view) override {
    const JobProfile& p = ctx.profile(j);
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = false;
    s.bandwidth = BandwidthModel::kBlind;
    SearchResult fastest = run(p, view, s);
    if (!fastest.found) return {};
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fastest.est_iteration_s * (1.0 + prm_.epsilon) * (1.0 + 1e-12);
    s.same_job_and_view = true;  // right after the fastest search of the same job and view
    SearchResult cheapest = run(p, view, s);
    return cheapest.found ? cheapest.placement : fastest.placement;
  }
};

// delay-first: the placement with the smallest estimated iteration time, using the bandwidth
// a new flow would get under max-min sharing; price-blind; no stall-freedom requirement.
class DelayFirstPolicy final : public SearchPolicy {
 public:
  DelayFirstPolicy(const SchedulerParams& p, RelaxationScope scope) : SearchPolicy(p, scope, false, BandwidthModel::kExpected, false) {}

 private:
  const Relax& relax_of(const SchedContext& ctx, int j, const ClusterView& view) override {
    return relax(ctx, j, view, false, BandwidthModel::kExpected);
  }
  Placement place_one(const SchedContext& ctx, int j, const Relax& rx, const ClusterView& view) override {
    SearchSpec s;
    s.max_blocks = rx.max_blocks;
    s.stall_free = false;
    s.bandwidth = BandwidthModel::kExpected;
    return run(ctx.profile(j), view, s).placement;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_search_policy(SearchPolicyKind kind, const SchedulerParams& p, RelaxationScope scope) {
  switch (kind) {
    case SearchPolicyKind::kPathfinderCostMin: return std::make_unique<PathfinderPolicy>(p, scope, true);
    case SearchPolicyKind::kPathfinderMinTime: return std::make_unique<PathfinderPolicy>(p, scope, false);
    case SearchPolicyKind::kCostMinBlind: return std::make_unique<CostMinBlindPolicy>(p, scope);
    case SearchPolicyKind::kDelayFirst: return std::make_unique<DelayFirstPolicy>(p, scope);
  }
  throw std::invalid_argument("make_search_policy: unknown kind");
}

std::unique_ptr<PlacementPolicy> make_pathfinder_costmin(const SchedulerParams& p) {
  return make_search_policy(SearchPolicyKind::kPathfinderCostMin, p, RelaxationScope::kPerShape);
}
std::unique_ptr<PlacementPolicy> make_pathfinder_mintime(const SchedulerParams& p) {
  return make_search_policy(SearchPolicyKind::kPathfinderMinTime, p, RelaxationScope::kPerShape);
}
std::unique_ptr<PlacementPolicy> make_costmin_blind(const SchedulerParams& p) {
  return make_search_policy(SearchPolicyKind::kCostMinBlind, p, RelaxationScope::kPerShape);
}
std::unique_ptr<PlacementPolicy> make_delay_first(const SchedulerParams& p) {
  return make_search_policy(SearchPolicyKind::kDelayFirst, p, RelaxationScope::kPerShape);
}

}  // namespace geopipe
