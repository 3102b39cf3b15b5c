// The points of a one-at-a-time design (analysis/one_at_a_time.h).
#include "analysis/one_at_a_time.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace geopipe::analysis {

std::vector<double> oat_grid_levels(std::size_t levels) {
  if (levels < 2) throw std::invalid_argument("oat_grid_levels: levels = " + std::to_string(levels) + " (expected at least 2)");
  std::vector<double> u;
  for (std::size_t k = 0; k < levels; ++k) u.push_back(static_cast<double>(k) / static_cast<double>(levels - 1));
  return u;
}

std::vector<double> oat_value_levels(std::size_t count) {
  std::vector<double> u;
  for (std::size_t k = 0; k < count; ++k) u.push_back((static_cast<double>(k) + 0.5) / static_cast<double>(count));
  return u;
}

std::vector<double> oat_points(const std::vector<std::vector<double>>& levels) {
  const std::size_t nf = levels.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> unit(nf, nan);  // point 0: the base
  for (std::size_t j = 0; j < nf; ++j)
    for (const double u : levels[j])
      for (std::size_t k = 0; k < nf; ++k) unit.push_back(k == j ? u : nan);
  return unit;
}

}  // namespace geopipe::analysis
