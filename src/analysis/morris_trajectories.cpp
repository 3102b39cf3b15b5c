// The points of a Morris design (analysis/morris_trajectories.h).
#include "analysis/morris_trajectories.h"

#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/rng.h"

namespace geopipe::analysis {

std::vector<double> morris_trajectories(std::size_t trajectories, std::size_t dimensions, std::uint64_t levels,
                                        std::uint64_t seed) {
  if (levels < 2 || levels % 2 != 0)
    throw std::invalid_argument("morris_trajectories: levels = " + std::to_string(levels) +
                                " (expected an even number >= 2: Delta = p / (2 (p - 1)) lands on the grid only for even p)");
  const std::size_t d = dimensions;
  const double step = 1.0 / static_cast<double>(levels - 1);  // grid spacing
  const std::uint64_t jump = levels / 2;                       // Delta in grid steps
  std::vector<double> unit;
  unit.reserve(trajectories * (d + 1) * d);
  std::vector<std::uint64_t> level(d);
  std::vector<bool> down(d);
  std::vector<std::size_t> order(d);
  for (std::size_t t = 0; t < trajectories; ++t) {
    Rng rng(derive_seed(seed, "morris trajectory " + std::to_string(t)));
    for (std::size_t j = 0; j < d; ++j) {
      level[j] = rng.below(levels - jump);  // x*: one of the lower p/2 levels
      down[j] = rng.below(2) == 1;          // going down from x* + Delta
      if (down[j]) level[j] += jump;
    }
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = d; i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(rng.below(i))]);
    for (std::size_t s = 0; s <= d; ++s) {
      if (s > 0) {
        const std::size_t j = order[s - 1];
        level[j] = down[j] ? level[j] - jump : level[j] + jump;
      }
      for (std::size_t j = 0; j < d; ++j) unit.push_back(static_cast<double>(level[j]) * step);
    }
  }
  return unit;
}

}  // namespace geopipe::analysis
