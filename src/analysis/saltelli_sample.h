// The points of a Saltelli design for Sobol' indices (Saltelli 2002, 2010), in SALib's
// saltelli.sample order (the layout of analysis/saltelli_layout.h), on a randomised Sobol'
// sequence. Plain C++20 (Boost.Random's sobol engine inside); the sweep file's design = "sobol"
// (sweepfile/sobol.cpp) parses its table and calls this; docs/sweep-format.md,
// "Sampling designs" (its Sobol' indices).
//
// The base sample is the first N points of Sobol's sequence in 2D dimensions, the origin first
// (Boost.Random's sobol engine, Joe & Kuo direction numbers, 64-bit), randomised by a digital
// shift: coordinate c of every point is XORed with the c-th of 2D 64-bit words drawn from
// Rng(derive_seed(seed, "sobol digital shift")) (model/rng.h), then its top 53 bits are scaled
// to [0, 1). The shift keeps the sequence's stratification (with N a power of two, every dyadic
// box of the first N points holds the same number of them; in particular each coordinate has
// one point in each interval [m/N, (m+1)/N)) and makes every point uniform on the cube. A = the
// first D coordinates of each base point, B = the last D; the design's rows are then A_i, AB_j,
// (BA_j), B_i per sample as SaltelliLayout::from_b says.
//
// Deterministic: the same arguments give the same bits on every platform. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace geopipe::analysis {

/// Boost's direction-number table covers 3667 dimensions and the design uses 2D: at most 1833
/// factors.
inline constexpr std::size_t kMaxSaltelliFactors = 1833;

/// The unit coordinates of the design, row-major: SaltelliLayout{factors, second_order}.points(
/// samples) rows of `factors` values in [0, 1). Any samples >= 1 works; the base sample is
/// balanced only for a power of two. Throws std::invalid_argument for factors = 0 or more than
/// kMaxSaltelliFactors.
std::vector<double> saltelli_sample(std::size_t samples, std::size_t factors, bool second_order, std::uint64_t seed);

}  // namespace geopipe::analysis
