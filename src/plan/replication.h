// Precision-driven replication (`seeds = { min, max, rel_ci, ... }`, docs/sweep-format.md,
// "Seeds until a precision"): which seeds of which points a sweep runs, decided in rounds from
// the results of the earlier rounds only. Plain C++ (no MPI, no HDF5): the runner feeds it
// results and asks for the next round; `summarize` replays it on a file's rows.
//
// Determinism: a point's allowance after round r is a function of the metric values of its
// seeds below its allowance after round r - 1, nothing else. So the final set of scenarios
// is the same for any number of ranks and threads, and after any interruption: a resumed run
// replays the rounds from the stored rows (every round's results are in the file before the
// next round starts, except the round it was interrupted in, which it completes first).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweepfile/loader.h"
#include "sim/metrics.h"
#include "plan/plan.h"

namespace geopipe::sweep {

/// Where a point stands.
enum class PrecisionState {
  kRunning,    ///< its current round is not complete
  kConverged,  ///< every quantity's CI meets the target
  kMaxSeeds,   ///< `max` seeds ran without meeting it
  kFailed,     ///< a scenario of it failed or gave a non-finite value: no more seeds
};

/// One point's precision after its seeds so far (the least precise of its quantities).
struct PointPrecision {
  std::uint64_t seeds = 0;    ///< seeds whose results the decision used
  double mean = 0;            ///< of the least precise quantity
  double half_width = 0;      ///< its CI half-width (Student t, ReplicationRule::confidence)
  double rel_half_width = 0;  ///< half_width / |mean| (inf for a mean of 0)
  PrecisionState state = PrecisionState::kRunning;
};

class Replication {
 public:
  /// `rule` of a sweep with `points` points and `schedulers` (names, in plan order).
  Replication(const config::ReplicationRule& rule, std::uint64_t points, const std::vector<std::string>& schedulers);

  /// The seeds point `p` runs so far (seed indices 0 .. allowance - 1).
  std::uint64_t allowance(std::uint64_t p) const { return allowance_[p]; }
  const std::vector<std::uint32_t>& allowances() const { return allowance_; }
  /// The result of scenario (p, seed index k, scheduler s): ok with the rule's metric value, or
  /// failed. Results beyond a point's allowance are kept for later rounds (a resumed file holds
  /// the rounds it ran) and used only once the allowance reaches them.
  void record(std::uint64_t p, std::uint64_t k, std::uint64_t s, bool ok, double value);
  /// Every scenario of every point's allowance has a result?
  bool round_complete() const;
  /// Decides every point whose allowance is complete and that still runs: converged, out of
  /// seeds, failed, or more seeds (its new allowance). Returns the number of scenarios the new
  /// allowances add. Call when round_complete().
  std::uint64_t next_round();
  /// Scenarios of all allowances.
  std::uint64_t scenarios() const;
  /// Point p's precision (after the last next_round()).
  const PointPrecision& precision(std::uint64_t p) const { return precision_[p]; }
  int rounds() const { return rounds_; }
  /// Points by state (after the last next_round()).
  std::uint64_t count(PrecisionState s) const;

  /// The metric value the rule uses from a result's metrics.
  static double metric_value(const config::ReplicationRule& rule, const ScenarioMetrics& m);

 private:
  /// The decision for point p from its first allowance_[p] seeds: its precision and the
  /// allowance it needs (== allowance_[p] when it stops).
  std::uint64_t decide(std::uint64_t p);

  config::ReplicationRule rule_;
  std::uint64_t points_;
  std::uint64_t scheds_;
  std::size_t paired_ = SIZE_MAX;  ///< index of paired_vs, or SIZE_MAX
  std::vector<std::uint32_t> allowance_;
  std::vector<std::vector<double>> values_;  ///< per point: seed-major (k * S + s), NaN = no result yet, inf = failed
  std::vector<PointPrecision> precision_;
  int rounds_ = 1;
};

}  // namespace geopipe::sweep
