// The placement search behind the bandwidth-aware pathfinder, the cost-min allocator and the
// delay-first baseline (DESIGN.md §3).
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
//   * candidate regions tried cheapest first and long blocks first, so good incumbents come early.
// It is exact (returns an optimum of the estimate in estimate.h) unless the node budget runs
// out, in which case the best placement found so far is returned with `truncated` set.
// Deterministic: strict improvements only, fixed exploration order, ties by region index.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
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
};

struct SearchResult {
  bool found = false;
  Placement placement;
  double est_iteration_s = std::numeric_limits<double>::infinity();
  double objective = std::numeric_limits<double>::infinity();  ///< T_est (s) or cost (USD)
  long nodes = 0;
  bool truncated = false;
};

/// Reusable search state (one per scheduler; not thread-safe).
class Pathfinder {
 public:
  SearchResult search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec);

 private:
  struct Label {
    double obj, sum, max;
  };
  struct Key {
    std::uint64_t mask;
    int stage, region;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      std::uint64_t h = k.mask * 0x9E3779B97F4A7C15ULL;
      h ^= (static_cast<std::uint64_t>(k.stage) << 32 | static_cast<std::uint32_t>(k.region)) + 0x7F4A7C15ULL + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };

  void dfs(int i, int last, int blocks, std::uint64_t mask, int cap_unused, double obj, double sum, double mx);
  bool dominated_or_insert(int i, int r, std::uint64_t mask, double obj, double sum, double mx);
  bool suffix_bound(int j, std::uint64_t mask, int blocks_left, int last, double& sum, double& mx, double& obj) const;
  double unit(int r, int i) const { return unit_[static_cast<size_t>(r * S_ + i)]; }
  double coef(int r, int i) const { return coef_[static_cast<size_t>(r * S_ + i)]; }

  // per-search inputs
  const JobProfile* p_ = nullptr;
  const ClusterView* view_ = nullptr;
  SearchSpec spec_;
  int S_ = 0, R_ = 0, m_ = 0;
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
  std::vector<std::vector<int>> order_;       // per stage: candidate regions, best first
  std::unordered_map<Key, std::vector<Label>, KeyHash> memo_;
  std::vector<int> path_r_, path_len_;        // current blocks
  std::vector<double> blockmax_buf_;          // max_blocks × (S+1): per depth, block max by length
  // incumbent
  double best_obj_ = 0, best_T_ = 0;
  std::vector<int> best_r_, best_len_;
  long nodes_ = 0;
  bool truncated_ = false;
  bool stop_ = false;                         // stop_at_first satisfied
};

}  // namespace geopipe
