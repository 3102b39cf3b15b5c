// The sampling designs of the analysis library (src/analysis): the Saltelli layout's round trip,
// and the points of each generator (Latin hypercube, Saltelli on a shifted Sobol' sequence,
// Morris trajectories, one at a time) checked by their defining, hand-checkable properties and
// against the estimators that read them. The bits of the sweep designs' points are pinned by
// tests/config/test_sweep.cpp and scripts/same_results.sh; here, what makes each design what it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/latin_hypercube.h"
#include "analysis/morris_trajectories.h"
#include "analysis/one_at_a_time.h"
#include "analysis/saltelli_layout.h"
#include "analysis/saltelli_sample.h"
#include "analysis/sensitivity.h"
#include "analysis/test_functions.h"

namespace geopipe::analysis {
namespace {

/// Expects `fn` to throw std::invalid_argument whose message contains `part`.
template <class Fn>
void expect_invalid(Fn fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected std::invalid_argument with '" << part << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

/// For each column of a row-major n x d matrix of values in [0, 1): how many rows fall in each
/// of the n intervals [m/n, (m+1)/n).
std::vector<std::vector<int>> strata_counts(const std::vector<double>& unit, std::size_t n, std::size_t d,
                                            std::size_t stride_rows = 1, std::size_t first_row = 0) {
  std::vector<std::vector<int>> counts(d, std::vector<int>(n, 0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      const double u = unit[(first_row + i * stride_rows) * d + j];
      EXPECT_GE(u, 0.0);
      EXPECT_LT(u, 1.0);
      ++counts[j][static_cast<std::size_t>(u * static_cast<double>(n))];
    }
  return counts;
}

// --- the Saltelli layout ----------------------------------------------------------------------

// k = 2D + 2 with second order, D + 2 without; N k points; every point is block b of sample i
// and back; A, AB_j, BA_j and B are where SALib's saltelli.sample puts them.
TEST(SaltelliLayout, CountsAndRoundTrip) {
  for (const std::size_t d : {1u, 2u, 5u}) {
    for (const bool second : {true, false}) {
      const SaltelliLayout L{d, second};
      const std::size_t k = second ? 2 * d + 2 : d + 2;
      ASSERT_EQ(L.points_per_sample(), k);
      const std::size_t n = 8;
      ASSERT_EQ(L.points(n), n * k);
      EXPECT_EQ(L.samples(n * k), n);
      EXPECT_EQ(L.samples(n * k + 1), 0u);  // not a whole number of samples
      for (std::size_t p = 0; p < L.points(n); ++p) {
        const std::size_t i = L.sample_of(p), b = L.block_of(p);
        EXPECT_LT(b, k);
        EXPECT_EQ(L.point(i, b), p);
      }
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(L.a(i), i * k);
        EXPECT_EQ(L.b(i), i * k + k - 1);
        EXPECT_EQ(L.kind(L.block_of(L.a(i))), SaltelliLayout::Block::kA);
        EXPECT_EQ(L.kind(L.block_of(L.b(i))), SaltelliLayout::Block::kB);
        for (std::size_t j = 0; j < d; ++j) {
          EXPECT_EQ(L.ab(i, j), i * k + 1 + j);
          EXPECT_EQ(L.sample_of(L.ab(i, j)), i);
          EXPECT_EQ(L.kind(L.block_of(L.ab(i, j))), SaltelliLayout::Block::kAB);
          EXPECT_EQ(L.swapped(L.block_of(L.ab(i, j))), j);
          if (!second) continue;
          EXPECT_EQ(L.ba(i, j), i * k + 1 + d + j);
          EXPECT_EQ(L.kind(L.block_of(L.ba(i, j))), SaltelliLayout::Block::kBA);
          EXPECT_EQ(L.swapped(L.block_of(L.ba(i, j))), j);
        }
      }
      // Which matrix each column of each block comes from.
      for (std::size_t c = 0; c < d; ++c) {
        EXPECT_FALSE(L.from_b(0, c));
        EXPECT_TRUE(L.from_b(k - 1, c));
        for (std::size_t j = 0; j < d; ++j) {
          EXPECT_EQ(L.from_b(1 + j, c), c == j) << "AB_" << j;
          if (second) {
            EXPECT_EQ(L.from_b(1 + d + j, c), c != j) << "BA_" << j;
          }
        }
      }
      EXPECT_EQ(L.swapped(0), d);
      EXPECT_EQ(L.swapped(k - 1), d);
    }
  }
  static_assert(SaltelliLayout{3, true}.points(4) == 32 && SaltelliLayout{3, false}.points(4) == 20);
}

// --- Latin hypercube ---------------------------------------------------------------------------

// One point per stratum in each dimension; deterministic; the seed moves the points; a column
// does not depend on how many come after it.
TEST(LatinHypercube, OnePointPerStratumInEachDimension) {
  for (const std::size_t n : {1u, 7u, 64u, 1000u}) {
    const std::size_t d = 4;
    const std::vector<double> u = latin_hypercube(n, d, 1);
    ASSERT_EQ(u.size(), n * d);
    for (const auto& c : strata_counts(u, n, d)) EXPECT_EQ(c, std::vector<int>(n, 1)) << "n = " << n;
  }
  const std::vector<double> u = latin_hypercube(50, 3, 7);
  EXPECT_EQ(latin_hypercube(50, 3, 7), u);
  EXPECT_NE(latin_hypercube(50, 3, 8), u);
  const std::vector<double> fewer = latin_hypercube(50, 2, 7);
  for (std::size_t i = 0; i < 50; ++i)
    for (std::size_t j = 0; j < 2; ++j) EXPECT_EQ(fewer[i * 2 + j], u[i * 3 + j]);
  // The strata are paired at random: the two columns are not in the same order.
  std::size_t same = 0;
  for (std::size_t i = 0; i < 50; ++i)
    if (static_cast<std::size_t>(u[i * 3] * 50) == static_cast<std::size_t>(u[i * 3 + 1] * 50)) ++same;
  EXPECT_LT(same, 10u);
  EXPECT_TRUE(latin_hypercube(0, 3, 1).empty());
}

// --- Saltelli on a Sobol' sequence -------------------------------------------------------------

// N (D + 2) or N (2D + 2) rows; AB_j is A with column j from B, BA_j is B with column j from A;
// A and B are the balanced first N points of the sequence (one point per interval m/N of every
// coordinate); without second order the A and B rows are those of the second-order design.
TEST(SaltelliSample, BlocksOfAandBOnABalancedSequence) {
  const std::size_t n = 32;
  for (const std::size_t d : {1u, 3u, 6u}) {
    const SaltelliLayout L2{d, true}, L1{d, false};
    const std::vector<double> u2 = saltelli_sample(n, d, true, 1);
    const std::vector<double> u1 = saltelli_sample(n, d, false, 1);
    ASSERT_EQ(u2.size(), n * (2 * d + 2) * d);
    ASSERT_EQ(u1.size(), n * (d + 2) * d);
    auto at = [&](const std::vector<double>& u, std::size_t point, std::size_t c) { return u[point * d + c]; };
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < d; ++c) {
        EXPECT_EQ(at(u1, L1.a(i), c), at(u2, L2.a(i), c));
        EXPECT_EQ(at(u1, L1.b(i), c), at(u2, L2.b(i), c));
      }
      for (std::size_t j = 0; j < d; ++j)
        for (std::size_t c = 0; c < d; ++c) {
          EXPECT_EQ(at(u2, L2.ab(i, j), c), c == j ? at(u2, L2.b(i), c) : at(u2, L2.a(i), c)) << "AB_" << j << " of " << i;
          EXPECT_EQ(at(u2, L2.ba(i, j), c), c == j ? at(u2, L2.a(i), c) : at(u2, L2.b(i), c)) << "BA_" << j << " of " << i;
          EXPECT_EQ(at(u1, L1.ab(i, j), c), c == j ? at(u1, L1.b(i), c) : at(u1, L1.a(i), c)) << "AB_" << j << " of " << i;
        }
    }
    // A and B: one point per interval [m/N, (m+1)/N) of each of the 2D coordinates.
    const std::size_t k = L2.points_per_sample();
    for (const auto& c : strata_counts(u2, n, d, k, 0)) EXPECT_EQ(c, std::vector<int>(n, 1)) << "A, d = " << d;
    for (const auto& c : strata_counts(u2, n, d, k, k - 1)) EXPECT_EQ(c, std::vector<int>(n, 1)) << "B, d = " << d;
  }
  // Deterministic; another seed is another digital shift (every point moves, the balance stays).
  const std::vector<double> u = saltelli_sample(16, 2, true, 1);
  EXPECT_EQ(saltelli_sample(16, 2, true, 1), u);
  const std::vector<double> v = saltelli_sample(16, 2, true, 2);
  for (std::size_t p = 0; p < u.size(); ++p) EXPECT_NE(v[p], u[p]) << p;
  for (const auto& c : strata_counts(v, 16, 2, 6, 0)) EXPECT_EQ(c, std::vector<int>(16, 1));
  expect_invalid([] { (void)saltelli_sample(4, 0, true, 1); }, "factors = 0");
  expect_invalid([] { (void)saltelli_sample(4, kMaxSaltelliFactors + 1, false, 1); }, "1834");
}

// The generator and the estimator share the layout: Ishigami's indices come out of its design.
TEST(SaltelliSample, EstimatorRecoversIshigamiIndices) {
  TestFunction f;
  f.kind = TestFunctionKind::kIshigami;
  const std::size_t d = 3, n = 4096;
  const SaltelliLayout L{d, true};
  const std::vector<double> u = saltelli_sample(n, d, true, 1);
  std::vector<double> y(L.points(n)), x(d);
  for (std::size_t p = 0; p < y.size(); ++p) {
    for (std::size_t j = 0; j < d; ++j) x[j] = f.lower(j) + (f.upper(j) - f.lower(j)) * u[p * d + j];
    y[p] = f(x.data());
  }
  const SobolIndices s = sobol_indices(y, d, true, {0, 0.95, 1});
  const std::vector<double> s1 = f.first_order(), st = f.total_order();
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_NEAR(s.S1[j], s1[j], 0.03) << j;
    EXPECT_NEAR(s.ST[j], st[j], 0.03) << j;
  }
  EXPECT_NEAR(s.S2[0 * d + 2], st[2], 0.05);  // S13 = ST3: x3 acts only with x1
}

// --- Morris trajectories -----------------------------------------------------------------------

// r (D + 1) points on the p-level grid; each step changes exactly one coordinate, by +-Delta
// (Delta = p / (2 (p - 1))), and each coordinate once per trajectory; adding trajectories keeps
// the earlier ones; the estimator accepts the design.
TEST(MorrisTrajectories, EachStepMovesOneCoordinateByDelta) {
  for (const std::uint64_t p : {2u, 4u, 6u, 10u}) {
    const std::size_t d = 5, r = 25;
    const double delta = static_cast<double>(p) / (2.0 * static_cast<double>(p - 1));
    const std::vector<double> u = morris_trajectories(r, d, p, 3);
    ASSERT_EQ(u.size(), r * (d + 1) * d);
    for (std::size_t t = 0; t < r; ++t) {
      std::vector<int> moved(d, 0);
      for (std::size_t s = 0; s <= d; ++s) {
        const std::size_t point = t * (d + 1) + s;
        for (std::size_t j = 0; j < d; ++j) {
          const double now = u[point * d + j];
          const double level = now * static_cast<double>(p - 1);
          EXPECT_NEAR(level, std::round(level), 1e-9) << "off the grid";
          EXPECT_GE(now, 0.0);
          EXPECT_LE(now, 1.0);
        }
        if (s == 0) continue;
        std::size_t changed = 0;
        for (std::size_t j = 0; j < d; ++j) {
          const double now = u[point * d + j], before = u[(point - 1) * d + j];
          if (now == before) continue;
          ++changed;
          ++moved[j];
          EXPECT_NEAR(std::abs(now - before), delta, 1e-12) << "p = " << p << ", trajectory " << t << ", step " << s;
        }
        EXPECT_EQ(changed, 1u) << "p = " << p << ", trajectory " << t << ", step " << s;
      }
      EXPECT_EQ(moved, std::vector<int>(d, 1)) << "p = " << p << ", trajectory " << t;
    }
    const std::vector<double> more = morris_trajectories(r + 5, d, p, 3);
    EXPECT_TRUE(std::equal(u.begin(), u.end(), more.begin())) << "adding trajectories keeps the earlier ones";
    EXPECT_NE(morris_trajectories(r, d, p, 4), u);
    // A linear model: every elementary effect of x_j is its coefficient.
    std::vector<double> y(r * (d + 1));
    for (std::size_t q = 0; q < y.size(); ++q)
      for (std::size_t j = 0; j < d; ++j) y[q] += static_cast<double>(j + 1) * u[q * d + j];
    const MorrisIndices m = morris_indices(u, y, d, {0, 0.95, 1});
    for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(m.mu[j], static_cast<double>(j + 1), 1e-9);
  }
  expect_invalid([] { (void)morris_trajectories(2, 3, 5, 1); }, "levels = 5");
  expect_invalid([] { (void)morris_trajectories(2, 3, 0, 1); }, "levels = 0");
}

// --- one at a time -----------------------------------------------------------------------------

// The base (all NaN), then each factor's levels alone; grid levels k / (L - 1) from exactly 0 to
// exactly 1; a discrete factor's values at the middles (k + 1/2) / n; the estimator accepts it.
TEST(OneAtATime, BasePlusOneChangeAtATime) {
  EXPECT_EQ(oat_grid_levels(2), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(oat_grid_levels(5), (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  const std::vector<double> seven = oat_grid_levels(7);
  EXPECT_EQ(seven.front(), 0.0);
  EXPECT_EQ(seven.back(), 1.0);
  EXPECT_EQ(oat_value_levels(4), (std::vector<double>{0.125, 0.375, 0.625, 0.875}));
  EXPECT_EQ(oat_value_levels(1), (std::vector<double>{0.5}));
  expect_invalid([] { (void)oat_grid_levels(1); }, "levels = 1");

  const std::vector<std::vector<double>> levels = {oat_grid_levels(3), oat_value_levels(2), {}, {0.5}};
  const std::size_t d = levels.size();
  const std::vector<double> u = oat_points(levels);
  ASSERT_EQ(u.size(), (1u + 3u + 2u + 0u + 1u) * d);
  for (std::size_t j = 0; j < d; ++j) EXPECT_TRUE(std::isnan(u[j])) << "the base sets nothing";
  std::size_t row = 1;
  for (std::size_t j = 0; j < d; ++j)
    for (const double level : levels[j]) {
      for (std::size_t c = 0; c < d; ++c) {
        if (c == j) {
          EXPECT_EQ(u[row * d + c], level) << "row " << row;
        } else {
          EXPECT_TRUE(std::isnan(u[row * d + c])) << "row " << row << " sets factor " << c;
        }
      }
      ++row;
    }
  std::vector<double> y(row);
  for (std::size_t p = 0; p < row; ++p) y[p] = static_cast<double>(p);
  const std::vector<OatEffect> e = oat_effects(u, y, d);
  EXPECT_EQ(e[0].levels, 3u);
  EXPECT_EQ(e[1].levels, 2u);
  EXPECT_EQ(e[2].levels, 0u);
  EXPECT_EQ(e[3].levels, 1u);
  EXPECT_EQ(oat_points({}).size(), 0u);
}

}  // namespace
}  // namespace geopipe::analysis
