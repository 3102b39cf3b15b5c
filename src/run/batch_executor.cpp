#include "run/batch_executor.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

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

LocalExecutor::LocalExecutor(const ExecContext& cx) : cx_(cx), thread_([this] { loop(); }) {}

LocalExecutor::~LocalExecutor() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool LocalExecutor::idle() {
  std::lock_guard<std::mutex> lk(mu_);
  return !busy_;
}

void LocalExecutor::submit(std::vector<IdRange> batch) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    batch_ = std::move(batch);
    busy_ = true;
  }
  cv_.notify_all();
}

void LocalExecutor::drain(std::vector<ScenarioResult>& out, std::chrono::microseconds wait) {
  std::unique_lock<std::mutex> lk(mu_);
  if (results_.empty() && wait.count() > 0) done_cv_.wait_for(lk, wait, [&] { return !results_.empty() || !busy_; });
  for (auto& r : results_) out.push_back(std::move(r));
  results_.clear();
}

void LocalExecutor::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (true) {
    cv_.wait(lk, [&] { return quit_ || !batch_.empty(); });
    if (quit_) return;
    std::vector<IdRange> b = std::move(batch_);
    batch_.clear();
    lk.unlock();
    run_batch(cx_, b, [&](std::vector<ScenarioResult>&& chunk) {
      std::lock_guard<std::mutex> g(mu_);
      for (auto& r : chunk) results_.push_back(std::move(r));
      done_cv_.notify_all();
    });
    lk.lock();
    busy_ = false;
    done_cv_.notify_all();
  }
}

}  // namespace geopipe::sweep
