// The row layout of a Saltelli design (SALib's saltelli.sample order): which point of the design
// is A_i, B_i, AB_j or BA_j of sample i. Written once here and used by the generator
// (analysis/saltelli_sample.h), the estimator (analysis/sensitivity.h, sobol_indices) and the
// check of a result file's /design (report/analyze.cpp).
//
// Two independent N x D sample matrices A and B over the D factors; each sample i contributes
// k consecutive points (its blocks),
//     k = D + 2      (first and total order only), or
//     k = 2D + 2     (with second order);
// point p = i k + b is block b of sample i:
//     b = 0            A_i
//     b = 1 .. D       AB_j, j = b - 1: row A_i with column j taken from B_i
//     b = D+1 .. 2D    (second order only) BA_j, j = b - D - 1: row B_i with column j from A_i
//     b = k - 1        B_i
//
// A plain value (two fields); every member is constexpr and thread-safe. Indices are 0-based;
// arguments out of range (a block >= k, a column >= D, BA without second order) are the
// caller's error and are not checked.
#pragma once

#include <cstddef>

namespace geopipe::analysis {

struct SaltelliLayout {
  std::size_t factors = 0;   ///< D
  bool second_order = true;  ///< with the BA_j blocks (k = 2D + 2), else k = D + 2

  /// What a block holds.
  enum class Block { kA, kAB, kBA, kB };

  /// k: the points (blocks) per sample.
  constexpr std::size_t points_per_sample() const { return second_order ? 2 * factors + 2 : factors + 2; }
  /// N k: the points of a design of `samples` samples.
  constexpr std::size_t points(std::size_t samples) const { return samples * points_per_sample(); }
  /// The samples of a design of `points` points (points / k); 0 unless points is a multiple of k.
  constexpr std::size_t samples(std::size_t points) const {
    const std::size_t k = points_per_sample();
    return points % k == 0 ? points / k : 0;
  }

  /// The sample (i) and the block (b) of point p.
  constexpr std::size_t sample_of(std::size_t point) const { return point / points_per_sample(); }
  constexpr std::size_t block_of(std::size_t point) const { return point % points_per_sample(); }
  /// The point of block b of sample i: i k + b.
  constexpr std::size_t point(std::size_t sample, std::size_t block) const {
    return sample * points_per_sample() + block;
  }

  /// The points A_i, B_i, AB_j and BA_j of sample i.
  constexpr std::size_t a(std::size_t sample) const { return point(sample, 0); }
  constexpr std::size_t b(std::size_t sample) const { return point(sample, points_per_sample() - 1); }
  constexpr std::size_t ab(std::size_t sample, std::size_t j) const { return point(sample, 1 + j); }
  constexpr std::size_t ba(std::size_t sample, std::size_t j) const { return point(sample, 1 + factors + j); }

  /// What block b holds, and the column it swaps (j of AB_j or BA_j; D for A and B, which swap none).
  constexpr Block kind(std::size_t block) const {
    if (block == 0) return Block::kA;
    if (block + 1 == points_per_sample()) return Block::kB;
    return block <= factors ? Block::kAB : Block::kBA;
  }
  constexpr std::size_t swapped(std::size_t block) const {
    switch (kind(block)) {
      case Block::kAB: return block - 1;
      case Block::kBA: return block - 1 - factors;
      default: return factors;
    }
  }

  /// Whether column c of block b comes from B_i (else from A_i): A none, B every column, AB_j
  /// column j only, BA_j every column but j. The one rule the generator writes and the check of
  /// a /design reads.
  constexpr bool from_b(std::size_t block, std::size_t column) const {
    switch (kind(block)) {
      case Block::kA: return false;
      case Block::kB: return true;
      case Block::kAB: return column == block - 1;
      case Block::kBA: return column != block - 1 - factors;
    }
    return false;
  }
};

}  // namespace geopipe::analysis
