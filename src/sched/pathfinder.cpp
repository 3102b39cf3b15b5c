#include "sched/pathfinder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <cstdio>
#include <cstdlib>

#include "sim/energy.h"

namespace geopipe {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

/// Per index (a stage, or the suffix starting there), a list of regions in a search order.
/// Consecutive indices whose lists are equal share one stored list, so that the equal
/// interior stages of an even split cost one sort, not one each.
struct OrderTable {
  std::vector<int> buf;          ///< the distinct lists, back to back
  std::vector<int> start, size;  ///< per index: its list in buf
  void reset(int n) {
    buf.clear();
    start.assign(static_cast<size_t>(n), 0);
    size.assign(static_cast<size_t>(n), 0);
  }
  /// Index i gets index `from`'s list.
  void share(int i, int from) {
    start[static_cast<size_t>(i)] = start[static_cast<size_t>(from)];
    size[static_cast<size_t>(i)] = size[static_cast<size_t>(from)];
  }
  /// Index i gets the regions r < R with keep(r), sorted by `less`.
  template <class Keep, class Less>
  void build(int i, int R, Keep keep, Less less) {
    const auto s0 = buf.size();
    for (int r = 0; r < R; ++r)
      if (keep(r)) buf.push_back(r);
    std::sort(buf.begin() + static_cast<std::ptrdiff_t>(s0), buf.end(), less);
    start[static_cast<size_t>(i)] = static_cast<int>(s0);
    size[static_cast<size_t>(i)] = static_cast<int>(buf.size() - s0);
  }
  std::span<const int> operator[](int i) const {
    return {buf.data() + start[static_cast<size_t>(i)], static_cast<size_t>(size[static_cast<size_t>(i)])};
  }
};

/// The search state behind Pathfinder: the per-search tables (sized per search, their buffers
/// kept between searches), the memo of dominance labels, the region-set decomposition and the
/// incumbent.
struct Pathfinder::Impl {
  SearchResult search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec);

  struct Label {
    double obj, sum, max;
    int next;  ///< next label of the same memo slot in memo_labels_, −1 at the end
  };
  /// Open-addressing slot keyed by (used-region mask, next stage, last region); a slot is live
  /// when gen == memo_gen_, so clearing the memo between searches is O(1).
  struct MemoSlot {
    std::uint64_t mask;
    int stage, region;
    int head;  ///< first label in memo_labels_, −1 if none
    std::uint32_t gen;
  };

  bool derive_tables();  // run_, order_, bounds from unit_/coef_/cap_; true if a stage fits nowhere
  bool search_by_region_sets(int cap_total);  // false: not applicable or over its budget: go on with the plain DFS
  bool region_sets_apply() const;             // strategy, size and set count allow set mode
  bool search_sets();                         // best-first over region sets, the DFS restricted to each; false: over budget
  void first_incumbent(int cap_total);        // a quick first placement that prunes the sets
  bool least_chain(std::uint64_t mask, double maxunit, double& t, double& usd) const;
  double chain_floor(std::uint64_t mask) const;  // a cheap lower bound of least_chain's Σ of hops
  void compute_hop_bounds();       // hop_lb_, hopc_lb_, min_hop_lb_
  void order_neighbours();         // nbr_order_, nbr_count_ from hop_lb_
  double rest_chain(int last, std::uint64_t unused) const;  // least Σ hop_lb_ from last through unused
  void compute_symmetry();         // sym_prev_ (set mode)
  void memo_clear();
  MemoSlot& memo_slot(std::uint64_t mask, int stage, int region);
  void dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj, double sum, double mx);
  bool dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx);
  bool suffix_fill(int j, std::uint64_t mask, int k, double first, double& sum, double& mx, double& obj,
                   double& hops) const;
  double least_two_hops(int r, std::uint64_t mask, const int* next, int nnext) const;
  bool next_block_may_improve(int j, int r, const int* next, int nnext, int blocks_left, double bsum, double bmax,
                              double bobj, double rs, double rs_hops, double chain, double t_thr, double c_thr) const;
  double unit(int r, int i) const { return unit_[static_cast<size_t>(r * S_ + i)]; }
  double coef(int r, int i) const { return coef_[static_cast<size_t>(r * S_ + i)]; }

  // per-search inputs
  const JobProfile* p_ = nullptr;
  const ClusterView* view_ = nullptr;
  SearchSpec spec_;
  int S_ = 0, R_ = 0, m_ = 0;
  double mm1_ = 0;  ///< the schedule's bottleneck weight (m − 1 for GPipe and 1F1B)
  double intra_c_ = 0, intra_lat_ = 0, opt_step_ = 0;
  double intra_step_ = 0;  ///< intra_c_ + intra_lat_: the time of one same-region hop in the sum
  std::vector<double> unit_, fwd_, coef_;     // R×S: 3f, f, cost coefficient (inf: stage does not fit)
  std::vector<double> unit_prefix_, coef_prefix_;  // R×(S+1)
  std::vector<int> run_;                      // R×S: feasible stages in a row from i on r
  std::vector<int> cap_;                      // stages region r can take
  std::vector<double> lb_sum_, lb_max_, lb_obj_;  // suffix bounds, size S+1
  std::vector<double> sufmin_unit_, sufmin_coef_;  // R×(S+1): min over stages >= j on region r
  OrderTable lb_order_unit_, lb_order_coef_;  // per j: regions by sufmin, best first
  std::vector<int> cap_order_;                // regions by capacity, largest first
  double min_hop_time_ = 0;                   // smallest round-trip latency of any link
  std::vector<double> hop_lat_;               // R×R round-trip latency (inf: not linked)
  std::vector<double> min_lat_from_;          // per region a: least hop_lat_(a, ·) (inf: no link)
  std::vector<int> nbr_order_, nbr_count_;    // R×R: per region a, the regions b with free GPUs and a usable hop a -> b, by hop_lb_(a, b), least first (ties by index); their count
  std::vector<int> nbr_lat_order_, nbr_lat_count_;  // R×R: per region a, every region linked from a, by hop_lat_(a, b), least first; their count
  std::vector<int> next_buf_;                 // max_blocks × (R+1): per depth, the unused regions the block being placed can hand over to
  double min_hop_lb_ = 0;                     // least hop_lb_ of any usable hop (0 if none)
  std::vector<double> min_in_all_;            // per region b: least hop_lb_(·, b) (inf: none usable)
  std::vector<double> sufmax_unit_;           // R×(S+1): max of unit(r, ·) over stages >= j
  std::vector<double> hop_egress_;            // R×R egress cost of the whole job over hop a -> b (cost search; else 0)
  OrderTable order_;                          // per stage: candidate regions, best first
  std::vector<MemoSlot> memo_slots_;          // size a power of two, load <= 1/2
  std::vector<Label> memo_labels_;            // label pool, reset per search
  std::uint32_t memo_gen_ = 0;
  size_t memo_used_ = 0;
  // region-set decomposition
  struct SetFrame {
    int next;
    std::uint64_t mask;
    int filled, capsum, k;
    double fill, maxunit;
    double in_sum, in_max;  ///< Σ and max over the set's regions of min_in_all_
  };
  /// A frame (the sets extending a combination, by a lower bound of them all) or a set to
  /// search (by its bound), in one heap.
  struct SetItem {
    double key;
    std::uint64_t mask;
    int kind;    ///< 0: frame, 1: set
    int frame;   ///< frames_ index (frames)
    int capsum;  ///< free stage slots of the set (sets)
  };
  /// Heap order: a comes after b. Least key first; at equal keys frames first (a set must not
  /// pass a frame that may hold one of equal bound), then by mask.
  static bool set_item_after(const SetItem& a, const SetItem& b) {
    if (a.key != b.key) return a.key > b.key;
    if (a.kind != b.kind) return a.kind > b.kind;
    return a.mask > b.mask;
  }
  std::vector<SetFrame> frames_;              // the frames built by this search
  std::vector<SetItem> set_heap_;
  std::vector<int> set_rank_;                 // usable regions, best figure first
  std::vector<double> fmin_, fmax_;           // per region: extreme forward times of the stages it takes
  std::vector<int> sym_prev_;                 // per region: previous interchangeable region by index, −1 if none
  std::vector<std::uint64_t> sym_hash_;
  std::vector<double> hop_lb_, hopc_lb_;      // R×R: least latency+communication and communication time of a hop (inf: never usable)
  std::uint64_t full_ = 0;                    // bits of all R regions
  bool require_all_ = false;                  // leaf must have used every region (set mode)
  bool tight_ = false;                        // the tight bounds prune this search (see search())
  static constexpr int kTightMinStages = 12;  // pipelines at least this deep use them (or set mode)
  // kAuto's choice of the set search (region_sets_apply): every topology of kSetsMinRegions
  // regions or more, and topologies of kSetsDeepMinRegions or more with pipelines of at least
  // kSetsDeepMinStages stages (measured: docs/performance.md, "The strategy below 8 regions").
  static constexpr int kSetsMinRegions = 8;
  static constexpr int kSetsDeepMinRegions = 4;
  static constexpr int kSetsDeepMinStages = 16;
  std::vector<int> path_r_, path_len_;        // current blocks
  std::vector<double> blockmax_buf_;          // max_blocks × (S+1): per depth, block max by length
  // max_blocks × (R+1), a row per depth: the unused regions' largest capacities and their
  // regions, and the cumulative capacity of the b largest but the region being placed.
  std::vector<int> topcap_buf_, topreg_buf_, capk_buf_;
  // incumbent
  double best_obj_ = 0, best_T_ = 0;
  std::vector<int> best_r_, best_len_;
  std::vector<Placement> incumbents_;         // keep_incumbents
  long nodes_ = 0;
  bool truncated_ = false;
  bool stop_ = false;                         // stop_at_first satisfied
};

Pathfinder::Pathfinder() : impl_(std::make_unique<Impl>()) {}
Pathfinder::~Pathfinder() = default;
Pathfinder::Pathfinder(Pathfinder&&) noexcept = default;
Pathfinder& Pathfinder::operator=(Pathfinder&&) noexcept = default;

SearchResult Pathfinder::search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec) {
  if (!impl_) impl_ = std::make_unique<Impl>();  // moved from
  return impl_->search(p, view, spec);
}

SearchResult Pathfinder::Impl::search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec) {
  p_ = &p;
  view_ = &view;
  spec_ = spec;
  S_ = p.stages;
  R_ = view.regions();
  m_ = p.micro_batches;
  mm1_ = view.compute->schedule().bottleneck_weight(m_);
  const Topology& topo = *view.topo;
  const ComputeOptions& opt = *view.compute;
  const int g = p.gpus_per_stage;
  intra_c_ = intra_hop_comm_s(p.activation_bytes, topo);
  intra_lat_ = intra_hop_latency_s(topo);
  opt_step_ = opt.optimizer_step_s;
  intra_step_ = intra_c_ + intra_lat_;
  const bool cost = spec.objective == SearchSpec::Objective::kMinCost;
  const bool cap_known = std::isfinite(spec.time_cap_s);
  const double T_for_cost = cap_known ? spec.time_cap_s : 0.0;

  const auto RS = static_cast<size_t>(R_ * S_);
  unit_.assign(RS, kInf);
  fwd_.assign(RS, kInf);
  coef_.assign(RS, kInf);
  run_.assign(RS, 0);
  cap_.assign(static_cast<size_t>(R_), 0);
  unit_prefix_.assign(static_cast<size_t>(R_ * (S_ + 1)), 0.0);
  coef_prefix_.assign(static_cast<size_t>(R_ * (S_ + 1)), 0.0);
  for (int r = 0; r < R_; ++r) {
    cap_[static_cast<size_t>(r)] = view.free_gpus[static_cast<size_t>(r)] / g;
    const Region& reg = topo.regions[static_cast<size_t>(r)];
    const GpuType& gpu = topo.gpu_of(r);
    const double speed = stage_speed(gpu, g, opt);
    const double price = cost ? reg.price.mean_usd_per_kwh(view.now_s, view.now_s + p.iterations * T_for_cost) : 0.0;
    double up = 0, cp = 0;
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      const double f = forward_time(p.fwd_flops[static_cast<size_t>(i)], speed);
      const double u = compute_time(f);
      const bool ok = p.stage_fits(i, gpu);
      unit_[k] = ok ? u : kInf;
      fwd_[k] = ok ? f : kInf;
      if (cost) {
        // Energy per iteration at the time cap (docs/model.md, "Cost-min allocator"); without
        // a cap only the busy energy counts.
        const double busy = stage_busy_per_iteration_s(m_, f);
        const double j = stage_energy_per_iteration_j(g, reg.pue, gpu, busy, cap_known ? spec.time_cap_s : busy);
        coef_[k] = ok ? energy_cost_usd(p.iterations * j, price) : kInf;
      } else {
        coef_[k] = 0.0;
      }
      up += ok ? u : 0.0;
      cp += ok ? coef_[k] : 0.0;
      unit_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = up;
      coef_prefix_[static_cast<size_t>(r * (S_ + 1) + i + 1)] = cp;
    }
  }
  min_hop_time_ = kInf;
  hop_lat_.assign(static_cast<size_t>(R_ * R_), kInf);
  hop_egress_.assign(static_cast<size_t>(R_ * R_), 0.0);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      if (a != b && topo.connected(a, b)) {
        const double rt = hop_round_trip_s(topo, a, b);
        hop_lat_[static_cast<size_t>(a * R_ + b)] = rt;
        min_hop_time_ = std::min(min_hop_time_, rt);
        // The cost objective adds each cross-region hop's egress (docs/model.md, "Cost-min
        // allocator"); it is >= 0, so the stage-only lower bounds stay admissible.
        if (cost)
          hop_egress_[static_cast<size_t>(a * R_ + b)] =
              p.iterations * hop_egress_usd_per_iteration(m_, p.activation_bytes, topo.link(a, b), topo.link(b, a));
      }
  if (min_hop_time_ == kInf) min_hop_time_ = 0;
  min_lat_from_.assign(static_cast<size_t>(R_), kInf);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      min_lat_from_[static_cast<size_t>(a)] = std::min(min_lat_from_[static_cast<size_t>(a)], hop_lat_[static_cast<size_t>(a * R_ + b)]);

  const bool any_stage_impossible = derive_tables();
  // The tight bounds and the set search need the hop tables (O(R²) per search); on shallow
  // pipelines the plain DFS is cheaper with the reference bounds, which reach the same result
  // (SearchSpec::bounds), so the tables are built only where they pay.
  const bool sets = !spec.stop_at_first && region_sets_apply();
  tight_ = spec.bounds == SearchSpec::Bounds::kTight && !spec.stop_at_first && (sets || S_ >= kTightMinStages);
  if (tight_ || sets) {
    compute_hop_bounds();
    order_neighbours();
  }

  best_obj_ = kInf;
  best_T_ = kInf;
  best_r_.clear();
  best_len_.clear();
  incumbents_.clear();
  nodes_ = 0;
  truncated_ = false;
  stop_ = false;
  path_r_.clear();
  path_len_.clear();
  blockmax_buf_.assign(static_cast<size_t>(std::max(spec.max_blocks, 1)) * static_cast<size_t>(S_ + 1), 0.0);
  const auto depth_rows = static_cast<size_t>(std::max(spec.max_blocks, 1)) * static_cast<size_t>(R_ + 1);
  topcap_buf_.resize(depth_rows);
  topreg_buf_.resize(depth_rows);
  capk_buf_.resize(depth_rows);
  next_buf_.resize(depth_rows);
  full_ = R_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << R_) - 1;
  require_all_ = false;
  if (!any_stage_impossible && R_ <= 64) {
    int cap_total = 0;
    for (int c : cap_) cap_total += c;
    if (cap_total >= S_ && (spec.stop_at_first || !search_by_region_sets(cap_total))) {
      memo_clear();
      dfs(0, -1, 0, 0, cap_total, 0.0, 0.0, 0.0);
    }
  }

  SearchResult res;
  res.nodes = nodes_;
  res.truncated = truncated_;
  res.incumbents = std::move(incumbents_);
  incumbents_ = {};
  if (best_r_.empty()) return res;
  res.found = true;
  res.objective = best_obj_;
  res.est_iteration_s = best_T_;
  res.placement.stage_region.reserve(static_cast<size_t>(S_));
  for (size_t b = 0; b < best_r_.size(); ++b)
    for (int k = 0; k < best_len_[b]; ++k) res.placement.stage_region.push_back(best_r_[b]);
  return res;
}

bool Pathfinder::Impl::derive_tables() {
  const bool cost = spec_.objective == SearchSpec::Objective::kMinCost;
  for (int r = 0; r < R_; ++r) {
    int runlen = 0;
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      runlen = unit_[k] < kInf ? runlen + 1 : 0;
      run_[k] = runlen;
    }
  }
  bool any_stage_impossible = false;
  // Suffix lower bounds over regions that could take the stage at all.
  lb_sum_.assign(static_cast<size_t>(S_ + 1), 0.0);
  lb_max_.assign(static_cast<size_t>(S_ + 1), 0.0);
  lb_obj_.assign(static_cast<size_t>(S_ + 1), 0.0);
  order_.reset(S_);
  // A stage whose figures equal the next stage's on every region (the interior stages of an
  // even split) shares that stage's order instead of sorting again.
  auto same_stage_as_next = [&](int i) {
    if (i + 1 >= S_) return false;
    for (int r = 0; r < R_; ++r)
      if (unit(r, i) != unit(r, i + 1) || (cost && coef(r, i) != coef(r, i + 1))) return false;
    return true;
  };
  for (int i = S_ - 1; i >= 0; --i) {
    double mu = kInf, mc = kInf;
    for (int r = 0; r < R_; ++r) {
      if (cap_[static_cast<size_t>(r)] <= 0 || unit(r, i) == kInf) continue;
      mu = std::min(mu, unit(r, i));
      mc = std::min(mc, coef(r, i));
    }
    if (same_stage_as_next(i)) {
      order_.share(i, i + 1);
    } else {
      order_.build(
          i, R_, [&](int r) { return cap_[static_cast<size_t>(r)] > 0 && unit(r, i) < kInf; },
          [&](int a, int b) {  // ties by region index
            const double ka = cost ? coef(a, i) : unit(a, i), kb = cost ? coef(b, i) : unit(b, i);
            return ka < kb || (ka == kb && a < b);
          });
    }
    if (order_[i].empty()) any_stage_impossible = true;
    lb_sum_[static_cast<size_t>(i)] = lb_sum_[static_cast<size_t>(i + 1)] + mu;
    lb_max_[static_cast<size_t>(i)] = std::max(lb_max_[static_cast<size_t>(i + 1)], mu);
    lb_obj_[static_cast<size_t>(i)] = lb_obj_[static_cast<size_t>(i + 1)] + mc;
  }

  // Capacity-aware bound inputs.
  const auto RS1 = static_cast<size_t>(R_ * (S_ + 1));
  sufmin_unit_.assign(RS1, kInf);
  sufmin_coef_.assign(RS1, kInf);
  sufmax_unit_.assign(RS1, 0.0);
  for (int r = 0; r < R_; ++r)
    for (int i = S_ - 1; i >= 0; --i) {
      const auto k = static_cast<size_t>(r * (S_ + 1) + i);
      sufmin_unit_[k] = std::min(sufmin_unit_[k + 1], unit(r, i));
      sufmin_coef_[k] = std::min(sufmin_coef_[k + 1], coef(r, i));
      sufmax_unit_[k] = std::max(sufmax_unit_[k + 1], unit(r, i));
    }
  lb_order_unit_.reset(S_ + 1);
  lb_order_coef_.reset(S_ + 1);
  // The same per suffix, by the suffix minima (the cost order only for the cost search): a
  // suffix whose minima equal the next one's on every region shares its order.
  auto same_suffix_as_next = [&](const std::vector<double>& v, int j) {
    if (j + 1 >= S_) return false;
    for (int r = 0; r < R_; ++r)
      if (v[static_cast<size_t>(r * (S_ + 1) + j)] != v[static_cast<size_t>(r * (S_ + 1) + j + 1)]) return false;
    return true;
  };
  auto suffix_order = [&](OrderTable& orders, const std::vector<double>& v, int j) {
    if (same_suffix_as_next(v, j)) {
      orders.share(j, j + 1);
      return;
    }
    orders.build(
        j, R_, [&](int r) { return cap_[static_cast<size_t>(r)] > 0 && sufmin_unit_[static_cast<size_t>(r * (S_ + 1) + j)] < kInf; },
        [&](int a, int b) {
          const double ka = v[static_cast<size_t>(a * (S_ + 1) + j)], kb = v[static_cast<size_t>(b * (S_ + 1) + j)];
          return ka < kb || (ka == kb && a < b);
        });
  };
  for (int j = S_ - 1; j >= 0; --j) {
    suffix_order(lb_order_unit_, sufmin_unit_, j);
    if (cost) suffix_order(lb_order_coef_, sufmin_coef_, j);
  }
  cap_order_.resize(static_cast<size_t>(R_));
  std::iota(cap_order_.begin(), cap_order_.end(), 0);
  std::sort(cap_order_.begin(), cap_order_.end(), [&](int a, int b) {
    return cap_[static_cast<size_t>(a)] > cap_[static_cast<size_t>(b)] || (cap_[static_cast<size_t>(a)] == cap_[static_cast<size_t>(b)] && a < b);
  });
  return any_stage_impossible;
}

bool Pathfinder::Impl::suffix_fill(int j, std::uint64_t mask, int k, double first, double& sum, double& mx,
                                   double& obj, double& hops) const {
  // The stages j.. need at least k more blocks (the caller's count over the largest unused
  // regions), each starting with a cross-region hop: the first leaves the block just placed
  // for an unused region (at least `first`, the least round-trip latency to one), the k−1
  // after it cost at least the cheapest round-trip latency of any link. (The search compares
  // this sum with the incumbent without a margin, so it is computed exactly as it always was;
  // tighter hop terms are added by the caller, with the margin.)
  sum = mx = obj = hops = 0;
  const int n = S_ - j;
  if (n <= 0) return true;
  sum = hops = first + (k - 1) * min_hop_time_;
  int left = n;
  // Fill the n stages into unused regions, best per-stage figure first (ignoring contiguity).
  for (int r : lb_order_unit_[j]) {
    if (mask >> r & 1U) continue;
    const int take = std::min(cap_[static_cast<size_t>(r)], left);
    const double v = sufmin_unit_[static_cast<size_t>(r * (S_ + 1) + j)];
    sum += take * v;
    mx = v;
    left -= take;
    if (left == 0) break;
  }
  if (left > 0) return false;
  if (spec_.objective == SearchSpec::Objective::kMinCost) {
    left = n;
    for (int r : lb_order_coef_[j]) {
      if (mask >> r & 1U) continue;
      const int take = std::min(cap_[static_cast<size_t>(r)], left);
      obj += take * sufmin_coef_[static_cast<size_t>(r * (S_ + 1) + j)];
      left -= take;
      if (left == 0) break;
    }
    if (left > 0) return false;
  }
  return true;
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

bool Pathfinder::Impl::next_block_may_improve(int j, int r, const int* next, int nnext, int blocks_left, double bsum,
                                              double bmax, double bobj, double rs, double rs_hops, double chain,
                                              double t_thr, double c_thr) const {
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
                       bsum + hop_lb_[static_cast<size_t>(r * R_ + x)] + (up[S_] - up[j]) + (n - 1) * (intra_c_ + intra_lat_) + opt_step_;
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
  if (memo_slots_.empty()) memo_slots_.resize(1024);
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

Pathfinder::Impl::MemoSlot& Pathfinder::Impl::memo_slot(std::uint64_t mask, int stage, int region) {
  if (2 * (memo_used_ + 1) > memo_slots_.size()) {  // keep the load factor <= 1/2
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

bool Pathfinder::Impl::dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx) {
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
  compute_symmetry();
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
        const double ext_t = tmax + ext_hops + opt_step_ + std::max(0, S_ - K) * intra_step_ +
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
      const double tsum = opt_step_ + (S_ - g.k) * intra_step_ + (cost ? lb_sum_[0] : std::max(lb_sum_[0], g.fill));
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

void Pathfinder::Impl::compute_hop_bounds() {
  // Per region, the extreme forward times over the stages it can take: every hop's β lies in
  // [A / min(fmax_a, fmax_b), A / min(fmin_a, fmin_b)].
  fmin_.assign(static_cast<size_t>(R_), kInf);
  fmax_.assign(static_cast<size_t>(R_), 0.0);
  for (int r = 0; r < R_; ++r)
    for (int i = 0; i < S_; ++i) {
      const auto k = static_cast<size_t>(r * S_ + i);
      if (unit_[k] == kInf) continue;
      fmin_[static_cast<size_t>(r)] = std::min(fmin_[static_cast<size_t>(r)], fwd_[k]);
      fmax_[static_cast<size_t>(r)] = std::max(fmax_[static_cast<size_t>(r)], fwd_[k]);
    }
  const double A = p_->activation_bytes;
  hop_lb_.assign(static_cast<size_t>(R_ * R_), kInf);
  hopc_lb_.assign(static_cast<size_t>(R_ * R_), 0.0);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b) {
      const auto e = static_cast<size_t>(a * R_ + b);
      if (hop_lat_[e] == kInf || fmax_[static_cast<size_t>(a)] == 0.0 || fmax_[static_cast<size_t>(b)] == 0.0) continue;
      double c = 0;
      if (spec_.stall_free || spec_.bandwidth == BandwidthModel::kExpected) {
        const double beta_lo = stall_free_demand_bytes_per_s(A, fmax_[static_cast<size_t>(a)], fmax_[static_cast<size_t>(b)]);
        const double beta_hi = stall_free_demand_bytes_per_s(A, fmin_[static_cast<size_t>(a)], fmin_[static_cast<size_t>(b)]);
        if (spec_.stall_free && (view_->residual_bw(a, b) < beta_lo || view_->residual_bw(b, a) < beta_lo)) continue;
        if (spec_.bandwidth == BandwidthModel::kExpected) {
          // expected_share is nondecreasing in the demand, so β_hi gives the least time.
          const double s1 = view_->expected_share(a, b, beta_hi), s2 = view_->expected_share(b, a, beta_hi);
          if (s1 <= 0 || s2 <= 0) continue;
          c = hop_comm_s(A, s1, s2);
        }
      }
      hop_lb_[e] = hop_lat_[e] + c;
      hopc_lb_[e] = c;
    }
  min_hop_lb_ = kInf;
  for (double h : hop_lb_) min_hop_lb_ = std::min(min_hop_lb_, h);
  if (min_hop_lb_ == kInf) min_hop_lb_ = 0;
  min_in_all_.assign(static_cast<size_t>(R_), kInf);
  for (int a = 0; a < R_; ++a)
    for (int b = 0; b < R_; ++b)
      min_in_all_[static_cast<size_t>(b)] = std::min(min_in_all_[static_cast<size_t>(b)], hop_lb_[static_cast<size_t>(a * R_ + b)]);
}

void Pathfinder::Impl::order_neighbours() {
  nbr_order_.resize(static_cast<size_t>(R_ * R_));
  nbr_count_.assign(static_cast<size_t>(R_), 0);
  for (int a = 0; a < R_; ++a) {
    const double* lb = hop_lb_.data() + static_cast<size_t>(a * R_);
    int* nb = nbr_order_.data() + static_cast<size_t>(a * R_);
    int n = 0;
    for (int b = 0; b < R_; ++b)
      if (lb[b] < kInf && cap_[static_cast<size_t>(b)] > 0) nb[n++] = b;
    std::sort(nb, nb + n, [lb](int x, int y) { return lb[x] < lb[y] || (lb[x] == lb[y] && x < y); });
    nbr_count_[static_cast<size_t>(a)] = n;
  }
  nbr_lat_order_.resize(static_cast<size_t>(R_ * R_));
  nbr_lat_count_.assign(static_cast<size_t>(R_), 0);
  for (int a = 0; a < R_; ++a) {
    const double* lat = hop_lat_.data() + static_cast<size_t>(a * R_);
    int* nb = nbr_lat_order_.data() + static_cast<size_t>(a * R_);
    int n = 0;
    for (int b = 0; b < R_; ++b)
      if (lat[b] < kInf) nb[n++] = b;
    std::sort(nb, nb + n, [lat](int x, int y) { return lat[x] < lat[y] || (lat[x] == lat[y] && x < y); });
    nbr_lat_count_[static_cast<size_t>(a)] = n;
  }
}

void Pathfinder::Impl::compute_symmetry() {
  // Regions a < b are interchangeable when swapping them maps the search onto itself: equal
  // per-stage tables (unit, forward, cost coefficient) and capacity, and equal links (presence,
  // latency, capacity, residual, flows) to and from every other region, the a–b link equal in
  // both directions. Placements that differ by such a swap have bit-identical objectives.
  // sym_prev_[r]: the previous region of r's class by index, or −1.
  sym_prev_.assign(static_cast<size_t>(R_), -1);
  const Topology& topo = *view_->topo;
  auto row_hash = [&](int r) {
    std::uint64_t h = static_cast<std::uint64_t>(cap_[static_cast<size_t>(r)]) * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < S_; ++i) h = (h ^ std::bit_cast<std::uint64_t>(unit_[static_cast<size_t>(r * S_ + i)])) * 0x100000001B3ULL;
    double lat = 0;  // order-independent summary of the links
    for (int c = 0; c < R_; ++c)
      if (c != r) lat += hop_round_trip_s(topo, r, c);
    return h ^ std::bit_cast<std::uint64_t>(lat);
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
  auto equivalent = [&](int a, int b) {
    if (cap_[static_cast<size_t>(a)] != cap_[static_cast<size_t>(b)]) return false;
    for (int i = 0; i < S_; ++i) {
      const auto ka = static_cast<size_t>(a * S_ + i), kb = static_cast<size_t>(b * S_ + i);
      if (unit_[ka] != unit_[kb] || fwd_[ka] != fwd_[kb] || coef_[ka] != coef_[kb]) return false;
    }
    if (!same_dir(a, b, b, a)) return false;
    for (int c = 0; c < R_; ++c)
      if (c != a && c != b && (!same_dir(a, c, b, c) || !same_dir(c, a, c, b))) return false;
    return true;
  };
  for (int b = 1; b < R_; ++b)
    for (int a = b - 1; a >= 0; --a)
      if (sym_hash_[static_cast<size_t>(a)] == sym_hash_[static_cast<size_t>(b)] && equivalent(a, b)) {
        sym_prev_[static_cast<size_t>(b)] = a;  // the nearest lower one: classes chain by index
        break;
      }
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
    // Set mode: of interchangeable regions, the lowest unused one is taken first (the others
    // would give placements with bit-identical objectives).
    if (require_all_ && sym_prev_[static_cast<size_t>(r)] >= 0 && !(mask >> sym_prev_[static_cast<size_t>(r)] & 1U)) continue;
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
                       (L - 1) * (intra_c_ + intra_lat_) + chain + opt_step_;
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
                         (L - 1) * (intra_c_ + intra_lat_) + lb_sum_[static_cast<size_t>(j)] + chain + opt_step_ +
                         (tight ? std::max(0, S_ - j - more) * intra_step_ : 0.0);
        if (cost ? (w > t_thr || base_obj + cpre[j] - cpre[i] + lb_obj_[static_cast<size_t>(j)] > c_thr) : w > t_thr) break;
        Lcut = L;
      }
    }
    if (Lcut < minL) continue;
    maxL = Lcut;
    int k = 1;  // fewest further blocks for the stages after the block (grows as L shrinks)
    for (int L = maxL; L >= minL; --L) {
      const int j = i + L;
      const double bsum = base_sum + upre[j] - upre[i] + (L - 1) * (intra_c_ + intra_lat_);
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
      if (tight && t_lb + std::max(0, S_ - j - more) * intra_step_ > t_thr) continue;
      if (j < S_) {  // the capacity-aware bound, only when the cheap one passed
        while (k <= nk && capk[k - 1] < S_ - j) ++k;
        if (k > nk) continue;  // (minL already excludes this length)
        double rs, rm, ro, rs_hops;
        if (!suffix_fill(j, mask2, k, first_lat, rs, rm, ro, rs_hops)) continue;
        const double t2 = mm1 * std::max(bmax, rm) + bsum + std::max(rs, rs - rs_hops + chain) + opt_step_;
        if (cost ? (t2 > spec_.time_cap_s || bobj + ro >= best_obj_) : t2 >= best_obj_) continue;
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
            hop_part = std::max(hops_after(need), chain) + (n - need) * intra_step_;
          } else {
            const int b_hi = std::min(more, n);
            hop_part = kInf;
            for (int b : {k, std::max(k, 2), b_hi})
              if (b >= k && b <= b_hi) hop_part = std::min(hop_part, hops_after(b) + (n - b) * intra_step_);
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

namespace geopipe {

bool balanced_split_beats(const JobProfile& p, const ClusterView& view, const SearchSpec& spec, const SearchResult& r) {
  if (view.compute->layer_partition == LayerPartition::kEven || !r.found || r.incumbents.size() < 2) return false;
  const bool cost = spec.objective == SearchSpec::Objective::kMinCost;
  // The objective of `q` under the split it runs with; +inf outside the time cap.
  auto objective = [&](const Placement& q) {
    const double T = estimate_iteration_s(p, q, view, spec.bandwidth);
    if (!cost) return T;
    return T <= spec.time_cap_s ? estimate_cost_usd(p, q, T, view) : std::numeric_limits<double>::infinity();
  };
  const double chosen = objective(r.placement);
  for (size_t k = 0; k + 1 < r.incumbents.size(); ++k)
    if (objective(r.incumbents[k]) < chosen * (1.0 - 1e-12)) return true;
  return false;
}

}  // namespace geopipe
