// Rank 0's local executor (run/batch_executor.h): every id submitted comes back once, with its
// own result, however the batches are cut and whenever they are submitted; a thread takes the
// ids of one (point, seed) pair together, so that the schedulers of a pair share its scenario
// and jobs (the evaluator's per-thread cache, run/evaluator.h).
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "plan/dispatch.h"
#include "run/batch_executor.h"

namespace geopipe::sweep {
namespace {

/// Gives scenario (point, seed, scheduler) the value point·10000 + seed·100 + scheduler and
/// notes which thread evaluated each. With `pair_up`, the first evaluation waits for a second
/// one to start (for at most 10 s, should the arena's second thread never come), so that two
/// threads have taken work before any finishes.
class RecordingEvaluator final : public PointEvaluator {
 public:
  explicit RecordingEvaluator(bool pair_up) : started_(pair_up ? 0 : 2) {}
  void evaluate(const ScenarioKey& k, const ExecuteOptions&, ScenarioResult& res) const override {
    res.metrics.value = static_cast<double>(k.point * 10000 + k.seed_index * 100 + k.scheduler_index);
    std::unique_lock<std::mutex> lk(mu_);
    thread_of_[k] = std::this_thread::get_id();
    if (started_ < 2 && ++started_ == 1) {
      arrived_.wait_for(lk, std::chrono::seconds(10), [&] { return started_ >= 2; });
    }
    arrived_.notify_all();
  }
  std::string describe() const override { return "recording"; }
  std::thread::id thread_of(const ScenarioKey& k) const {
    std::lock_guard<std::mutex> lk(mu_);
    return thread_of_.at(k);
  }

 private:
  struct Less {
    bool operator()(const ScenarioKey& a, const ScenarioKey& b) const {
      if (a.point != b.point) return a.point < b.point;
      if (a.seed_index != b.seed_index) return a.seed_index < b.seed_index;
      return a.scheduler_index < b.scheduler_index;
    }
  };
  mutable std::mutex mu_;
  mutable std::condition_variable arrived_;
  mutable int started_;
  mutable std::map<ScenarioKey, std::thread::id, Less> thread_of_;
};

/// Feeds `exec` the plan's ids in batches of the sizes in `sizes` (cycled), the way the master
/// does (a batch whenever it wants work), and returns every result it hands back.
std::vector<ScenarioResult> run_all(LocalExecutor& exec, const Plan& plan, const std::vector<std::uint64_t>& sizes) {
  const std::vector<std::int64_t> done;  // (the cursor keeps a reference)
  IdCursor cursor(plan, done);
  std::vector<ScenarioResult> got;
  std::size_t k = 0;
  while (true) {
    const bool more = !cursor.empty();
    exec.drain(got, std::chrono::microseconds(1000), more);
    if (more && exec.wants_work()) {
      std::vector<IdRange> batch;
      cursor.take(sizes[k++ % sizes.size()], batch);
      exec.submit(batch);
    }
    if (!more && exec.idle()) {
      exec.drain(got, std::chrono::microseconds(0), false);
      return got;
    }
  }
}

TEST(LocalExecutor, EveryIdSubmittedComesBackOnceWithItsOwnResult) {
  const Plan plan(5, 7, 3);  // 105 scenarios
  for (const int threads : {1, 2, 3}) {
    for (const std::vector<std::uint64_t>& sizes : std::vector<std::vector<std::uint64_t>>{{1}, {2, 7, 1}, {40}, {200}}) {
      RecordingEvaluator ev(threads > 1);
      tbb::task_arena arena(threads);
      const ExecContext cx{nullptr, &ev, &plan, ExecuteOptions{}, &arena};
      std::vector<ScenarioResult> got;
      {
        LocalExecutor exec(cx);
        EXPECT_TRUE(exec.idle());
        EXPECT_TRUE(exec.wants_work());
        got = run_all(exec, plan, sizes);
        EXPECT_TRUE(exec.idle());
      }
      std::map<std::int64_t, int> seen;
      for (const ScenarioResult& r : got) {
        ++seen[r.id];
        ASSERT_TRUE(r.ok) << r.error;
        const ScenarioKey k = plan.key(static_cast<std::uint64_t>(r.id));
        EXPECT_EQ(r.metrics.value, static_cast<double>(k.point * 10000 + k.seed_index * 100 + k.scheduler_index))
            << "id " << r.id;
      }
      ASSERT_EQ(seen.size(), plan.total()) << threads << " threads, first batch size " << sizes[0];
      for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << "id " << id;
    }
  }
}

TEST(LocalExecutor, AThreadTakesTheSchedulersOfAPairTogether) {
  const Plan plan(3, 20, 4);  // 240 scenarios, 60 pairs
  RecordingEvaluator ev(true);
  tbb::task_arena arena(2);
  const ExecContext cx{nullptr, &ev, &plan, ExecuteOptions{}, &arena};
  std::vector<ScenarioResult> got;
  {
    LocalExecutor exec(cx);
    got = run_all(exec, plan, {240});  // one range: pairs are never cut by a batch
  }
  ASSERT_EQ(got.size(), plan.total());
  for (std::uint64_t p = 0; p < plan.points(); ++p)
    for (std::uint64_t s = 0; s < plan.seeds(); ++s)
      for (std::uint64_t j = 1; j < plan.schedulers(); ++j)
        EXPECT_EQ(ev.thread_of({p, s, j}), ev.thread_of({p, s, 0})) << "point " << p << " seed " << s;
}

}  // namespace
}  // namespace geopipe::sweep
