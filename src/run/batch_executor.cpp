#include "run/batch_executor.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "plan/dispatch.h"
#include "run/signals.h"

namespace geopipe::sweep {

void run_batch(const ExecContext& cx, const std::vector<IdRange>& batch,
               const std::function<void(std::vector<ScenarioResult>&&)>& sink) {
  // Flat index k -> id through the prefix sums of the ranges (no per-id list).
  std::vector<std::int64_t> prefix(batch.size() + 1, 0);
  for (size_t r = 0; r < batch.size(); ++r) prefix[r + 1] = prefix[r] + (batch[r].last - batch[r].first);
  const auto n = static_cast<size_t>(prefix.back());
  auto id_of = [&](size_t k) {
    const auto kk = static_cast<std::int64_t>(k);
    const size_t r = static_cast<size_t>(std::upper_bound(prefix.begin(), prefix.end(), kk) - prefix.begin()) - 1;
    return batch[r].first + (kk - prefix[r]);
  };
  cx.arena->execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n), [&](const tbb::blocked_range<size_t>& rg) {
      std::vector<ScenarioResult> out;
      out.reserve(rg.size());
      for (size_t k = rg.begin(); k != rg.end(); ++k) {
        if (stop_requested()) break;
        out.push_back(execute_scenario(*cx.evaluator, *cx.plan, id_of(k), cx.exec));
      }
      if (!out.empty()) sink(std::move(out));
    });
  });
}

namespace {

/// The arena's number of threads (initialised first: an arena of one thread that is not yet
/// reports the machine's default).
int threads_of(tbb::task_arena& arena) {
  arena.initialize();
  return std::max(1, arena.max_concurrency());
}

}  // namespace

LocalExecutor::LocalExecutor(const ExecContext& cx)
    : cx_(cx), threads_(threads_of(*cx.arena)), thread_([this] {
        // One loop per thread of the arena, each on its own task (simple_partitioner: ranges
        // of one index); they return at quit_.
        cx_.arena->execute([&] {
          tbb::parallel_for(
              tbb::blocked_range<int>(0, threads_, 1), [&](const tbb::blocked_range<int>&) { work(); },
              tbb::simple_partitioner());
        });
      }) {}

LocalExecutor::~LocalExecutor() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    quit_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

bool LocalExecutor::idle() {
  std::lock_guard<std::mutex> lk(mu_);
  return idle_locked();
}

bool LocalExecutor::wants_work() {
  std::lock_guard<std::mutex> lk(mu_);
  return wants_work_locked();
}

void LocalExecutor::submit(const std::vector<IdRange>& batch) {
  const std::uint64_t n = count(batch);
  if (n == 0) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const IdRange& r : batch)
      if (r.last > r.first) queue_.push_back(r);
    queued_ += n;
    low_water_ = std::max(static_cast<std::uint64_t>(threads_), n / 2);
  }
  work_cv_.notify_all();
}

void LocalExecutor::drain(std::vector<ScenarioResult>& out, std::chrono::microseconds wait, bool for_work) {
  std::vector<ScenarioResult> got;
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (wait.count() > 0) {
      const bool was_idle = idle_locked();
      done_cv_.wait_for(lk, wait, [&] { return for_work ? wants_work_locked() : !was_idle && idle_locked(); });
    }
    got.swap(results_);
  }
  if (out.empty())
    out.swap(got);
  else
    for (auto& r : got) out.push_back(std::move(r));
}

void LocalExecutor::work() {
  const std::uint64_t schedulers = std::max<std::uint64_t>(1, cx_.plan->schedulers());
  std::vector<ScenarioResult> out;
  bool holding = false;  // this thread runs a chunk (counted in running_)
  std::unique_lock<std::mutex> lk(mu_);
  while (true) {
    if (!out.empty()) {  // hand over the last chunk's results
      if (results_.empty())
        results_.swap(out);
      else
        for (auto& r : out) results_.push_back(std::move(r));
      out.clear();
    }
    if (holding) {
      holding = false;
      --running_;
    }
    if (stop_requested() && queued_ > 0) {  // drop what was not taken
      queue_.clear();
      queued_ = 0;
    }
    if (idle_locked()) done_cv_.notify_all();
    work_cv_.wait(lk, [&] { return quit_ || queued_ > 0; });
    if (quit_) return;
    if (stop_requested()) continue;
    // The next ids up to the end of their (point, seed) pair.
    IdRange& front = queue_.front();
    const auto S = static_cast<std::int64_t>(schedulers);
    const std::int64_t end = std::min(front.last, (front.first / S + 1) * S);
    const IdRange chunk{front.first, end};
    front.first = end;
    if (front.first == front.last) queue_.pop_front();
    const bool was_wanting = wants_work_locked();
    queued_ -= static_cast<std::uint64_t>(chunk.last - chunk.first);
    if (!was_wanting && wants_work_locked()) done_cv_.notify_all();
    ++running_;
    holding = true;
    lk.unlock();
    for (std::int64_t id = chunk.first; id < chunk.last; ++id) {
      if (stop_requested()) break;
      out.push_back(execute_scenario(*cx_.evaluator, *cx_.plan, id, cx_.exec));
    }
    lk.lock();
  }
}

}  // namespace geopipe::sweep
