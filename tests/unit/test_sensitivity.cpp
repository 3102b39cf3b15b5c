// The analysis library (src/analysis): analytic test functions against their closed forms and
// brute-force quadrature; Sobol', Morris and OAT estimators against closed forms, an
// independent reference implementation of SALib's formulas, and bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/random/sobol.hpp>

#include "analysis/sensitivity.h"
#include "analysis/test_functions.h"
#include "model/rng.h"

namespace geopipe::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TestFunction ishigami(double a = 7.0, double b = 0.1) {
  TestFunction f;
  f.kind = TestFunctionKind::kIshigami;
  f.a = a;
  f.b = b;
  return f;
}

TestFunction sobol_g(std::vector<double> coefficients) {
  TestFunction f;
  f.kind = TestFunctionKind::kSobolG;
  f.g_coefficients = std::move(coefficients);
  return f;
}

/// Expects `fn` to throw std::invalid_argument whose message contains every one of `parts`.
template <class Fn>
void expect_invalid(Fn fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

// --- brute-force quadrature of Sobol' indices (3 inputs) -----------------------------------

struct Brute {
  double variance = 0;
  std::vector<double> S1, ST;
};

/// Composite Simpson weights for n intervals (n divisible by 4, so that the midpoint of the
/// domain, the G-function's kink, is a panel boundary), normalised to sum to 1 (the uniform
/// density).
std::vector<double> simpson_weights(int n) {
  std::vector<double> w(static_cast<std::size_t>(n + 1));
  for (int i = 0; i <= n; ++i) w[static_cast<std::size_t>(i)] = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
  for (auto& v : w) v /= 3.0 * n;
  return w;
}

/// Variance, S1 and ST of a 3-input function by tensor-grid quadrature of the conditional
/// expectations: V_i = Var E[f | x_i], ST_i = 1 - Var E[f | x_~i] / Var f. Independent of the
/// closed forms.
Brute brute_force_indices(const TestFunction& f, int n) {
  EXPECT_EQ(f.dimension(), 3u);
  const std::size_t m = static_cast<std::size_t>(n + 1);
  const std::vector<double> w = simpson_weights(n);
  std::vector<double> node[3];
  for (std::size_t d = 0; d < 3; ++d)
    for (std::size_t i = 0; i < m; ++i)
      node[d].push_back(f.lower(d) + (f.upper(d) - f.lower(d)) * static_cast<double>(i) / n);
  std::vector<double> v(m * m * m);
  auto at = [&](std::size_t i, std::size_t j, std::size_t l) -> double& { return v[(i * m + j) * m + l]; };
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t l = 0; l < m; ++l) {
        const double x[3] = {node[0][i], node[1][j], node[2][l]};
        at(i, j, l) = f(x);
      }
  double mean = 0, mean2 = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t l = 0; l < m; ++l) {
        const double ww = w[i] * w[j] * w[l];
        mean += ww * at(i, j, l);
        mean2 += ww * at(i, j, l) * at(i, j, l);
      }
  Brute out;
  out.variance = mean2 - mean * mean;
  for (std::size_t d = 0; d < 3; ++d) {
    // Index of coordinate d in (i, j, l) given the node of d (u) and of the two others (p, q).
    auto value = [&](std::size_t u, std::size_t p, std::size_t q) {
      return d == 0 ? at(u, p, q) : d == 1 ? at(p, u, q) : at(p, q, u);
    };
    double vi = 0;  // Var E[f | x_d]
    for (std::size_t u = 0; u < m; ++u) {
      double c = 0;
      for (std::size_t p = 0; p < m; ++p)
        for (std::size_t q = 0; q < m; ++q) c += w[p] * w[q] * value(u, p, q);
      vi += w[u] * c * c;
    }
    vi -= mean * mean;
    double vni = 0;  // Var E[f | x_~d]
    for (std::size_t p = 0; p < m; ++p)
      for (std::size_t q = 0; q < m; ++q) {
        double c = 0;
        for (std::size_t u = 0; u < m; ++u) c += w[u] * value(u, p, q);
        vni += w[p] * w[q] * c * c;
      }
    vni -= mean * mean;
    out.S1.push_back(vi / out.variance);
    out.ST.push_back(1.0 - vni / out.variance);
  }
  return out;
}

// --- test functions ------------------------------------------------------------------------

TEST(TestFunctions, IshigamiClassicValues) {
  const TestFunction f = ishigami();
  ASSERT_EQ(f.dimension(), 3u);
  const std::vector<double> s1 = f.first_order(), st = f.total_order();
  const double e1[] = {0.3139, 0.4424, 0.0}, et[] = {0.5576, 0.4424, 0.2437};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(s1[i], e1[i], 5e-5) << i;
    EXPECT_NEAR(st[i], et[i], 5e-5) << i;
  }
  EXPECT_NEAR(f.variance(), 13.8446, 5e-5);
  EXPECT_DOUBLE_EQ(f.lower(0), -std::numbers::pi);
  EXPECT_DOUBLE_EQ(f.upper(2), std::numbers::pi);
  const double x[3] = {std::numbers::pi / 2, std::numbers::pi / 2, 2.0};
  EXPECT_DOUBLE_EQ(f(x), 1.0 + 7.0 + 0.1 * 16.0);
}

TEST(TestFunctions, IshigamiMatchesQuadrature) {
  for (const auto& [a, b] : {std::pair{7.0, 0.1}, std::pair{5.0, 0.3}, std::pair{0.0, 0.0}}) {
    const TestFunction f = ishigami(a, b);
    const Brute q = brute_force_indices(f, 120);
    EXPECT_NEAR(f.variance(), q.variance, 1e-5 * q.variance) << a << " " << b;
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(f.first_order()[i], q.S1[i], 1e-5) << a << " " << b << " x" << i + 1;
      EXPECT_NEAR(f.total_order()[i], q.ST[i], 1e-5) << a << " " << b << " x" << i + 1;
    }
  }
}

TEST(TestFunctions, SobolGMatchesQuadrature) {
  // Simpson with the kink x = 0.5 on a panel boundary is exact for the G-function (piecewise
  // quadratic squares, separable products), so the match is to rounding.
  for (const auto& coef : {std::vector<double>{0, 1, 4.5}, std::vector<double>{0.5, 2, 99}}) {
    const TestFunction f = sobol_g(coef);
    const Brute q = brute_force_indices(f, 40);
    EXPECT_NEAR(f.variance(), q.variance, 1e-12);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(f.first_order()[i], q.S1[i], 1e-10) << i;
      EXPECT_NEAR(f.total_order()[i], q.ST[i], 1e-10) << i;
    }
  }
}

TEST(TestFunctions, SobolGDefaultsMatchOneDimensionalIntegrals) {
  // E f^2 = prod E g_i^2 (independent inputs), each E g_i^2 by 1-D Simpson of the function
  // itself (a one-input G): Var = prod E g^2 - 1, V_i = E g_i^2 - 1,
  // ST_i = (Var - (prod_{j != i} E g_j^2 - 1)) / Var.
  const std::vector<double> coef = default_g_coefficients();
  ASSERT_EQ(coef, (std::vector<double>{0, 1, 4.5, 9, 99, 99, 99, 99}));
  const TestFunction f = sobol_g(coef);
  ASSERT_EQ(f.dimension(), 8u);
  const int n = 64;
  const std::vector<double> w = simpson_weights(n);
  std::vector<double> eg2;
  for (double a : coef) {
    const TestFunction g1 = sobol_g({a});
    double s = 0, mean = 0;
    for (int i = 0; i <= n; ++i) {
      const double x = static_cast<double>(i) / n;
      const double v = g1(&x);
      s += w[static_cast<std::size_t>(i)] * v * v;
      mean += w[static_cast<std::size_t>(i)] * v;
    }
    EXPECT_NEAR(mean, 1.0, 1e-13);
    eg2.push_back(s);
  }
  double prod = 1;
  for (double e : eg2) prod *= e;
  const double var = prod - 1;
  EXPECT_NEAR(f.variance(), var, 1e-12);
  for (std::size_t i = 0; i < coef.size(); ++i) {
    EXPECT_NEAR(f.first_order()[i], (eg2[i] - 1) / var, 1e-12) << i;
    EXPECT_NEAR(f.total_order()[i], (var - (prod / eg2[i] - 1)) / var, 1e-12) << i;
  }
  EXPECT_NEAR(f.first_order()[0], (1.0 / 3) / var, 1e-13);  // V_1 = 1/3 for a = 0
  // The documented ranking: a ascending -> importance descending.
  for (std::size_t i = 0; i + 1 < 4; ++i) EXPECT_GT(f.first_order()[i], f.first_order()[i + 1]);
}

TEST(TestFunctions, SobolGOneAndTwoInputs) {
  const TestFunction one = sobol_g({2.5});
  EXPECT_NEAR(one.first_order()[0], 1.0, 1e-15);
  EXPECT_NEAR(one.total_order()[0], 1.0, 1e-15);
  EXPECT_NEAR(one.variance(), 1.0 / (3 * 3.5 * 3.5), 1e-15);
  // Two inputs: S1 + S1 + S12 = 1 with V12 = V1 V2; ST_i = S1_i + S12.
  const TestFunction two = sobol_g({0, 1});
  const double v1 = 1.0 / 3, v2 = 1.0 / 12, var = (1 + v1) * (1 + v2) - 1;
  EXPECT_NEAR(two.variance(), var, 1e-15);
  const double s12 = v1 * v2 / var;
  const auto s1 = two.first_order(), st = two.total_order();
  EXPECT_NEAR(s1[0] + s1[1] + s12, 1.0, 1e-15);
  EXPECT_NEAR(st[0], s1[0] + s12, 1e-15);
  EXPECT_NEAR(st[1], s1[1] + s12, 1e-15);
}

TEST(TestFunctions, NamesAndErrors) {
  EXPECT_EQ(test_function_names(), (std::vector<std::string>{"ishigami", "sobol-g"}));
  for (const auto& name : test_function_names()) {
    const auto kind = test_function_kind(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(test_function_name(*kind), name);
  }
  EXPECT_FALSE(test_function_kind("Ishigami").has_value());
  EXPECT_FALSE(test_function_kind("").has_value());
  EXPECT_THROW((void)ishigami().lower(3), std::out_of_range);
  EXPECT_THROW((void)sobol_g({1, 2}).upper(2), std::out_of_range);
  expect_invalid([] { (void)sobol_g({}).variance(); }, {"sobol-g", "empty"});
  expect_invalid([] { (void)sobol_g({1, -0.5}).first_order(); }, {"g_coefficients[1]"});
  expect_invalid([] { (void)ishigami(kNaN, 0.1).total_order(); }, {"ishigami"});
}

// --- Sobol' estimator ----------------------------------------------------------------------

/// The Saltelli design of the header (SALib's saltelli.sample order) for `f` from a 2D-dimensional
/// Sobol' sequence (Boost): A = its first D coordinates, B = the last D, mapped to the domain.
std::vector<double> saltelli_outputs(const TestFunction& f, std::size_t n, bool second) {
  const std::size_t d = f.dimension();
  const std::size_t k = second ? 2 * d + 2 : d + 2;
  boost::random::sobol qrng(static_cast<unsigned>(2 * d));
  std::vector<double> y(n * k), a(d), b(d), x(d);
  auto scale = [&](std::size_t j, std::uint64_t v) {
    const double u = std::ldexp(static_cast<double>(v), -64);
    return f.lower(j) + (f.upper(j) - f.lower(j)) * u;
  };
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) a[j] = scale(j, qrng());
    for (std::size_t j = 0; j < d; ++j) b[j] = scale(j, qrng());
    y[i * k] = f(a.data());
    y[i * k + k - 1] = f(b.data());
    for (std::size_t j = 0; j < d; ++j) {
      x = a;
      x[j] = b[j];
      y[i * k + 1 + j] = f(x.data());
      if (second) {
        x = b;
        x[j] = a[j];
        y[i * k + 1 + d + j] = f(x.data());
      }
    }
  }
  return y;
}

/// Expects `truth` in [est - conf, est + conf] and conf < max_conf.
void expect_covered(double truth, double est, double conf, double max_conf, const std::string& what) {
  EXPECT_LE(std::abs(est - truth), conf) << what << ": est " << est << " truth " << truth << " conf " << conf;
  EXPECT_LT(conf, max_conf) << what;
}

TEST(Sobol, HandComputedTinyCase) {
  // D = 1, N = 2, point order A, AB, B. Mean of all y = 25/6; centred B = (-7/6, 17/6),
  // AB - A = (2, 1): S1 = mean(B (AB - A)) / V = (-14/6 + 17/6) / 2 / 5 = 0.05 (uncentred it would
  // be 1.3). V = population variance of {1, 5, 3, 7} = 5; ST = 0.5 * mean((2, 1)^2) / 5 = 0.25.
  const SobolIndices s = sobol_indices({1, 3, 3, 5, 6, 7}, 1, false, {0, 0.95, 1});
  EXPECT_EQ(s.factors, 1u);
  EXPECT_EQ(s.samples, 2u);
  EXPECT_NEAR(s.variance, 5.0, 1e-12);
  EXPECT_NEAR(s.S1[0], 0.05, 1e-12);
  EXPECT_NEAR(s.ST[0], 0.25, 1e-12);
  EXPECT_TRUE(s.S2.empty());
  EXPECT_TRUE(s.S2_conf.empty());
}

/// SALib's sobol.analyze written out plainly (separate_output_values, first_order, total_order,
/// second_order) over the samples `idx` (a bootstrap draw; all samples if empty). Returns
/// S1[D], ST[D], S2[pairs] (j < k row-major).
std::vector<double> reference_sobol(const std::vector<double>& y_raw, std::size_t d, bool second,
                                    const std::vector<std::size_t>& idx_in = {}) {
  const std::size_t k = second ? 2 * d + 2 : d + 2, n = y_raw.size() / k;
  double mean = 0;
  for (double v : y_raw) mean += v;
  mean /= static_cast<double>(y_raw.size());
  std::vector<double> y = y_raw;
  for (auto& v : y) v -= mean;
  std::vector<std::size_t> idx = idx_in;
  if (idx.empty())
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
  auto A = [&](std::size_t i) { return y[idx[i] * k]; };
  auto B = [&](std::size_t i) { return y[idx[i] * k + k - 1]; };
  auto AB = [&](std::size_t i, std::size_t j) { return y[idx[i] * k + 1 + j]; };
  auto BA = [&](std::size_t i, std::size_t j) { return y[idx[i] * k + 1 + d + j]; };
  const double nn = static_cast<double>(idx.size());
  double m = 0;
  for (std::size_t i = 0; i < idx.size(); ++i) m += A(i) + B(i);
  m /= 2 * nn;
  double var = 0;
  for (std::size_t i = 0; i < idx.size(); ++i) var += (A(i) - m) * (A(i) - m) + (B(i) - m) * (B(i) - m);
  var /= 2 * nn;
  std::vector<double> out(2 * d);
  for (std::size_t j = 0; j < d; ++j) {
    double s1 = 0, st = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      s1 += B(i) * (AB(i, j) - A(i));
      st += (A(i) - AB(i, j)) * (A(i) - AB(i, j));
    }
    out[j] = s1 / nn / var;
    out[d + j] = 0.5 * st / nn / var;
  }
  if (second)
    for (std::size_t j = 0; j < d; ++j)
      for (std::size_t q = j + 1; q < d; ++q) {
        double v = 0;
        for (std::size_t i = 0; i < idx.size(); ++i) v += BA(i, j) * AB(i, q) - A(i) * B(i);
        out.push_back(v / nn / var - out[j] - out[q]);
      }
  return out;
}

double sd_ddof1(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

TEST(Sobol, MatchesReferenceImplementationAndBootstrapContract) {
  // Random outputs (no model: the formulas must hold for any y), both layouts. The bootstrap is
  // replayed from the documented stream: Rng(derive_seed(seed, "bootstrap")), N draws of
  // below(N) per resample, conf = z_{0.975} * sd(ddof = 1).
  const std::size_t d = 3, n = 40, resamples = 25;
  for (bool second : {false, true}) {
    const std::size_t k = second ? 2 * d + 2 : d + 2;
    Rng gen(second ? 11 : 12);
    std::vector<double> y(n * k);
    for (auto& v : y) v = 10.0 + gen.uniform() * gen.uniform() * 5.0;
    const BootstrapOptions opt{resamples, 0.95, 77};
    const SobolIndices s = sobol_indices(y, d, second, opt);
    const std::vector<double> ref = reference_sobol(y, d, second);
    for (std::size_t j = 0; j < d; ++j) {
      EXPECT_NEAR(s.S1[j], ref[j], 1e-11) << j;
      EXPECT_NEAR(s.ST[j], ref[d + j], 1e-11) << j;
    }
    Rng rng(derive_seed(77, "bootstrap"));
    std::vector<std::vector<double>> boot(ref.size());
    for (std::size_t r = 0; r < resamples; ++r) {
      std::vector<std::size_t> idx(n);
      for (auto& i : idx) i = static_cast<std::size_t>(rng.below(n));
      const std::vector<double> e = reference_sobol(y, d, second, idx);
      for (std::size_t q = 0; q < e.size(); ++q) boot[q].push_back(e[q]);
    }
    const double z = 1.959963984540054;
    for (std::size_t j = 0; j < d; ++j) {
      EXPECT_NEAR(s.S1_conf[j], z * sd_ddof1(boot[j]), 1e-10) << j;
      EXPECT_NEAR(s.ST_conf[j], z * sd_ddof1(boot[d + j]), 1e-10) << j;
    }
    if (second) {
      ASSERT_EQ(s.S2.size(), d * d);
      std::size_t p = 2 * d;
      for (std::size_t j = 0; j < d; ++j)
        for (std::size_t q = 0; q < d; ++q) {
          if (q <= j) {
            EXPECT_TRUE(std::isnan(s.S2[j * d + q])) << j << q;
            EXPECT_TRUE(std::isnan(s.S2_conf[j * d + q])) << j << q;
            continue;
          }
          EXPECT_NEAR(s.S2[j * d + q], ref[p], 1e-11) << j << q;
          EXPECT_NEAR(s.S2_conf[j * d + q], z * sd_ddof1(boot[p]), 1e-10) << j << q;
          ++p;
        }
    }
  }
}

TEST(Sobol, LinearModelWithinCI) {
  // y = sum c_j x_j, x_j ~ U[0, 1]: S1_j = ST_j = c_j^2 / sum c^2, S2 = 0, Var = sum c^2 / 12.
  // The design is built here as in saltelli_outputs (A = first D Sobol' coordinates, B = last D).
  const std::vector<double> c = {1.0, -2.0, 3.0, 0.5};
  const std::size_t d = c.size(), n = 4096;
  double c2 = 0;
  for (double v : c) c2 += v * v;
  for (bool second : {false, true}) {
    const std::size_t k = second ? 2 * d + 2 : d + 2;
    boost::random::sobol qrng(static_cast<unsigned>(2 * d));
    std::vector<double> y(n * k), a(d), b(d);
    auto lin = [&](const std::vector<double>& x) {
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) s += c[j] * x[j];
      return s;
    };
    for (std::size_t i = 0; i < n; ++i) {
      for (auto& v : a) v = std::ldexp(static_cast<double>(qrng()), -64);
      for (auto& v : b) v = std::ldexp(static_cast<double>(qrng()), -64);
      y[i * k] = lin(a);
      y[i * k + k - 1] = lin(b);
      for (std::size_t j = 0; j < d; ++j) {
        std::vector<double> x = a;
        x[j] = b[j];
        y[i * k + 1 + j] = lin(x);
        if (second) {
          x = b;
          x[j] = a[j];
          y[i * k + 1 + d + j] = lin(x);
        }
      }
    }
    const SobolIndices s = sobol_indices(y, d, second, {});
    EXPECT_NEAR(s.variance, c2 / 12.0, 0.01 * c2 / 12.0);
    for (std::size_t j = 0; j < d; ++j) {
      const double truth = c[j] * c[j] / c2;
      EXPECT_LT(std::abs(s.S1[j] - truth), 0.02) << j;
      EXPECT_LT(std::abs(s.ST[j] - truth), 0.02) << j;
      expect_covered(truth, s.S1[j], s.S1_conf[j], 0.05, "S1_" + std::to_string(j));
      expect_covered(truth, s.ST[j], s.ST_conf[j], 0.05, "ST_" + std::to_string(j));
      if (second)
        for (std::size_t q = j + 1; q < d; ++q) {
          EXPECT_LT(std::abs(s.S2[j * d + q]), 0.02) << j << q;
          expect_covered(0.0, s.S2[j * d + q], s.S2_conf[j * d + q], 0.05, "S2_" + std::to_string(j) + std::to_string(q));
        }
    }
  }
}

TEST(Sobol, IshigamiWithinCI) {
  const TestFunction f = ishigami();
  const SobolIndices s = sobol_indices(saltelli_outputs(f, 4096, false), 3, false, {});
  const auto s1 = f.first_order(), st = f.total_order();
  EXPECT_NEAR(s.variance, f.variance(), 0.02 * f.variance());
  for (std::size_t j = 0; j < 3; ++j) {
    expect_covered(s1[j], s.S1[j], s.S1_conf[j], 0.05, "S1_" + std::to_string(j));
    expect_covered(st[j], s.ST[j], s.ST_conf[j], 0.05, "ST_" + std::to_string(j));
  }
}

TEST(Sobol, IshigamiSecondOrder) {
  // The only interaction is x1-x3: S13 = V13 / V = 0.2437; S12 = S23 = 0.
  const TestFunction f = ishigami();
  const SobolIndices s = sobol_indices(saltelli_outputs(f, 4096, true), 3, true, {});
  const double s13 = f.total_order()[2];
  EXPECT_NEAR(s13, 0.2437, 5e-5);
  expect_covered(s13, s.S2[0 * 3 + 2], s.S2_conf[0 * 3 + 2], 0.1, "S13");
  expect_covered(0.0, s.S2[0 * 3 + 1], s.S2_conf[0 * 3 + 1], 0.1, "S12");
  expect_covered(0.0, s.S2[1 * 3 + 2], s.S2_conf[1 * 3 + 2], 0.1, "S23");
  // First and total order from the second-order design too.
  for (std::size_t j = 0; j < 3; ++j) {
    expect_covered(f.first_order()[j], s.S1[j], s.S1_conf[j], 0.05, "S1_" + std::to_string(j));
    expect_covered(f.total_order()[j], s.ST[j], s.ST_conf[j], 0.05, "ST_" + std::to_string(j));
  }
}

TEST(Sobol, SobolGWithinCI) {
  const TestFunction f = sobol_g(default_g_coefficients());
  const SobolIndices s = sobol_indices(saltelli_outputs(f, 4096, false), f.dimension(), false, {});
  const auto s1 = f.first_order(), st = f.total_order();
  for (std::size_t j = 0; j < f.dimension(); ++j) {
    expect_covered(s1[j], s.S1[j], s.S1_conf[j], 0.05, "S1_" + std::to_string(j));
    expect_covered(st[j], s.ST[j], s.ST_conf[j], 0.05, "ST_" + std::to_string(j));
  }
  // The ranking of the four important inputs is recovered.
  for (std::size_t j = 0; j + 1 < 4; ++j) EXPECT_GT(s.ST[j], s.ST[j + 1]) << j;
}

TEST(Sobol, BootstrapDeterminism) {
  const TestFunction f = ishigami();
  const std::vector<double> y = saltelli_outputs(f, 512, true);
  const BootstrapOptions a{200, 0.95, 5}, b{200, 0.95, 6};
  const SobolIndices s1 = sobol_indices(y, 3, true, a), s2 = sobol_indices(y, 3, true, a);
  const SobolIndices s3 = sobol_indices(y, 3, true, b);
  EXPECT_EQ(s1.S1_conf, s2.S1_conf);  // bit-identical
  EXPECT_EQ(s1.ST_conf, s2.ST_conf);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_NE(s1.S1_conf[j], s3.S1_conf[j]) << j;
    EXPECT_NE(s1.ST_conf[j], s3.ST_conf[j]) << j;
    // Point estimates do not depend on the bootstrap.
    EXPECT_EQ(s1.S1[j], s3.S1[j]);
    EXPECT_EQ(s1.ST[j], s3.ST[j]);
  }
  EXPECT_NE(s1.S2_conf[2], s3.S2_conf[2]);
  // The level scales the CI by the normal quantile.
  const SobolIndices s99 = sobol_indices(y, 3, true, {200, 0.99, 5});
  EXPECT_NEAR(s99.S1_conf[0] / s1.S1_conf[0], 2.5758293035489 / 1.959963984540054, 1e-12);
  // No resamples (or one): NaN CIs, same estimates.
  for (std::size_t r : {0u, 1u}) {
    const SobolIndices s0 = sobol_indices(y, 3, true, {r, 0.95, 5});
    EXPECT_EQ(s0.S1, s1.S1);
    EXPECT_EQ(s0.S2[1], s1.S2[1]);
    for (std::size_t j = 0; j < 3; ++j) {
      EXPECT_TRUE(std::isnan(s0.S1_conf[j])) << r;
      EXPECT_TRUE(std::isnan(s0.ST_conf[j])) << r;
    }
    EXPECT_TRUE(std::isnan(s0.S2_conf[1]));
  }
}

TEST(Sobol, ConstantOutputGivesZeroIndices) {
  const SobolIndices s = sobol_indices(std::vector<double>(5 * 4, 3.0), 2, false, {50, 0.95, 1});
  EXPECT_EQ(s.variance, 0.0);
  EXPECT_EQ(s.S1, (std::vector<double>{0, 0}));
  EXPECT_EQ(s.ST, (std::vector<double>{0, 0}));
  EXPECT_EQ(s.S1_conf, (std::vector<double>{0, 0}));
}

TEST(Sobol, BadInputs) {
  // k = D + 2 = 5 without, 2D + 2 = 8 with second order.
  expect_invalid([] { sobol_indices(std::vector<double>(14, 1.0), 3, false); }, {"14", "multiple of 5"});
  expect_invalid([] { sobol_indices(std::vector<double>(10, 1.0), 3, true); }, {"10", "multiple of 8"});
  expect_invalid([] { sobol_indices(std::vector<double>(5, 1.0), 3, false); }, {"at least 2"});
  expect_invalid([] { sobol_indices({}, 3, false); }, {"at least 2"});
  expect_invalid([] { sobol_indices(std::vector<double>(10, 1.0), 0, false); }, {"factors = 0"});
  std::vector<double> y(15, 1.0);
  y[12] = kNaN;  // sample 2, block 2 (AB_1)
  expect_invalid([&] { sobol_indices(y, 3, false); }, {"y[12]", "sample 2", "block 2", "not finite"});
  y[12] = std::numeric_limits<double>::infinity();
  expect_invalid([&] { sobol_indices(y, 3, false); }, {"y[12]"});
  y[12] = 1.0;
  expect_invalid([&] { sobol_indices(y, 3, false, {10, 1.0, 1}); }, {"confidence"});
  expect_invalid([&] { sobol_indices(y, 3, false, {10, 0.0, 1}); }, {"confidence"});
}

// --- Morris --------------------------------------------------------------------------------

struct MorrisDesign {
  std::vector<double> unit;  // row-major points x factors
  std::vector<std::vector<std::size_t>> order;  // the factor changed at each step, per trajectory
};

/// Deterministic Morris trajectories on a p-level grid {0, 1/(p-1), ..., 1} (p even) with the
/// standard step delta = p / (2 (p - 1)): a random grid start, the factors in a random order,
/// each moving up by delta if that stays in [0, 1], else down.
MorrisDesign morris_design(std::size_t d, std::size_t r, std::size_t p, std::uint64_t seed) {
  MorrisDesign m;
  Rng rng(seed);
  const double step = 1.0 / static_cast<double>(p - 1);
  const std::size_t jump = p / 2;  // grid steps per move
  for (std::size_t t = 0; t < r; ++t) {
    std::vector<std::size_t> level(d), perm(d);
    for (auto& l : level) l = static_cast<std::size_t>(rng.below(p));
    for (std::size_t j = 0; j < d; ++j) perm[j] = j;
    for (std::size_t j = d; j > 1; --j) std::swap(perm[j - 1], perm[static_cast<std::size_t>(rng.below(j))]);
    auto emit = [&] {
      for (std::size_t j = 0; j < d; ++j) m.unit.push_back(static_cast<double>(level[j]) * step);
    };
    emit();
    for (std::size_t j : perm) {
      level[j] = level[j] + jump <= p - 1 ? level[j] + jump : level[j] - jump;
      emit();
    }
    m.order.push_back(perm);
  }
  return m;
}

std::vector<double> evaluate(const MorrisDesign& m, std::size_t d, auto&& f) {
  std::vector<double> y;
  for (std::size_t p = 0; p * d < m.unit.size(); ++p) y.push_back(f(m.unit.data() + p * d));
  return y;
}

TEST(Morris, LinearModelExact) {
  // EE of a linear model is its coefficient whatever the step (up or down): mu = c,
  // mu_star = |c|, sigma = 0 (to rounding).
  const std::vector<double> c = {2.0, -3.0, 0.0, 0.25, 10.0};
  const std::size_t d = c.size(), r = 12;
  const MorrisDesign m = morris_design(d, r, 4, 99);
  const std::vector<double> y = evaluate(m, d, [&](const double* u) {
    double s = 1.0;
    for (std::size_t j = 0; j < d; ++j) s += c[j] * u[j];
    return s;
  });
  const MorrisIndices mi = morris_indices(m.unit, y, d, {100, 0.95, 3});
  EXPECT_EQ(mi.factors, d);
  EXPECT_EQ(mi.trajectories, r);
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_NEAR(mi.mu[j], c[j], 1e-12) << j;
    EXPECT_NEAR(mi.mu_star[j], std::abs(c[j]), 1e-12) << j;
    EXPECT_NEAR(mi.sigma[j], 0.0, 1e-12) << j;
    EXPECT_NEAR(mi.mu_star_conf[j], 0.0, 1e-12) << j;
  }
}

TEST(Morris, SobolGRanking) {
  // a ascending -> mu_star descending for the four important inputs; the a = 99 inputs last.
  const TestFunction g = sobol_g(default_g_coefficients());
  const std::size_t d = g.dimension(), r = 40;
  const MorrisDesign m = morris_design(d, r, 4, 2024);
  const MorrisIndices mi = morris_indices(m.unit, evaluate(m, d, [&](const double* u) { return g(u); }), d, {});
  for (std::size_t j = 0; j + 1 < 4; ++j) EXPECT_GT(mi.mu_star[j], mi.mu_star[j + 1]) << j;
  for (std::size_t j = 4; j < d; ++j) {
    EXPECT_GT(mi.mu_star[3], mi.mu_star[j]) << j;
    EXPECT_LT(mi.mu_star[j], 0.05 * mi.mu_star[0]) << j;
  }
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_GE(mi.mu_star[j], std::abs(mi.mu[j])) << j;
    EXPECT_GT(mi.mu_star_conf[j], 0.0) << j;
    EXPECT_LT(mi.mu_star_conf[j], 0.5 * mi.mu_star[j]) << j;
  }
}

TEST(Morris, BootstrapContractAndDeterminism) {
  // Hand-made EEs: one factor, r = 6 trajectories of 2 points, EE = y1 - y0 for a step 0 -> 1.
  const std::vector<double> ee = {1, -2, 3, 0.5, -4, 2};
  std::vector<double> unit, y;
  for (double e : ee) {
    unit.insert(unit.end(), {0.0, 1.0});
    y.insert(y.end(), {5.0, 5.0 + e});
  }
  const std::size_t resamples = 40;
  const MorrisIndices mi = morris_indices(unit, y, 1, {resamples, 0.95, 9});
  EXPECT_DOUBLE_EQ(mi.mu[0], 0.5 / 6 * 1.0);
  EXPECT_DOUBLE_EQ(mi.mu_star[0], 12.5 / 6);
  EXPECT_NEAR(mi.sigma[0], sd_ddof1(ee), 1e-12);
  Rng rng(derive_seed(9, "bootstrap"));
  std::vector<double> boot;
  for (std::size_t b = 0; b < resamples; ++b) {
    double s = 0;
    for (std::size_t i = 0; i < ee.size(); ++i) s += std::abs(ee[static_cast<std::size_t>(rng.below(ee.size()))]);
    boot.push_back(s / static_cast<double>(ee.size()));
  }
  EXPECT_NEAR(mi.mu_star_conf[0], 1.959963984540054 * sd_ddof1(boot), 1e-12);
  EXPECT_EQ(morris_indices(unit, y, 1, {resamples, 0.95, 9}).mu_star_conf, mi.mu_star_conf);
  EXPECT_NE(morris_indices(unit, y, 1, {resamples, 0.95, 10}).mu_star_conf, mi.mu_star_conf);
  EXPECT_TRUE(std::isnan(morris_indices(unit, y, 1, {0, 0.95, 9}).mu_star_conf[0]));
  // One trajectory: sigma (ddof = 1) and the CI are NaN.
  const MorrisIndices one = morris_indices({0.0, 1.0}, {5.0, 6.0}, 1, {});
  EXPECT_DOUBLE_EQ(one.mu[0], 1.0);
  EXPECT_TRUE(std::isnan(one.sigma[0]));
  EXPECT_TRUE(std::isnan(one.mu_star_conf[0]));
}

TEST(Morris, BadInputs) {
  const std::size_t d = 3;
  const MorrisDesign m = morris_design(d, 4, 4, 1);
  const std::vector<double> y(4 * (d + 1), 1.0);
  ASSERT_NO_THROW(morris_indices(m.unit, y, d));
  // Sizes.
  expect_invalid([&] { morris_indices(m.unit, std::vector<double>(15, 1.0), d); }, {"15", "r * 4"});
  expect_invalid([&] { morris_indices(m.unit, {}, d); }, {"y has 0"});
  expect_invalid([&] { morris_indices(std::vector<double>(m.unit.begin(), m.unit.end() - 1), y, d); },
                 {"unit has 47", "48"});
  expect_invalid([&] { morris_indices(m.unit, y, 0); }, {"factors = 0"});
  // Non-finite values.
  std::vector<double> bad_y = y;
  bad_y[6] = kNaN;
  expect_invalid([&] { morris_indices(m.unit, bad_y, d); }, {"y[6]", "trajectory 1", "not finite"});
  std::vector<double> bad_u = m.unit;
  bad_u[7 * d + 2] = kNaN;
  expect_invalid([&] { morris_indices(bad_u, y, d); }, {"point 7", "factor 2", "not finite"});
  // Trajectory 2, step 1 (points 9 -> 10) changes two factors: move another factor in point 10.
  std::vector<double> two = m.unit;
  const std::size_t moved = m.order[2][1], other = m.order[2][2];
  two[10 * d + other] = two[9 * d + other] == 0.0 ? 1.0 / 3 : 0.0;
  ASSERT_NE(moved, other);
  expect_invalid([&] { morris_indices(two, y, d); },
                 {"trajectory 2, step 1", "points 9 -> 10", "changes 2 factors"});
  // A step that changes nothing: point 5 = point 4 (trajectory 1, step 0).
  std::vector<double> none = m.unit;
  std::copy(none.begin() + 4 * d, none.begin() + 5 * d, none.begin() + 5 * d);
  expect_invalid([&] { morris_indices(none, y, d); }, {"trajectory 1, step 0", "changes no factor"});
  // A factor changed twice: a one-factor trajectory pattern 0 -> 1 -> 0 for d = 2 on factor 0.
  expect_invalid([] { morris_indices({0, 0, 1, 0, 0, 0}, {1, 2, 3}, 2); },
                 {"trajectory 0, step 1", "factor 0 again"});
}

// --- OAT -----------------------------------------------------------------------------------

TEST(Oat, HandComputed) {
  // 3 factors; base y = 5; factor 0 at two levels (y 3, 9), factor 1 at two (y 4, 5), factor 2
  // at none.
  const std::vector<double> unit = {kNaN, kNaN, kNaN,  //
                                    0.0,  kNaN, kNaN,  //
                                    kNaN, 0.5,  kNaN,  //
                                    1.0,  kNaN, kNaN,  //
                                    kNaN, 1.0,  kNaN};
  const std::vector<double> y = {5, 3, 4, 9, 5};
  const std::vector<OatEffect> e = oat_effects(unit, y, 3);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].levels, 2u);
  EXPECT_EQ(e[0].y_min, 3.0);
  EXPECT_EQ(e[0].y_max, 9.0);
  EXPECT_EQ(e[0].range, 6.0);
  EXPECT_EQ(e[1].levels, 2u);
  EXPECT_EQ(e[1].y_min, 4.0);
  EXPECT_EQ(e[1].y_max, 5.0);
  EXPECT_EQ(e[1].range, 1.0);
  EXPECT_EQ(e[2].levels, 0u);
  EXPECT_EQ(e[2].y_min, 5.0);
  EXPECT_EQ(e[2].y_max, 5.0);
  EXPECT_EQ(e[2].range, 0.0);
  // The base counts in the range: factor 0 levels both above the base.
  const std::vector<OatEffect> up = oat_effects({kNaN, 0.0, 1.0}, {1, 4, 6}, 1);
  EXPECT_EQ(up[0].y_min, 1.0);
  EXPECT_EQ(up[0].range, 5.0);
}

TEST(Oat, BadInputs) {
  expect_invalid([] { oat_effects({kNaN, kNaN, 0.0}, {1, 2}, 2); }, {"unit has 3", "4"});
  expect_invalid([] { oat_effects({}, {}, 2); }, {"empty"});
  expect_invalid([] { oat_effects({kNaN}, {1}, 0); }, {"factors = 0"});
  expect_invalid([] { oat_effects({0.5, kNaN}, {1}, 2); }, {"point 0", "base", "factor 0"});
  expect_invalid([] { oat_effects({kNaN, kNaN, 0.5, 0.5}, {1, 2}, 2); }, {"point 1", "moves 2 factors"});
  expect_invalid([] { oat_effects({kNaN, kNaN, 0.5, kNaN, kNaN, kNaN}, {1, 2, 3}, 2); },
                 {"point 2", "moves 0 factors"});
  expect_invalid([] { oat_effects({kNaN, 0.5}, {1, kNaN}, 1); }, {"y[1]", "not finite"});
  expect_invalid([] { oat_effects({kNaN, std::numeric_limits<double>::infinity()}, {1, 2}, 1); },
                 {"point 1", "factor 0"});
}

}  // namespace
}  // namespace geopipe::analysis
