// The pathfinder's depth-first branch-and-bound over blocks (sched/pathfinder.h, "The search
// is a depth-first branch-and-bound"): its suffix bounds, the dominance memo and the DFS. The
// DFS and the helpers it calls per node are in this one file so that they inline: the ones it
// calls per block length are marked always_inline (g++ 12 kept them out of line, and their
// calls, with results returned through references, cost ~13 % of a 6-region × 64-stage
// decision's instructions; docs/performance.md, "The pathfinder's inner loop").
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>

#include "sched/pathfinder_impl.h"
#include "sim/energy.h"

namespace geopipe {

using pathfinder_internal::kInf;

[[gnu::always_inline]] inline bool Pathfinder::Impl::suffix_fill(int j, std::uint64_t mask, int k, double first,
                                                                double& sum, double& mx, double& hops) const {
  // The stages j.. need at least k more blocks (the caller's count over the largest unused
  // regions), each starting with a cross-region hop: the first leaves the block just placed
  // for an unused region (at least `first`, the least round-trip latency to one), the k−1
  // after it cost at least the cheapest round-trip latency of any link. (The search compares
  // this sum with the incumbent without a margin, so it is computed exactly as it always was;
  // tighter hop terms are added by the caller, with the margin.)
  sum = mx = hops = 0;
  const int n = S_ - j;
  if (n <= 0) return true;
  sum = hops = first + (k - 1) * min_hop_time_;
  int left = n;
  // Fill the n stages into unused regions, best per-stage figure first (ignoring contiguity).
  const FillEntry* e = lb_fill_unit_.data() + lb_order_unit_.start[static_cast<size_t>(j)];
  for (const FillEntry* end = e + lb_order_unit_.size[static_cast<size_t>(j)]; e != end; ++e) {
    if (mask >> e->r & 1U) continue;
    mx = e->v;
    if (e->cap < left) {  // the whole region: cap · v, computed once per search
      sum += e->capv;
      left -= e->cap;
    } else {
      sum += left * e->v;
      return true;
    }
  }
  return false;
}

[[gnu::always_inline]] inline double Pathfinder::Impl::suffix_cost(int j, std::uint64_t mask) const {
  // The same fill by cost coefficients (the cost search's bound of the stages j..). Its lists
  // hold the same regions as suffix_fill's (both keep the regions with free GPUs that can take
  // a stage >= j), so it fills the stages whenever suffix_fill did: the callers ask only then.
  double obj = 0;
  int left = S_ - j;
  if (left <= 0) return 0.0;
  const FillEntry* e = lb_fill_coef_.data() + lb_order_coef_.start[static_cast<size_t>(j)];
  for (const FillEntry* end = e + lb_order_coef_.size[static_cast<size_t>(j)]; e != end; ++e) {
    if (mask >> e->r & 1U) continue;
    if (e->cap < left) {
      obj += e->capv;
      left -= e->cap;
    } else {
      return obj + left * e->v;
    }
  }
  assert(!"suffix_cost: the stages do not fit, though suffix_fill fitted them in the same regions");
  return obj;
}

double Pathfinder::Impl::least_two_hops(int r, std::uint64_t mask, const int* next, int nnext) const {
  // The least hop_lb_(r, x) + hop_lb_(x, y) over x in `next` (sorted by hop_lb_(r, x)) and y
  // an unused region with free GPUs other than x: the first two hops after a block on r when
  // at least two more blocks follow (+inf if no such chain).
  double best = kInf;
  for (int t = 0; t < nnext; ++t) {
    const int x = next[t];
    const double h1 = hop_lb_[static_cast<size_t>(r * R_ + x)];
    if (h1 + min_hop_lb_ >= best) break;
    const int* nb = nbr_order_.data() + static_cast<size_t>(x * R_);
    for (int u = 0, n = nbr_count_[static_cast<size_t>(x)]; u < n; ++u)
      if (!(mask >> nb[u] & 1U)) {
        best = std::min(best, h1 + hop_lb_[static_cast<size_t>(x * R_ + nb[u])]);
        break;
      }
  }
  return best;
}

[[gnu::always_inline]] inline bool Pathfinder::Impl::next_block_may_improve(int j, int r, const int* next, int nnext,
                                                                           int blocks_left, double bsum, double bmax,
                                                                           double bobj, double rs, double rs_hops,
                                                                           double chain, double t_thr,
                                                                           double c_thr) const {
  // The block after the one just placed on r (ending before stage j) starts at stage j on one
  // of `next`: an unused region with free GPUs that a hop from r can reach. Bounds that the
  // suffix fill (which may put the stages anywhere) cannot give; a false return means no
  // completion is within t_thr in time or, for cost, below c_thr.
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  const int n = S_ - j;
  if (nnext == 0) return false;
  if (blocks_left == 1) {
    // Exactly one more block: all n stages on one region x of `next`, after one hop. Its time is
    // at least w·max(bmax, x's largest unit) + bsum + hop_lb(r, x) + x's units + the n − 1
    // intra-region hops, and its cost bobj + x's coefficients (egress >= 0).
    for (int t = 0; t < nnext; ++t) {
      const int x = next[t];
      const auto xs = static_cast<size_t>(x);
      if (cap_[xs] < n || run_[static_cast<size_t>(x * S_ + j)] < n) continue;
      const double* up = unit_prefix_.data() + static_cast<size_t>(x * (S_ + 1));
      const double T = mm1_ * std::max({bmax, sufmax_unit_[static_cast<size_t>(x * (S_ + 1) + j)], n > 1 ? intra_c_ : 0.0}) +
                       bsum + hop_lb_[static_cast<size_t>(r * R_ + x)] + (up[S_] - up[j]) + intra_hops_s_[static_cast<size_t>(n - 1)] + opt_step_;
      if (T > t_thr) continue;
      if (cost) {
        const double* cp = coef_prefix_.data() + static_cast<size_t>(x * (S_ + 1));
        if (bobj + (cp[S_] - cp[j]) > c_thr) continue;
      }
      return true;
    }
    return false;
  }
  // Several blocks may follow: stage j runs on some region of `next`, so the max term holds at
  // least the least of their units at stage j (the fill's max may come from elsewhere).
  double u_next = kInf;
  for (int t = 0; t < nnext; ++t) u_next = std::min(u_next, unit(next[t], j));
  if (u_next == kInf) return false;
  const double T = mm1_ * std::max(bmax, u_next) + bsum + std::max(rs, rs - rs_hops + chain) + opt_step_;
  return T <= t_thr;
}

void Pathfinder::Impl::memo_clear() {
  if (memo_slots_.empty()) memo_slots_.resize(64);  // doubles as it fills (memo_slot)
  if (++memo_gen_ == 0) {  // generation wrapped: really clear once every 2^32 searches
    for (MemoSlot& sl : memo_slots_) sl.gen = 0;
    memo_gen_ = 1;
  }
  memo_used_ = 0;
  memo_labels_.clear();
}

namespace {
inline std::uint64_t mix64(std::uint64_t x) {  // SplitMix64 finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
}  // namespace

void Pathfinder::Impl::memo_grow() {
  std::vector<MemoSlot> old(memo_slots_.size() * 2);
  old.swap(memo_slots_);
  for (const MemoSlot& sl : old) {
    if (sl.gen != memo_gen_) continue;
    size_t h = static_cast<size_t>(mix64(sl.mask + mix64(static_cast<std::uint64_t>(sl.stage) << 8 | static_cast<std::uint64_t>(sl.region))));
    const size_t m = memo_slots_.size() - 1;
    while (memo_slots_[h & m].gen == memo_gen_) ++h;
    memo_slots_[h & m] = sl;
  }
}

[[gnu::always_inline]] inline Pathfinder::Impl::MemoSlot& Pathfinder::Impl::memo_slot(std::uint64_t mask, int stage,
                                                                                    int region) {
  if (2 * (memo_used_ + 1) > memo_slots_.size()) memo_grow();  // keep the load factor <= 1/2
  const size_t m = memo_slots_.size() - 1;
  size_t h = static_cast<size_t>(mix64(mask + mix64(static_cast<std::uint64_t>(stage) << 8 | static_cast<std::uint64_t>(region))));
  for (;; ++h) {
    MemoSlot& sl = memo_slots_[h & m];
    if (sl.gen != memo_gen_) {
      sl = MemoSlot{mask, stage, region, -1, memo_gen_};
      ++memo_used_;
      return sl;
    }
    if (sl.mask == mask && sl.stage == stage && sl.region == region) return sl;
  }
}

[[gnu::always_inline]] inline bool Pathfinder::Impl::dominated_or_insert(int i, int r, std::uint64_t mask, double obj,
                                                                        double sum, double mx) {
  MemoSlot& sl = memo_slot(mask, i, r);
  for (int k = sl.head; k >= 0; k = memo_labels_[static_cast<size_t>(k)].next) {
    const Label& l = memo_labels_[static_cast<size_t>(k)];
    if (l.obj <= obj && l.sum <= sum && l.max <= mx) return true;
  }
  // Unlink the labels the new one dominates, then keep it (the order of a slot's labels does
  // not matter: only whether one of them dominates).
  int* link = &sl.head;
  while (*link >= 0) {
    const Label& l = memo_labels_[static_cast<size_t>(*link)];
    if (obj <= l.obj && sum <= l.sum && mx <= l.max) {
      *link = l.next;
    } else {
      link = &memo_labels_[static_cast<size_t>(*link)].next;
    }
  }
  memo_labels_.push_back(Label{obj, sum, mx, sl.head});
  sl.head = static_cast<int>(memo_labels_.size() - 1);
  return false;
}

double Pathfinder::Impl::rest_chain(int last, std::uint64_t unused) const {
  // Least Σ hop_lb_ of a chain from `last` through all regions of `unused` (at most 5).
  int regs[6], k = 0;
  for (std::uint64_t b = unused; b; b &= b - 1) regs[k++] = std::countr_zero(b);
  if (k == 0) return 0.0;
  double best = kInf;
  do {
    double c = hop_lb_[static_cast<size_t>(last * R_ + regs[0])];
    for (int x = 1; x < k && c < best; ++x) c += hop_lb_[static_cast<size_t>(regs[x - 1] * R_ + regs[x])];
    best = std::min(best, c);
  } while (std::next_permutation(regs, regs + k));
  return best;
}

void Pathfinder::Impl::dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj,
                     double sum, double mx) {
  if (++nodes_ > spec_.node_budget) {
    truncated_ = true;
    return;
  }
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  const double mm1 = mm1_;
  if (i == S_) {
    const double T = mm1 * mx + sum + opt_step_;
    const double o = cost ? obj : T;
    if (cost && T > spec_.time_cap_s) return;
    if (require_all_ && mask != full_) return;
    if (o < best_obj_) {
      best_obj_ = o;
      best_T_ = T;
      best_r_ = path_r_;
      best_len_ = path_len_;
      if (spec_.keep_incumbents) {
        Placement& q = incumbents_.emplace_back();
        q.stage_region.reserve(static_cast<size_t>(S_));
        for (size_t b = 0; b < path_r_.size(); ++b) q.stage_region.insert(q.stage_region.end(), static_cast<size_t>(path_len_[b]), path_r_[b]);
      }
      if (spec_.stop_at_first) stop_ = true;
    }
    return;
  }
  if (blocks >= spec_.max_blocks) return;
  const double A = p_->activation_bytes;
  const bool must_finish = blocks + 1 == spec_.max_blocks;
  const int blocks_left = spec_.max_blocks - blocks - 1;  // after the block placed here
  // The unused regions' capacities, largest first: enough of them to count, for any region r
  // placed here, the fewest further blocks the rest needs (the capacity part of the suffix
  // bound) without a pass over all regions per block length.
  const auto row = static_cast<size_t>(blocks) * static_cast<size_t>(R_ + 1);
  int* top_cap = topcap_buf_.data() + row;
  int* top_reg = topreg_buf_.data() + row;
  int* capk = capk_buf_.data() + row;
  int ntop = 0;
  for (int x : cap_order_) {
    if (ntop > blocks_left) break;
    if (mask >> x & 1U) continue;
    top_cap[ntop] = cap_[static_cast<size_t>(x)];
    top_reg[ntop] = x;
    ++ntop;
  }
  // Pruning thresholds. The block-length scan and the region tests below cut only what cannot
  // hold a placement within t_cut (the incumbent's time, or the cost search's time cap) and,
  // for cost, below the incumbent's cost, with a relative margin of 1e-9 that rounding cannot
  // reach: so they never cut a placement that would become the incumbent (the incumbents, and
  // so the result, are those of the exhaustive search in this order).
  // (Refreshed after every child: a child may have found a better incumbent.)
  double t_thr = 0, c_thr = 0;
  auto refresh_thresholds = [&] {
    const double t_cut = cost ? spec_.time_cap_s : best_obj_;
    t_thr = t_cut + 1e-9 * std::abs(t_cut);
    c_thr = cost ? best_obj_ + 1e-9 * std::abs(best_obj_) : kInf;
  };
  refresh_thresholds();
  const double lat_out = last >= 0 ? min_lat_from_[static_cast<size_t>(last)] : 0.0;
  const bool tight = tight_;
  for (int r : order_[i]) {
    if (truncated_ || stop_) return;
    if (mask >> r & 1U) continue;
    // Bounds that need neither the hop nor the block length, in the order the candidates are
    // sorted (by cost coefficient for cost, by unit time otherwise): once the bound of this
    // region fails, it fails for every later one, whose stage-i figure is no smaller.
    const double u = unit(r, i);
    const double tail = lb_sum_[static_cast<size_t>(i + 1)] + opt_step_;
    const double lat_lb = last >= 0 ? hop_lat_[static_cast<size_t>(last * R_ + r)] : 0.0;
    if (tight) {
      if (cost) {
        if (obj + coef(r, i) + lb_obj_[static_cast<size_t>(i + 1)] > c_thr) break;
      } else if (mm1 * std::max(mx, u) + sum + lat_out + u + tail > t_thr) {
        break;
      }
      if (lat_lb < kInf && mm1 * std::max(mx, u) + sum + lat_lb + u + tail > t_thr) continue;
    }
    if (lat_lb == kInf) continue;  // not linked
    // Of interchangeable regions (compute_symmetry), the lowest unused one is taken first: a
    // placement that puts this block on r while r's predecessor is unused mirrors one that
    // puts it on the predecessor, which comes earlier in order_[i] (ties by index) and has a
    // bit-identical objective, so it can never become the incumbent.
    if (sym_prev_[static_cast<size_t>(r)] >= 0 && !(mask >> sym_prev_[static_cast<size_t>(r)] & 1U)) continue;
    // Hop from the previous block (stage i−1 on `last`) into stage i on r.
    double hop_c = 0, hop_lat = 0, hop_usd = 0;
    if (last >= 0) {
      hop_lat = lat_lb;
      hop_usd = hop_egress_[static_cast<size_t>(last * R_ + r)];
      if (spec_.stall_free || spec_.bandwidth == BandwidthModel::kExpected) {
        const double beta = stall_free_demand_bytes_per_s(A, fwd_[static_cast<size_t>(last * S_ + i - 1)],
                                                          fwd_[static_cast<size_t>(r * S_ + i)]);
        if (spec_.stall_free && (view_->residual_bw(last, r) < beta || view_->residual_bw(r, last) < beta)) continue;
        if (spec_.bandwidth == BandwidthModel::kExpected) {
          const double s1 = view_->expected_share(last, r, beta), s2 = view_->expected_share(r, last, beta);
          if (s1 <= 0 || s2 <= 0) continue;
          hop_c = hop_comm_s(A, s1, s2);
        }
      }
    }
    const auto ri = static_cast<size_t>(r);
    int maxL = std::min({cap_[ri], run_[static_cast<size_t>(r * S_ + i)], S_ - i});
    if (maxL <= 0) continue;
    if (must_finish && maxL < S_ - i) continue;
    const double base_sum = sum + hop_c + hop_lat;
    const double base_obj = hop_usd > 0 ? obj + hop_usd : obj;  // bit for bit `obj` without egress
    const int cap_after = cap_unused - cap_[ri];
    const std::uint64_t mask2 = mask | (std::uint64_t{1} << r);
    int minL = must_finish ? S_ - i : 1;
    // Region-set mode: every region of the set must still get a block.
    const int need = require_all_ ? std::popcount(full_ & ~mask2) : 0;
    if (need > spec_.max_blocks - blocks - 1) continue;
    // Most further blocks the stages after this block can form (each adds one region).
    const int more = require_all_ ? need : blocks_left;
    // The capacity of the blocks still allowed after this one: its largest unused regions
    // other than r (capk[b−1]: the b largest). A block shorter than S − i − capk[nk−1] leaves
    // more stages than they can hold (what the suffix bound would reject one length at a
    // time), and the stages after the block need a linked unused region to go to.
    int nk = 0;
    double first = kInf, first_lat = kInf;  // least hop_lb_ / hop_lat_ from r to an unused region
    double two_hop = -1;                    // least_two_hops, computed when first needed
    int* next = next_buf_.data() + row;  // the unused regions the next block can go to, by hop_lb_
    int nnext = 0;
    if (!must_finish) {
      int acc = 0;
      for (int t = 0; t < ntop && nk < blocks_left; ++t) {
        if (top_reg[t] == r) continue;
        acc += top_cap[t];
        capk[nk++] = acc;
      }
      if (tight) {
        const int* nb = nbr_order_.data() + static_cast<size_t>(r * R_);
        for (int t = 0, n = nbr_count_[ri]; t < n; ++t)
          if (!(mask2 >> nb[t] & 1U)) next[nnext++] = nb[t];
        if (nnext > 0) first = hop_lb_[static_cast<size_t>(r * R_ + next[0])];
        const int* nl = nbr_lat_order_.data() + static_cast<size_t>(r * R_);
        for (int t = 0, n = nbr_lat_count_[ri]; t < n; ++t)
          if (!(mask2 >> nl[t] & 1U)) {
            first_lat = hop_lat_[static_cast<size_t>(r * R_ + nl[t])];
            break;
          }
        const int reach = first == kInf || nk == 0 ? 0 : capk[nk - 1];
        minL = std::max(minL, S_ - i - reach);
      } else {  // (no neighbour tables: one pass)
        for (int x = 0; x < R_; ++x)
          if (!(mask2 >> x & 1U)) first_lat = std::min(first_lat, hop_lat_[static_cast<size_t>(r * R_ + x)]);
      }
    }
    if (minL > maxL) continue;
    // Region-set mode: the hops still to come form a chain from r through the set's unused
    // regions; its least latency + communication time joins the time bounds below.
    const double chain = require_all_ ? rest_chain(r, full_ & ~mask2) : 0.0;
    if (chain == kInf) continue;
    // Running max of stage units over the block, for every length. One buffer row per
    // recursion depth: the recursive call below must not overwrite this level's values.
    // The scan stops at the first length whose monotone bound already fails: in exact
    // arithmetic mm1·bmax + bsum + lb_sum[j] (and, for cost, bobj + lb_obj[j]) never decrease
    // as the block grows (a stage on r costs at least the cheapest region's figure that the
    // suffix bound counted), so every longer block would be pruned below as well. The 1e-9
    // margin keeps rounding from cutting a block the exact test would keep.
    double* blockmax = blockmax_buf_.data() + static_cast<size_t>(blocks) * static_cast<size_t>(S_ + 1);
    const double* upre = unit_prefix_.data() + static_cast<size_t>(r * (S_ + 1));
    const double* cpre = coef_prefix_.data() + static_cast<size_t>(r * (S_ + 1));
    double bm = hop_c;
    int Lcut = 0;
    if (must_finish && tight) {
      // One length only: the scan's bound at L = S − i (the bound is monotone in L).
      const int L = S_ - i;
      bm = std::max(bm, sufmax_unit_[static_cast<size_t>(r * (S_ + 1) + i)]);
      blockmax[L] = bm;
      const double w = mm1 * std::max({mx, bm, L > 1 ? intra_c_ : 0.0}) + base_sum + upre[S_] - upre[i] +
                       intra_hops_s_[static_cast<size_t>(L - 1)] + chain + opt_step_;
      if (cost ? (w > t_thr || base_obj + cpre[S_] - cpre[i] > c_thr) : w > t_thr) continue;
      Lcut = L;
    } else {
      // Lengths below minL are not tried: only their running max is needed. The bound is
      // monotone in L, so testing from minL on cuts the same lengths.
      const int first_tested = tight ? minL : 1;
      for (int L = 1; L < first_tested; ++L) {
        bm = std::max(bm, unit(r, i + L - 1));
        blockmax[L] = bm;
      }
      Lcut = first_tested - 1;
      for (int L = first_tested; L <= maxL; ++L) {
        bm = std::max(bm, unit(r, i + L - 1));
        blockmax[L] = bm;
        const int j = i + L;
        const double w = mm1 * std::max({mx, bm, L > 1 ? intra_c_ : 0.0}) + base_sum + upre[j] - upre[i] +
                         intra_hops_s_[static_cast<size_t>(L - 1)] + lb_sum_[static_cast<size_t>(j)] + chain + opt_step_ +
                         (tight ? intra_hops_s_[static_cast<size_t>(std::max(0, S_ - j - more))] : 0.0);
        if (cost ? (w > t_thr || base_obj + cpre[j] - cpre[i] + lb_obj_[static_cast<size_t>(j)] > c_thr) : w > t_thr) break;
        Lcut = L;
      }
    }
    if (Lcut < minL) continue;
    maxL = Lcut;
    int k = 1;  // fewest further blocks for the stages after the block (grows as L shrinks)
    for (int L = maxL; L >= minL; --L) {
      const int j = i + L;
      const double bsum = base_sum + upre[j] - upre[i] + intra_hops_s_[static_cast<size_t>(L - 1)];
      const double bmax = std::max({mx, blockmax[L], L > 1 ? intra_c_ : 0.0});
      const double bobj = base_obj + cpre[j] - cpre[i];
      if (j < S_ && S_ - j > cap_after) continue;  // not enough GPUs left on unused regions
      if (need > S_ - j) continue;                 // region-set mode: a stage per unused region
      const double t_lb = mm1 * std::max(bmax, lb_max_[static_cast<size_t>(j)]) + bsum + lb_sum_[static_cast<size_t>(j)] + chain + opt_step_;
      if (cost) {
        if (t_lb > spec_.time_cap_s) continue;
        if (bobj + lb_obj_[static_cast<size_t>(j)] >= best_obj_) continue;
      } else if (t_lb >= best_obj_) {
        continue;
      }
      // The same with the same-region hops the stages after the block must have (at most
      // `more` further blocks), against the margin.
      if (tight && t_lb + intra_hops_s_[static_cast<size_t>(std::max(0, S_ - j - more))] > t_thr) continue;
      if (j < S_) {  // the capacity-aware bound, only when the cheap one passed
        while (k <= nk && capk[k - 1] < S_ - j) ++k;
        if (k > nk) continue;  // (minL already excludes this length)
        double rs, rm, rs_hops;
        if (!suffix_fill(j, mask2, k, first_lat, rs, rm, rs_hops)) continue;
        const double t2 = mm1 * std::max(bmax, rm) + bsum + std::max(rs, rs - rs_hops + chain) + opt_step_;
        // (The cost fill only for what the time bound keeps.)
        if (cost ? (t2 > spec_.time_cap_s || bobj + suffix_cost(j, mask2) >= best_obj_) : t2 >= best_obj_) continue;
        if (tight) {
        // Tighter, against the margin: the hops' least communication time (hop_lb_), a chain
        // of two hops through unused regions when two or more blocks follow, and the
        // same-region hops. b further blocks (k <= b <= more) cost hops_after(b) and leave
        // S − j − b same-region hops; the total is linear in b from 2 on, so the least is at
        // b = k, max(k, 2) or the most allowed. In set mode b is `need` and `chain` holds
        // its hops exactly.
        {
          const int n = S_ - j;
          const double fill = rs - rs_hops;
          auto hops_after = [&](int b) {
            if (b <= 1) return first;
            if (two_hop < 0) two_hop = least_two_hops(r, mask2, next, nnext);
            return two_hop + (b - 2) * min_hop_lb_;
          };
          double hop_part;
          if (require_all_) {
            hop_part = std::max(hops_after(need), chain) + intra_hops_s_[static_cast<size_t>(n - need)];
          } else {
            const int b_hi = std::min(more, n);
            hop_part = kInf;
            for (int b : {k, std::max(k, 2), b_hi})
              if (b >= k && b <= b_hi) hop_part = std::min(hop_part, hops_after(b) + intra_hops_s_[static_cast<size_t>(n - b)]);
          }
          const double t2_lb = mm1 * std::max(bmax, rm) + bsum + fill + hop_part + opt_step_;
          if (t2_lb > t_thr) continue;
          rs = fill + hop_part;
          rs_hops = hop_part;
        }
        if (!next_block_may_improve(j, r, next, nnext, blocks_left, bsum, bmax, bobj, rs, rs_hops, chain, t_thr, c_thr)) continue;
        }
      }
      if (j < S_ && dominated_or_insert(j, r, mask2, bobj, bsum, bmax)) continue;
      path_r_.push_back(r);
      path_len_.push_back(L);
      dfs(j, r, blocks + 1, mask2, cap_after, bobj, bsum, bmax);
      path_r_.pop_back();
      path_len_.pop_back();
      if (truncated_ || stop_) return;
      refresh_thresholds();
    }
  }
}

}  // namespace geopipe
