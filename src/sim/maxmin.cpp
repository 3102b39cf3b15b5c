#include "sim/maxmin.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace geopipe {

double maxmin_share(double capacity, std::span<const double> demand, std::span<double> alloc,
                    std::vector<std::size_t>& order) {
  const std::size_t n = demand.size();
  assert(alloc.size() == n);
  order.resize(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return demand[a] < demand[b] || (demand[a] == demand[b] && a < b);
  });
  double remaining = std::max(0.0, capacity);
  std::size_t k = 0;
  // Satisfy flows in increasing demand while each fits under the current fair level.
  for (; k < n; ++k) {
    const std::size_t f = order[k];
    const double level = remaining / static_cast<double>(n - k);
    if (demand[f] > level) break;
    alloc[f] = demand[f];
    remaining -= demand[f];
  }
  if (k == n) return remaining;
  // The rest are bottlenecked: they all get the same level.
  const double level = remaining / static_cast<double>(n - k);
  for (; k < n; ++k) alloc[order[k]] = level;
  return 0.0;
}

double maxmin_share(double capacity, std::span<const double> demand, std::span<double> alloc) {
  std::vector<std::size_t> order;
  return maxmin_share(capacity, demand, alloc, order);
}

}  // namespace geopipe
