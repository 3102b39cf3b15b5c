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
//   * admissible bounds: Σ and max of the cheapest remaining per-stage figures; a
//     capacity-aware bound that fills the remaining stages into the unused regions best-first
//     (which also bounds the max term and the number of hops still needed); and (kTight) the
//     hops' least communication time and stall-free usability, a chain of two hops through
//     unused regions, the same-region hops the rest must have, the unit of the stage right
//     after a block on a region reachable from it, an exact bound when one block remains;
//   * dominance pruning on (next stage, last region, used-region set) with labels
//     (objective, Σ time, max time): a partial placement dominated on all three is cut;
//   * candidate regions tried cheapest first and long blocks first, so good incumbents come
//     early, and cut, with every later one, once a bound needing no hop fails;
//   * block lengths from the most the region can take down to the fewest that leave the rest
//     placeable in the blocks still allowed, with a scan that stops at the first length whose
//     (monotone) bound fails.
// On wide topologies and deep pipelines (Strategy::kAuto: >= 2 stages per allowed block, and
// >= 8 regions or >= 4 regions with >= 16 stages) the search is decomposed by the set of
// regions used: one heap holds the sets, each with a bound
// needing no ordering (fill, slowest region, its least chain of hops and its same-region
// hops), and frames standing for the sets that extend a combination (a bound of them all);
// sets are taken in increasing bound, each searched by the same DFS restricted to it, until
// the next bound reaches the incumbent, so only the sets and frames below the final
// incumbent are ever built. In both searches interchangeable regions (twins: equal tables,
// capacity and links, see compute_symmetry) are used in index order only, which keeps
// identical regions from multiplying the search (64 identical one-GPU regions fully meshed and
// an 8-stage job: 9 nodes; when only the set search did this, the plain DFS ran into its node
// budget there, 2M nodes and seconds per search: docs/performance.md).
// It is exact (returns an optimum of the estimate in estimate.h) unless the node budget runs
// out, in which case the best placement found so far is returned with `truncated` set.
// Deterministic: strict improvements only, fixed exploration order, ties by region index. Of
// placements that tie (exactly, or to rounding), the first found is returned, so the two
// strategies may return different ones of them (docs/performance.md).
//
// Cost: the plain DFS is exponential in max_blocks in the worst case (ordered region choices ×
// block lengths); the bounds make it O(nodes · R · S/blocks) with nodes in the tens to
// thousands for 6–64 regions × 64 stages. The set search builds O(sets and frames below the
// incumbent), up to a budget of 32·R·S (past it the plain DFS goes on from its incumbent), and
// K! orders per set built.

#pragma once

#include <limits>
#include <memory>
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
    kAuto,        ///< region sets for >= 2 stages per allowed block on >= 8 regions, or on
                  ///< >= 4 regions with >= 16 stages; else plain
    kPlain,       ///< one DFS over all regions (the reference)
    kRegionSets,  ///< region set by region set (plain above 6 blocks, or past a budget of 32·R·S sets)
  };
  /// kAuto keeps the plain DFS below 8 regions for pipelines of fewer than 16 stages (the
  /// paper's jobs have at most 8), where it is the faster one and the shipped results were
  /// made with it; deeper pipelines on 4–7 regions take the set search (model version 3:
  /// docs/model.md, "Pathfinder"). stop_at_first always uses the plain DFS.
  Strategy strategy = Strategy::kAuto;
  /// Which bounds prune the plain DFS. kTight adds to the original search's bounds others that
  /// cut only what cannot become an incumbent (compared with a relative margin of 1e-9 that
  /// rounding cannot reach): the same placements become the incumbent in the same order, so
  /// the result and `incumbents` are bit-identical, in fewer nodes. They need O(R²) tables per
  /// search, so kTight uses them where they pay: pipelines of 12 stages or more, and the set
  /// search. kReference keeps only the original bounds; tests run both to check that
  /// (tests/unit/test_pathfinder_bounds.cpp).
  enum class Bounds { kTight, kReference };
  Bounds bounds = Bounds::kTight;
  /// The caller's promise that `p` and `view` are the objects of this Pathfinder's previous
  /// search and unchanged since (the cost-min search of a placement right after its fastest
  /// search, as PathfinderPolicy runs them). The tables of that search that depend only on the
  /// job, the topology and the free GPUs (each stage's unit and forward times and their sums,
  /// run lengths, latencies, the suffix minima and orders by unit time, regions by capacity)
  /// are then kept instead of rebuilt, and only the cost coefficients are computed; if the objects or the free
  /// GPUs differ, everything is rebuilt. Off by default. Exact: builds with assertions repeat
  /// every search made with it, without it, and assert the same result bit for bit.
  bool same_job_and_view = false;
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

/// Reusable search state (one per scheduler; not thread-safe). The state is allocated once, at
/// construction, and searches reuse its buffers: a search allocates only its result and any
/// table it needs larger than every earlier search did. Movable, not copyable; a moved-from
/// Pathfinder gets fresh state at its next search.
class Pathfinder {
 public:
  Pathfinder();
  ~Pathfinder();
  Pathfinder(Pathfinder&&) noexcept;
  Pathfinder& operator=(Pathfinder&&) noexcept;
  Pathfinder(const Pathfinder&) = delete;
  Pathfinder& operator=(const Pathfinder&) = delete;

  SearchResult search(const JobProfile& p, const ClusterView& view, const SearchSpec& spec);

 private:
  struct Impl;  // the search state (pathfinder_impl.h) and the search (pathfinder*.cpp)
  std::unique_ptr<Impl> impl_;
};

}  // namespace geopipe
