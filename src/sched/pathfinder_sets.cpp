// The pathfinder's region-set decomposition (sched/pathfinder.h, "On wide topologies and deep
// pipelines"): sets of regions taken best bound first from one heap of sets and frames, each
// searched by the DFS restricted to it; their chains of hops; interchangeable (twin) regions.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "sched/pathfinder_impl.h"

namespace geopipe {

using pathfinder_internal::kInf;

bool Pathfinder::Impl::search_by_region_sets(int cap_total) {
  // Decomposition by the set of regions a placement uses (each placement uses exactly one
  // set). Every set of at most max_blocks regions that can hold the job gets a lower bound of
  // the objective that needs no ordering: the S stages filled into its regions best figure
  // first (capacity-limited), and for time the slowest region's cheapest stage in the max
  // term plus one cheapest hop per extra region. Sets are searched in increasing bound, each
  // by the same DFS restricted to the set (the other regions marked used) and required to use
  // all of it, until the next bound exceeds the incumbent. The bounds within a set (the fill
  // over the set's unused regions) are much tighter than over all regions, which is what makes
  // this fast on wide topologies: a cheap region that is badly linked no longer props up the
  // bound of every partial placement.
  // Exact like the plain DFS; where several placements tie (exactly, or to rounding), the
  // first one found in this order is returned, which can differ from the plain DFS's choice.
  if (!region_sets_apply()) return false;
  first_incumbent(cap_total);
  // The set phase has a budget of sets and frames built (many sets with weak bounds, e.g. a
  // tight time cap that few of them meet): past it the search goes on with the plain DFS,
  // which keeps the incumbent found so far (exact either way).
  return search_sets();
}

void Pathfinder::Impl::first_incumbent(int cap_total) {
  // A first incumbent prunes the sets: the plain DFS's first placement (best regions first,
  // long blocks first) within a small node budget. It is a placement like any other; ties
  // with it are resolved as with any incumbent.
  const long budget = spec_.node_budget;
  spec_.stop_at_first = true;
  spec_.node_budget = std::min(budget, nodes_ + 8L * S_ * spec_.max_blocks);
  memo_clear();
  dfs(0, -1, 0, 0, cap_total, 0.0, 0.0, 0.0);
  spec_.stop_at_first = false;
  spec_.node_budget = budget;
  truncated_ = stop_ = false;
}

bool Pathfinder::Impl::region_sets_apply() const {
  using St = SearchSpec::Strategy;
  const int K = std::min(spec_.max_blocks, R_);
  if (spec_.strategy == St::kPlain || K <= 0 || K > 6) return false;  // K > 6: K! orders per set
  if (spec_.strategy == St::kRegionSets) return true;
  // kAuto: shallow jobs (fewer than two stages per allowed block) are searched faster by the
  // plain DFS: its block-length loops are short there and the set enumeration would dominate.
  // Below 8 regions the plain DFS is kept for pipelines of fewer than 16 stages: it is faster
  // on 2–4 regions there, and the shipped sweeps' results (at most 8 stages on 6 regions) were
  // made with it (the set search, faster from 8 stages on 5–7 regions, picks other tied
  // placements in them); from 16 stages the set search is faster on 4–7 regions, the plain
  // one on 2–3 (docs/performance.md, "The strategy below 8 regions").
  if (S_ < 2 * K) return false;
  return R_ >= kSetsMinRegions || (R_ >= kSetsDeepMinRegions && S_ >= kSetsDeepMinStages);
}

bool Pathfinder::Impl::search_sets() {
  // Best-first over the sets of regions a placement may use. The sets are the combinations of
  // the usable regions in rank order (best figure first, so a set's fill is incremental); a
  // *frame* stands for the sets that extend a combination with later-ranked regions, keyed by
  // a lower bound of all of them. One heap holds frames and sets: the least key comes first,
  // frames before sets at equal keys (and frame keys shaded by 1e-12), so every set comes out
  // after every frame that could still hold a set of smaller bound, i.e. the sets come out in
  // increasing (bound, mask) order, the order the search promises. A set is searched by the
  // DFS restricted to it; the search stops at the first key above the incumbent (with the
  // margin the bounds need: they are not summed in the DFS's order). Only the frames and sets
  // below the final incumbent are ever built, however many sets the topology has.
  const int K = std::min(spec_.max_blocks, R_);
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  const double mm1 = mm1_;
  set_rank_.clear();
  for (int r = 0; r < R_; ++r)
    if (cap_[static_cast<size_t>(r)] > 0 && sufmin_unit_[static_cast<size_t>(r * (S_ + 1))] < kInf) set_rank_.push_back(r);
  auto fig = [&](int r) {
    return cost ? sufmin_coef_[static_cast<size_t>(r * (S_ + 1))] : sufmin_unit_[static_cast<size_t>(r * (S_ + 1))];
  };
  std::sort(set_rank_.begin(), set_rank_.end(), [&](int a, int b) { return fig(a) < fig(b) || (fig(a) == fig(b) && a < b); });
  const int n = static_cast<int>(set_rank_.size());
  const double cap_t = spec_.time_cap_s * (1.0 + 1e-9);
  auto threshold = [&] { return best_obj_ + 1e-9 * std::abs(best_obj_); };
  auto shade = [](double key) { return key > 0 ? key * (1.0 - 1e-12) : key; };
  frames_.clear();
  set_heap_.clear();
  frames_.push_back({0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0});
  set_heap_.push_back({-kInf, 0, 0, 0, 0});
  require_all_ = true;
  const long item_budget = 32L * R_ * S_;
  long items = 0;
  bool within_budget = true;
  while (!set_heap_.empty() && !truncated_ && within_budget) {
    std::pop_heap(set_heap_.begin(), set_heap_.end(), set_item_after);
    const SetItem it = set_heap_.back();
    set_heap_.pop_back();
    const double thr = threshold();
    if (it.key > thr) break;
    if (it.kind == 1) {  // a set: the DFS restricted to it, required to use all of it
      memo_clear();
      dfs(0, -1, 0, full_ & ~it.mask, it.capsum, 0.0, 0.0, 0.0);
      continue;
    }
    const SetFrame f = frames_[static_cast<size_t>(it.frame)];
    for (int q = f.next; q < n; ++q) {
      if (++items > item_budget) {
        within_budget = false;
        break;
      }
      const int r = set_rank_[static_cast<size_t>(q)];
      // Interchangeable regions (compute_symmetry) enter a set in index order only; being
      // interchangeable they have equal figures, so the predecessor has an earlier rank and
      // is already in f.mask if it is in the set at all.
      const int pr = sym_prev_[static_cast<size_t>(r)];
      if (pr >= 0 && !(f.mask >> pr & 1U)) continue;
      const int cr = cap_[static_cast<size_t>(r)];
      const double mi = min_in_all_[static_cast<size_t>(r)];
      const SetFrame g{q + 1, f.mask | std::uint64_t{1} << r, std::min(S_, f.filled + cr), f.capsum + cr, f.k + 1,
                       f.fill + std::min(cr, S_ - f.filled) * fig(r), std::max(f.maxunit, sufmin_unit_[static_cast<size_t>(r * (S_ + 1))]),
                       f.in_sum + mi, std::max(f.in_max, mi)};
      const double tmax = mm1 * std::max(lb_max_[0], g.maxunit);
      // The sets extending g add regions of later rank (worse figure), a hop each, and leave at
      // least S − K same-region hops; there is a hop into every region of g but the chain's
      // start (min_in_all_) and one into an added region.
      if (g.k < K && g.k < S_ && q + 1 < n) {
        const double ext_fill = g.fill + (S_ - g.filled) * fig(set_rank_[static_cast<size_t>(q + 1)]);
        const double ext_hops = std::max(g.k * min_hop_lb_, g.in_sum - g.in_max + min_hop_lb_);
        const double ext_t = tmax + ext_hops + opt_step_ + intra_hops_s_[static_cast<size_t>(std::max(0, S_ - K))] +
                             (cost ? lb_sum_[0] : std::max(lb_sum_[0], ext_fill));
        const double key = shade(cost ? std::max(ext_fill, lb_obj_[0]) : ext_t);
        if ((!cost || ext_t <= cap_t) && key <= thr) {
          frames_.push_back(g);
          set_heap_.push_back({key, g.mask, 0, static_cast<int>(frames_.size() - 1), 0});
          std::push_heap(set_heap_.begin(), set_heap_.end(), set_item_after);
        }
      }
      if (g.capsum < S_ || g.k > S_) continue;  // cannot hold the job / a region would get no stage
      // The k blocks of a placement on the set leave exactly S − k same-region hops.
      const double tsum = opt_step_ + intra_hops_s_[static_cast<size_t>(S_ - g.k)] + (cost ? lb_sum_[0] : std::max(lb_sum_[0], g.fill));
      // Quick test with the least hops, then the set's own least chain of hops.
      const double quick = tmax + std::max((g.k - 1) * min_hop_lb_, chain_floor(g.mask)) + tsum;
      if (cost ? quick > cap_t : quick > thr) continue;
      double chain_t, chain_usd;
      if (!least_chain(g.mask, std::max(lb_max_[0], g.maxunit), chain_t, chain_usd)) continue;
      const double t_lb = chain_t + tsum;
      const double lb = cost ? std::max(g.fill, lb_obj_[0]) + chain_usd : t_lb;
      if ((cost && t_lb > cap_t) || lb > thr) continue;
      set_heap_.push_back({lb, g.mask, 1, -1, g.capsum});
      std::push_heap(set_heap_.begin(), set_heap_.end(), set_item_after);
    }
  }
  require_all_ = false;
  return within_budget;
}


double Pathfinder::Impl::chain_floor(std::uint64_t mask) const {
  // A cheap lower bound of least_chain's Σ: in a chain through the set, every region but the
  // start is entered from another region of the set, and every region but the end is left
  // for one; so Σ >= Σ_v (least hop into v from the set) − the largest of them, and the same
  // with hops out.
  int regs[64], k = 0;
  for (std::uint64_t b = mask; b; b &= b - 1) regs[k++] = std::countr_zero(b);
  if (k < 2) return 0.0;
  double in_sum = 0, in_max = 0, out_sum = 0, out_max = 0;
  for (int x = 0; x < k; ++x) {
    double mi = kInf, mo = kInf;
    for (int y = 0; y < k; ++y) {
      if (y == x) continue;
      mi = std::min(mi, hop_lb_[static_cast<size_t>(regs[y] * R_ + regs[x])]);
      mo = std::min(mo, hop_lb_[static_cast<size_t>(regs[x] * R_ + regs[y])]);
    }
    in_sum += mi;
    in_max = std::max(in_max, mi);
    out_sum += mo;
    out_max = std::max(out_max, mo);
  }
  return std::max(in_sum - in_max, out_sum - out_max);
}

bool Pathfinder::Impl::least_chain(std::uint64_t mask, double maxunit, double& t, double& usd) const {
  // Every placement on the set chains its regions in some order with one hop between
  // neighbours. Over all orders: the least w·max(maxunit, hop communication) + Σ (latency +
  // communication) of the hops (hop_lb_/hopc_lb_), and separately the least egress. False if
  // no order has usable hops throughout.
  int regs[6], k = 0;
  for (std::uint64_t b = mask; b; b &= b - 1) regs[k++] = std::countr_zero(b);
  t = kInf;
  usd = kInf;
  do {
    double hs = 0, hm = maxunit, eg = 0;
    int x = 1;
    for (; x < k; ++x) {
      const auto e = static_cast<size_t>(regs[x - 1] * R_ + regs[x]);
      hs += hop_lb_[e];
      hm = std::max(hm, hopc_lb_[e]);
      eg += hop_egress_[e];
      if (hs == kInf) break;
    }
    if (x < k) continue;
    t = std::min(t, mm1_ * hm + hs);
    usd = std::min(usd, eg);
  } while (std::next_permutation(regs, regs + k));
  return t < kInf;
}

void Pathfinder::Impl::compute_symmetry() {
  // Regions a < b are interchangeable when swapping them maps the search onto itself: equal
  // per-stage tables (unit, forward, cost coefficient) and capacity, and equal links (presence,
  // latency, capacity, residual, flows) to and from every other region, the a–b link equal in
  // both directions. Placements that differ by such a swap have bit-identical objectives.
  // sym_prev_[r]: the previous region of r's class by index, or −1.
  sym_prev_.assign(static_cast<size_t>(R_), -1);
  const Topology& topo = *view_->topo;
  // The hash covers the per-region tables only (O(R·S); it runs before every search, so no
  // pass over the R² links here): pairs of equal hash are then compared in full, links
  // included, and a pair of regions that differ only in their links fails that comparison at
  // the first link that differs.
  auto row_hash = [&](int r) {
    std::uint64_t h = static_cast<std::uint64_t>(cap_[static_cast<size_t>(r)]) * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      h = (h ^ std::bit_cast<std::uint64_t>(unit_[k])) * 0x100000001B3ULL;
      h = (h ^ std::bit_cast<std::uint64_t>(coef_[k])) * 0x100000001B3ULL;
    }
    return h;
  };
  sym_hash_.resize(static_cast<size_t>(R_));
  for (int r = 0; r < R_; ++r) sym_hash_[static_cast<size_t>(r)] = row_hash(r);
  auto same_dir = [&](int a, int c, int b, int d) {  // link a->c vs b->d
    const Link& x = topo.link(a, c);
    const Link& y = topo.link(b, d);
    return x.capacity_bytes_per_s == y.capacity_bytes_per_s && x.latency_s == y.latency_s &&
           x.egress_usd_per_byte == y.egress_usd_per_byte && x.capacity_series == y.capacity_series &&
           view_->capacity_bw(a, c) == view_->capacity_bw(b, d) && view_->residual_bw(a, c) == view_->residual_bw(b, d) && view_->flow_count(a, c) == view_->flow_count(b, d);
  };
  auto equivalent = [&](int a, int b) {  // (links first: regions of equal hash differ there if anywhere)
    if (cap_[static_cast<size_t>(a)] != cap_[static_cast<size_t>(b)]) return false;
    if (!same_dir(a, b, b, a)) return false;
    for (int c = 0; c < R_; ++c)
      if (c != a && c != b && (!same_dir(a, c, b, c) || !same_dir(c, a, c, b))) return false;
    for (int i = 0; i < S_; ++i) {
      const auto ka = static_cast<size_t>(a * S_ + i), kb = static_cast<size_t>(b * S_ + i);
      if (unit_[ka] != unit_[kb] || fwd_[ka] != fwd_[kb] || coef_[ka] != coef_[kb]) return false;
    }
    return true;
  };
  for (int b = 1; b < R_; ++b)
    for (int a = b - 1; a >= 0; --a)
      if (sym_hash_[static_cast<size_t>(a)] == sym_hash_[static_cast<size_t>(b)] && equivalent(a, b)) {
        sym_prev_[static_cast<size_t>(b)] = a;  // the nearest lower one: classes chain by index
        break;
      }
}

}  // namespace geopipe
