// Internal to the pathfinder (sched/pathfinder*.cpp), not part of its API: the search state
// behind Pathfinder and the tables it keeps between searches. The search is in three files:
//   pathfinder.cpp       the entry (search()), the per-search tables and balanced_split_beats;
//   pathfinder_dfs.cpp   the depth-first branch-and-bound and its bounds and dominance memo;
//   pathfinder_sets.cpp  the region-set decomposition (sets, frames, chains, twin regions).
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sched/pathfinder.h"

namespace geopipe {
namespace pathfinder_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Sizes a per-search table for n entries without shrinking it or writing any entry: the
/// tables keep the size of the largest search so far, and each search reads only the entries
/// it has written (index arithmetic by the search's own S and R, never size()). Resizing down
/// and up again between jobs of different depths value-initialised the regrown part on every
/// search (~2 % of a million-job run's time).
template <class T>
inline void size_at_least(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

/// Per index (a stage, or the suffix starting there), a list of regions in a search order.
/// Consecutive indices whose lists are equal share one stored list, so that the equal
/// interior stages of an even split cost one sort, not one each.
struct OrderTable {
  std::vector<int> buf;          ///< the distinct lists, back to back
  std::vector<int> start, size;  ///< per index: its list in buf
  /// Empties the lists; indices 0..n−1 must then each get build(), share() or set_empty()
  /// before they are read (builds with assertions poison them to catch a miss).
  void reset(int n) {
    buf.clear();
    size_at_least(start, static_cast<size_t>(n));
    size_at_least(size, static_cast<size_t>(n));
#ifndef NDEBUG
    std::fill_n(start.begin(), n, -1);
    std::fill_n(size.begin(), n, -1);
#endif
  }
  /// Index i gets the empty list.
  void set_empty(int i) {
    start[static_cast<size_t>(i)] = 0;
    size[static_cast<size_t>(i)] = 0;
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
    assert(size[static_cast<size_t>(i)] >= 0 && "OrderTable: an index read before it was set");
    return {buf.data() + start[static_cast<size_t>(i)], static_cast<size_t>(size[static_cast<size_t>(i)])};
  }
};

}  // namespace pathfinder_internal

/// The search state behind Pathfinder: the per-search tables (sized per search, their buffers
/// kept between searches), the memo of dominance labels, the region-set decomposition and the
/// incumbent.
struct Pathfinder::Impl {
  using OrderTable = pathfinder_internal::OrderTable;
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

  /// run_, order_, bounds from unit_/coef_/cap_; true if a stage fits nowhere. `keep_unit`
  /// (search(): SearchSpec::same_job_and_view, and the tables built for this job, view and free
  /// GPUs): run_, sufmin_unit_/sufmax_unit_, lb_order_unit_/lb_fill_unit_ and cap_order_ are the
  /// previous search's, as search() kept unit_, fwd_ and unit_prefix_.
  bool derive_tables(bool keep_unit);
  bool search_by_region_sets(int cap_total);  // false: not applicable or over its budget: go on with the plain DFS
  bool region_sets_apply() const;             // strategy, size and set count allow set mode
  bool search_sets();                         // best-first over region sets, the DFS restricted to each; false: over budget
  void first_incumbent(int cap_total);        // a quick first placement that prunes the sets
  bool least_chain(std::uint64_t mask, double maxunit, double& t, double& usd) const;
  double chain_floor(std::uint64_t mask) const;  // a cheap lower bound of least_chain's Σ of hops
  void compute_hop_bounds();       // hop_lb_, hopc_lb_, min_hop_lb_
  void order_neighbours();         // nbr_order_, nbr_count_ from hop_lb_
  double rest_chain(int last, std::uint64_t unused) const;  // least Σ hop_lb_ from last through unused
  void compute_symmetry();         // sym_prev_ (both searches)
  void memo_clear();
  MemoSlot& memo_slot(std::uint64_t mask, int stage, int region);
  void memo_grow();  // doubles memo_slots_ (memo_slot, when half full)
  void dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj, double sum, double mx);
  bool dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx);
  bool suffix_fill(int j, std::uint64_t mask, int k, double first, double& sum, double& mx, double& hops) const;
  double suffix_cost(int j, std::uint64_t mask) const;  // the cost fill of stages j.. (after suffix_fill)
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
  std::vector<double> intra_hops_s_;  ///< [n] = n · intra_step_, n = 0..S: n same-region hops (the products the bounds add, computed once)
  std::vector<double> unit_, fwd_, coef_;     // R×S: 3f, f, cost coefficient (inf: stage does not fit)
  std::vector<double> unit_prefix_, coef_prefix_;  // R×(S+1)
  std::vector<int> run_;                      // R×S: feasible stages in a row from i on r
  std::vector<int> cap_;                      // stages region r can take
  std::vector<double> lb_sum_, lb_max_, lb_obj_;  // suffix bounds, size S+1
  std::vector<double> sufmin_unit_, sufmin_coef_;  // R×(S+1): min over stages >= j on region r
  OrderTable lb_order_unit_, lb_order_coef_;  // per j: regions by sufmin, best first
  /// One entry of a suffix order, with what suffix_fill reads of its region: the region's
  /// suffix minimum at that j and its capacity (lb_fill_unit_[x] goes with lb_order_unit_.buf[x],
  /// lb_fill_coef_ with lb_order_coef_.buf; shared lists have equal minima, so one entry serves).
  struct FillEntry {
    double v;
    double capv;  ///< cap · v (the product the fill adds for a whole region)
    int r, cap;
  };
  std::vector<FillEntry> lb_fill_unit_, lb_fill_coef_;
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
  /// What the previous search's job-only tables were built for (SearchSpec::same_job_and_view):
  /// the job and view objects, and the view's free GPUs then; valid once a search has run.
  const JobProfile* built_for_p_ = nullptr;
  const ClusterView* built_for_view_ = nullptr;
  std::vector<int> built_for_free_;
  std::vector<char> twin_;                    // S: stage i has stage i+1's FLOP and memory (so its figures; derive_tables)
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

}  // namespace geopipe
