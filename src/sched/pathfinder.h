// The placement search behind the bandwidth-aware pathfinder, the cost-min allocator and the
// delay-first baseline (docs/model.md, "Pathfinder").
//
// A placement puts the S ordered stages, as contiguous blocks, on distinct regions (at most
// `max_blocks` blocks, i.e. max_blocks−1 region switches). A block on region r may hold at most
// free_gpus[r] / g stages, all of whose memory fits r's GPU type; consecutive blocks must be on
// connected regions and, when `stall_free`, both directions of the hop must have residual
// bandwidth >= the hop's stall-free demand β.
//
// The search is a depth-first branch-and-bound over blocks with
//   * admissible bounds: Σ and max of the cheapest remaining per-stage figures; and a
//     capacity-aware bound that fills the remaining stages into the unused regions best-first
//     (which also bounds the max term and the number of hops still needed);
//   * dominance pruning on (next stage, last region, used-region set) with labels
//     (objective, Σ time, max time): a partial placement dominated on all three is cut;
//   * candidate regions tried cheapest first and long blocks first, so good incumbents come early;
//   * a block-length scan that stops at the first length whose (monotone) bound fails.
// On wide topologies (Strategy::kAuto: >= 8 regions, >= 2 stages per allowed block) the
// search is decomposed by the set of regions used: sets are bounded without ordering (fill,
// slowest region, cheapest order of their hops), searched in increasing bound by the same DFS
// restricted to the set, and the search stops when the next set's bound reaches the incumbent.
// Interchangeable regions (twins: equal tables, capacity and links, see compute_symmetry) are
// used in index order only, which keeps identical regions from multiplying the search.
// It is exact (returns an optimum of the estimate in estimate.h) unless the node budget runs
// out, in which case the best placement found so far is returned with `truncated` set.
// Deterministic: strict improvements only, fixed exploration order, ties by region index. Of
// placements that tie (exactly, or to rounding), the first found is returned, so the two
// strategies may return different ones of them (docs/performance.md).
//
// Cost: the plain DFS is exponential in max_blocks in the worst case (ordered region choices ×
// block lengths); the bounds make it O(nodes · R · S/blocks) with nodes in the hundreds to
// thousands for 16 regions × 64 stages. The set decomposition adds O(Σ_{k<=K} C(R,k)) set
// bounds (pruned by the first incumbent) and K! orders per set examined.

#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "model/job.h"
#include "sched/estimate.h"
#include "sim/placement.h"
#include "sim/view.h"

namespace geopipe {

struct SearchSpec {
  enum class Objective {
    kMinTime,  ///< minimise the estimated iteration time
    kMinCost,  ///< minimise the estimated electricity cost subject to T_est <= time_cap_s
  };
  Objective objective = Objective::kMinTime;
  int max_blocks = 4;                          ///< max region switches + 1
  bool stall_free = true;                      ///< require residual >= β on every cross-region hop
  BandwidthModel bandwidth = BandwidthModel::kExpected;
  double time_cap_s = std::numeric_limits<double>::infinity();  ///< kMinCost only
  long node_budget = 2'000'000;                ///< DFS nodes before giving up (truncated)
  bool stop_at_first = false;                  ///< feasibility only: stop at the first placement found
  /// Record every placement that became the incumbent in SearchResult::incumbents (for
  /// balanced_split_beats; off: nothing is recorded or allocated).
  bool keep_incumbents = false;
  /// How to search; every strategy is exact, but where placements tie (exactly or to rounding)
  /// they may return different ones.
  enum class Strategy {
    kAuto,        ///< region sets for >= 8 regions and >= 2 stages per allowed block, else plain
    kPlain,       ///< one DFS over all regions (the reference)
    kRegionSets,  ///< region set by region set (falls back to plain above 6 blocks or 250k sets)
  };
  /// kAuto keeps the plain DFS below 8 regions, the size of the paper's topologies, so that
  /// results made with it stay bit-identical; stop_at_first always uses the plain DFS.
  Strategy strategy = Strategy::kAuto;
};

struct SearchResult {
  bool found = false;
  Placement placement;
  double est_iteration_s = std::numeric_limits<double>::infinity();
  double objective = std::numeric_limits<double>::infinity();  ///< T_est (s) or cost (USD)
  long nodes = 0;
  bool truncated = false;
  /// With SearchSpec::keep_incumbents: every placement that became the incumbent, in the order
  /// found (the last one is `placement`); else empty.
  std::vector<Placement> incumbents;
};

/// Does a placement the search reached beat its result once each runs with the layer split it
/// would run with (sim.layer_partition)? The search ranks placements by the even split's
/// estimate (docs/model.md, "Layer partitions"); this compares `r.incumbents` (recorded with
/// `spec.keep_incumbents`) with `r.placement` by the estimate of estimate.h under the actual
/// split: the iteration time, or for kMinCost the cost at its own iteration time among those
/// within `spec.time_cap_s`. True only if one is lower by more than a relative 1e-12, so a true
/// answer proves the search's ranking cost this decision something; false proves nothing about
/// placements the search never reached. Always false for the even split.
bool balanced_split_beats(const JobProfile& p, const ClusterView& view, const SearchSpec& spec, const SearchResult& r);

/// Reusable search state (one per scheduler; not thread-safe).
class Pathfinder {
 public:
  SearchResult search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec);

 private:
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
  bool search_by_region_sets(int cap_total);  // false: too many sets, use the plain DFS
  bool region_sets_apply() const;             // strategy, size and set count allow set mode
  void first_incumbent(int cap_total);        // a quick first placement that prunes the sets
  struct RegionSet;
  void enumerate_sets();                      // sets_: every set that may hold the optimum, by bound
  void search_sets();                         // the DFS restricted to each set, best bound first
  bool some_order_within(const RegionSet& st, double thr) const;
  void compute_hop_bounds();       // hop_lb_, hopc_lb_ (set mode)
  double rest_chain(int last, std::uint64_t unused) const;  // least Σ hop_lb_ from last through unused
  void compute_symmetry();         // sym_prev_ (set mode)
  void memo_clear();
  MemoSlot& memo_slot(std::uint64_t mask, int stage, int region);
  void dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj, double sum, double mx);
  bool dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx);
  bool suffix_bound(int j, std::uint64_t mask, int blocks_left, int last, double& sum, double& mx, double& obj,
                    double& hops) const;
  double unit(int r, int i) const { return unit_[static_cast<size_t>(r * S_ + i)]; }
  double coef(int r, int i) const { return coef_[static_cast<size_t>(r * S_ + i)]; }

  // per-search inputs
  const JobProfile* p_ = nullptr;
  const ClusterView* view_ = nullptr;
  SearchSpec spec_;
  int S_ = 0, R_ = 0, m_ = 0;
  double mm1_ = 0;  ///< the schedule's bottleneck weight (m − 1 for GPipe and 1F1B)
  double intra_c_ = 0, intra_lat_ = 0, opt_step_ = 0;
  std::vector<double> unit_, fwd_, coef_;     // R×S: 3f, f, cost coefficient (inf: stage does not fit)
  std::vector<double> unit_prefix_, coef_prefix_;  // R×(S+1)
  std::vector<int> run_;                      // R×S: feasible stages in a row from i on r
  std::vector<int> cap_;                      // stages region r can take
  std::vector<double> lb_sum_, lb_max_, lb_obj_;  // suffix bounds, size S+1
  std::vector<double> sufmin_unit_, sufmin_coef_;  // R×(S+1): min over stages >= j on region r
  std::vector<std::vector<int>> lb_order_unit_, lb_order_coef_;  // per j: regions by sufmin, best first
  std::vector<int> cap_order_;                // regions by capacity, largest first
  double min_hop_time_ = 0;                   // smallest round-trip latency of any link
  std::vector<double> hop_lat_;               // R×R round-trip latency (inf: not linked)
  std::vector<double> hop_egress_;            // R×R egress cost of the whole job over hop a -> b (cost search; else 0)
  std::vector<std::vector<int>> order_;       // per stage: candidate regions, best first
  std::vector<MemoSlot> memo_slots_;          // size a power of two, load <= 1/2
  std::vector<Label> memo_labels_;            // label pool, reset per search
  std::uint32_t memo_gen_ = 0;
  size_t memo_used_ = 0;
  // region-set decomposition
  struct RegionSet {
    double lb;  ///< objective lower bound (cost, or time with the cheapest-hop term)
    std::uint64_t mask;
    int capsum;
    double maxunit;  ///< lower bound of the max term without hops
    double tsum;     ///< lower bound of the time's other terms without hops
  };
  struct SetFrame {
    int next;
    std::uint64_t mask;
    int filled, capsum, k;
    double fill, maxunit;
  };
  std::vector<RegionSet> sets_;
  std::vector<SetFrame> set_stack_;
  std::vector<int> set_rank_;                 // usable regions, best figure first
  std::vector<double> fmin_, fmax_;           // per region: extreme forward times of the stages it takes
  std::vector<int> sym_prev_;                 // per region: previous interchangeable region by index, −1 if none
  std::vector<std::uint64_t> sym_hash_;
  std::vector<double> hop_lb_, hopc_lb_;      // R×R: least latency+communication and communication time of a hop (inf: never usable)
  std::uint64_t full_ = 0;                    // bits of all R regions
  bool require_all_ = false;                  // leaf must have used every region (set mode)
  std::vector<int> path_r_, path_len_;        // current blocks
  std::vector<double> blockmax_buf_;          // max_blocks × (S+1): per depth, block max by length
  // incumbent
  double best_obj_ = 0, best_T_ = 0;
  std::vector<int> best_r_, best_len_;
  std::vector<Placement> incumbents_;         // keep_incumbents
  long nodes_ = 0;
  bool truncated_ = false;
  bool stop_ = false;                         // stop_at_first satisfied
};

}  // namespace geopipe
