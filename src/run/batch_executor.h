// Running batches of scenarios on a oneTBB arena: what every rank does with a batch, and rank
// 0's own background executor. No MPI and no output here. Internal to src/run.
#pragma once

#include <condition_variable>
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

/// Rank 0's worker: runs one batch at a time on a background thread while the master thread
/// dispatches and writes.
class LocalExecutor {
 public:
  explicit LocalExecutor(const ExecContext& cx);
  ~LocalExecutor();  ///< waits for the running batch
  LocalExecutor(const LocalExecutor&) = delete;
  LocalExecutor& operator=(const LocalExecutor&) = delete;
  bool idle();
  void submit(std::vector<IdRange> batch);  ///< only when idle()
  /// Moves finished results out; waits up to `wait` for some if there are none.
  void drain(std::vector<ScenarioResult>& out, std::chrono::microseconds wait);

 private:
  void loop();
  ExecContext cx_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<IdRange> batch_;
  std::deque<ScenarioResult> results_;
  bool busy_ = false, quit_ = false;
  std::thread thread_;  // last: started after everything above is initialised
};

}  // namespace geopipe::sweep
