// The points of a Latin hypercube (McKay, Beckman & Conover 1979) on the unit cube: N points in
// D dimensions, each dimension cut into N strata [m/N, (m+1)/N) with exactly one point in each,
// at a uniform position inside it, the strata paired across dimensions by independent random
// permutations. Plain C++20; the sweep file's design = "lhs" (sweepfile/lhs.cpp) parses its
// table and calls this; docs/sweep-format.md, "Sampling designs"
// (its Latin hypercube).
//
// Deterministic: column j draws from its own stream Rng(derive_seed(seed, "lhs factor j"))
// (model/rng.h): a Fisher-Yates permutation of the strata (i = N down to 2: swap i - 1 with
// below(i)), then one uniform() per point in point order; u = (stratum + uniform) / N. So the
// same arguments give the same bits everywhere, and adding a dimension after the others leaves
// their columns unchanged. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace geopipe::analysis {

/// The unit coordinates, row-major: `samples` rows of `dimensions` values in [0, 1).
std::vector<double> latin_hypercube(std::size_t samples, std::size_t dimensions, std::uint64_t seed);

}  // namespace geopipe::analysis
