// The points of a Saltelli design (analysis/saltelli_sample.h).
#include "analysis/saltelli_sample.h"

#include <stdexcept>
#include <string>

#include <boost/random/sobol.hpp>

#include "analysis/saltelli_layout.h"
#include "model/rng.h"

namespace geopipe::analysis {

std::vector<double> saltelli_sample(std::size_t samples, std::size_t factors, bool second_order, std::uint64_t seed) {
  if (factors == 0 || factors > kMaxSaltelliFactors)
    throw std::invalid_argument("saltelli_sample: factors = " + std::to_string(factors) + " (expected 1 to " +
                                std::to_string(kMaxSaltelliFactors) + ")");
  const std::size_t d = factors;
  const std::size_t dims = 2 * d;
  const std::size_t n = samples;
  const SaltelliLayout layout{d, second_order};
  const std::size_t k = layout.points_per_sample();
  // The randomised base sample: n points of 2d coordinates in [0, 1).
  Rng rng(derive_seed(seed, "sobol digital shift"));
  std::vector<std::uint64_t> shift(dims);
  for (auto& s : shift) s = rng.next_u64();
  // Boost's engine starts after the origin (it yields points 1, 2, ... of the Gray-code order);
  // the balanced first 2^m points are the origin and the next 2^m - 1.
  boost::random::sobol engine(dims);
  std::vector<double> base(n * dims);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < dims; ++c) {
      const std::uint64_t x = i == 0 ? 0 : static_cast<std::uint64_t>(engine());
      base[i * dims + c] = static_cast<double>((x ^ shift[c]) >> 11) * 0x1.0p-53;
    }
  std::vector<double> unit(layout.points(n) * d);
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = &base[i * dims];
    const double* b = a + d;
    for (std::size_t block = 0; block < k; ++block) {
      double* row = &unit[layout.point(i, block) * d];
      for (std::size_t j = 0; j < d; ++j) row[j] = layout.from_b(block, j) ? b[j] : a[j];
    }
  }
  return unit;
}

}  // namespace geopipe::analysis
