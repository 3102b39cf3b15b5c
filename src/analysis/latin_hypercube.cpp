// The points of a Latin hypercube (analysis/latin_hypercube.h).
#include "analysis/latin_hypercube.h"

#include <numeric>
#include <string>
#include <utility>

#include "model/rng.h"

namespace geopipe::analysis {

std::vector<double> latin_hypercube(std::size_t samples, std::size_t dimensions, std::uint64_t seed) {
  const std::size_t nf = dimensions;
  const std::size_t n = samples;
  // Unit coordinates: column j of point i lies in stratum perm_j[i] of [0, 1), at a uniform
  // position inside it. One stream per column, so adding a column does not move the others.
  std::vector<double> unit(n * nf);
  std::vector<std::size_t> perm(n);
  for (std::size_t j = 0; j < nf; ++j) {
    Rng rng(derive_seed(seed, "lhs factor " + std::to_string(j)));
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[static_cast<std::size_t>(rng.below(i))]);
    for (std::size_t i = 0; i < n; ++i) unit[i * nf + j] = (static_cast<double>(perm[i]) + rng.uniform()) / static_cast<double>(n);
  }
  return unit;
}

}  // namespace geopipe::analysis
