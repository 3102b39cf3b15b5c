#include "sim/jct_bound.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

namespace geopipe {

double srpt_mean_flow_time_s(std::span<const double> release_s, std::span<const double> work, double speed) {
  const std::size_t n = release_s.size();
  if (n == 0) return 0.0;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return release_s[a] < release_s[b]; });
  // (remaining work, job index): the least remaining first, ties to the lowest index.
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  double flow_sum = 0;
  double t = release_s[order[0]];
  std::size_t next = 0;  // position in `order` of the next job not yet released
  while (next < n || !ready.empty()) {
    while (next < n && release_s[order[next]] <= t) {
      ready.emplace(work[order[next]], order[next]);
      ++next;
    }
    if (ready.empty()) {  // idle until the next release
      t = release_s[order[next]];
      continue;
    }
    const auto [rem, j] = ready.top();
    ready.pop();
    const double done_at = t + rem / speed;
    if (next < n && release_s[order[next]] < done_at) {
      // Served until the next release, which may preempt it.
      const double until = release_s[order[next]];
      ready.emplace(std::max(0.0, rem - (until - t) * speed), j);
      t = until;
    } else {
      t = done_at;
      flow_sum += t - release_s[j];
    }
  }
  return flow_sum / static_cast<double>(n);
}

JctBound jct_lower_bound(std::span<const double> arrival_s, std::span<const int> gpus,
                         std::span<const double> alone_s, int total_gpus) {
  JctBound b;
  const std::size_t n = arrival_s.size();
  if (n == 0) return b;
  std::vector<double> work(n);
  double alone_sum = 0;  // in job order
  for (std::size_t j = 0; j < n; ++j) {
    alone_sum += alone_s[j];
    work[j] = static_cast<double>(gpus[j]) * alone_s[j];
  }
  b.mean_alone_s = alone_sum / static_cast<double>(n);
  b.srpt_s = srpt_mean_flow_time_s(arrival_s, work, static_cast<double>(total_gpus));
  b.bound_s = std::max(b.mean_alone_s, b.srpt_s);
  return b;
}

}  // namespace geopipe
