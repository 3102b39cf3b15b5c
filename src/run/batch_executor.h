// Running batches of scenarios on a oneTBB arena: what every rank does with a batch, and rank
// 0's own background executor. No MPI and no output here. Internal to src/run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "sweepfile/loader.h"
#include "run/evaluator.h"
#include "run/execute_scenario.h"
#include "plan/plan.h"
#include "results/result.h"
#include "run/serialize.h"

namespace geopipe::sweep {

/// What running a scenario needs; shared read-only by all threads of a rank.
struct ExecContext {
  const config::SweepSpec* spec = nullptr;
  const PointEvaluator* evaluator = nullptr;
  const Plan* plan = nullptr;
  ExecuteOptions exec;
  tbb::task_arena* arena = nullptr;
};

/// Runs every id of the batch on the arena's threads; stops early (dropping the rest) when a
/// stop is requested (run/signals.h). Results are delivered in chunks through `sink`, which
/// is called concurrently from the arena's threads.
void run_batch(const ExecContext& cx, const std::vector<IdRange>& batch,
               const std::function<void(std::vector<ScenarioResult>&&)>& sink);

/// Rank 0's own executor, on the arena's threads. Each thread takes the ids of one (point,
/// seed) pair at a time (at most all its schedulers: they share the pair's scenario and jobs,
/// run/evaluator.h) from a queue that the master refills before it runs dry, so the threads
/// go from batch to batch without waiting for the master, stay balanced to one pair, and finish
/// in about id order (Reorder holds few results). Results are handed over without waking the
/// master (a wake-up per chunk of results took a core from the computing threads on a loaded
/// machine); it is woken when the queue runs low (wants_work) or all its work came back (idle).
/// After a stop request (run/signals.h) the threads finish the scenario at hand and drop the
/// rest of the queue. All members are called by one thread, the master's.
class LocalExecutor {
 public:
  explicit LocalExecutor(const ExecContext& cx);
  ~LocalExecutor();  ///< waits for the scenarios at hand; drops the queued ids
  LocalExecutor(const LocalExecutor&) = delete;
  LocalExecutor& operator=(const LocalExecutor&) = delete;
  /// Nothing queued and nothing running: the result of every submitted id that was run is in
  /// (drain hands it over).
  bool idle();
  /// Fewer ids queued than half of the last batch submitted (and than one per thread): time to
  /// submit the next.
  bool wants_work();
  void submit(const std::vector<IdRange>& batch);  ///< queued after the ids already queued
  /// Appends the finished results to `out` (in the order they finished), after waiting up to
  /// `wait` for the executor to want work (`for_work`) or else to become idle; results
  /// finishing meanwhile do not end the wait, and an executor already idle is not waited for
  /// again (the wait is a plain sleep then).
  void drain(std::vector<ScenarioResult>& out, std::chrono::microseconds wait, bool for_work);

 private:
  void work();  ///< one thread of the arena, until quit_
  bool idle_locked() const { return queued_ == 0 && running_ == 0; }
  bool wants_work_locked() const { return queued_ < low_water_; }
  ExecContext cx_;
  std::mutex mu_;
  std::condition_variable work_cv_;  ///< the threads wait here for ids (or quit_)
  std::condition_variable done_cv_;  ///< the master waits here (drain)
  std::deque<IdRange> queue_;        ///< ids submitted, not yet taken
  std::uint64_t queued_ = 0;         ///< ids in queue_
  std::uint64_t low_water_ = 1;      ///< wants_work below this many queued ids
  int running_ = 0;                  ///< threads running a taken chunk
  std::vector<ScenarioResult> results_;  ///< finished, not yet drained (swapped out by drain)
  bool quit_ = false;
  int threads_;         ///< the arena's
  std::thread thread_;  // last: started after everything above is initialised
};

}  // namespace geopipe::sweep
