// The dispatcher's bookkeeping, free of MPI and threads: which ids are left to run, how large
// the next batch is, and the order in which results reach the output. Internal to src/plan and src/run.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "plan/plan.h"
#include "results/result.h"
#include "results/result_sink.h"
#include "run/serialize.h"

namespace geopipe::sweep {

/// Number of ids in a batch of ranges.
std::uint64_t count(const std::vector<IdRange>& ranges);

/// Walks the ids of the plan's shard in increasing order, skipping those already done (a
/// sorted list), without materialising the id list: memory does not grow with the number of
/// scenarios. With `allowance` (precision-driven replication, plan/replication.h), only the
/// seed indices below allowance[point] of each point.
class IdCursor {
 public:
  IdCursor(const Plan& plan, const std::vector<std::int64_t>& done,
           const std::vector<std::uint32_t>* allowance = nullptr);
  bool empty() const { return next_ >= plan_.total(); }
  std::uint64_t remaining() const { return remaining_; }
  /// Appends up to n ids as ranges; returns how many.
  std::uint64_t take(std::uint64_t n, std::vector<IdRange>& out);

 private:
  void advance();  ///< next_ to the first id >= next_ in the shard and not done
  bool allowed(std::uint64_t id) const;
  const Plan& plan_;
  const std::vector<std::int64_t>& done_;
  const std::vector<std::uint32_t>* allowance_;
  std::uint64_t next_ = 0, remaining_ = 0;
  std::size_t dpos_ = 0;
};

/// Batch size from a running mean of scenario run times: ~0.25 s of work for `threads`
/// threads, at least `threads`, at most half of the remaining work per executor (a balanced
/// tail), at most 16384 (bounded memory per batch).
class BatchSizer {
 public:
  BatchSizer(int threads, int executors) : threads_(threads), executors_(executors) {}
  void observe(double scenario_s);
  std::uint64_t next(std::uint64_t remaining) const;

 private:
  static constexpr double kTargetS = 0.25;
  static constexpr double kMaxBatch = 16384;  // caps one batch's results (~300 B each)
  int threads_, executors_;
  double mean_s_ = 0;
  long n_ = 0;
};

/// Results reach the sink in dispatch (= id) order: one that arrives before an earlier
/// dispatched one waits here until all before it are in. The window is bounded by what is in
/// flight, and an uninterrupted run's output needs no sorting.
class Reorder {
 public:
  explicit Reorder(ResultSink& sink) : sink_(sink) {}
  void dispatched(const std::vector<IdRange>& batch);
  void add(ScenarioResult&& r);
  /// Hands over whatever waits, in id order (after an interruption).
  void release_all();

 private:
  void advance();  ///< pops the head id, then writes every waiting result now at the head
  ResultSink& sink_;
  std::deque<IdRange> order_;
  std::map<std::int64_t, ScenarioResult> early_;
};

}  // namespace geopipe::sweep
