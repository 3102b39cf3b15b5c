// Analytic test functions with closed-form Sobol' indices: the checks of the sensitivity
// estimators (analysis/sensitivity.h) and a model a sweep can run instead of the simulator to
// validate a sampling design end to end.
//
// Ishigami (Ishigami & Homma 1990), 3 inputs, each uniform on [-pi, pi]:
//   f(x) = sin x1 + a sin^2 x2 + b x3^4 sin x1
//   Var f = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2
//   V1 = (1 + b pi^4/5)^2 / 2,  V2 = a^2/8,  V3 = 0,  V13 = 8 b^2 pi^8 / 225, no other term;
//   S1 = (V1, V2, 0)/Var,  ST = (V1 + V13, V2, V13)/Var.
// Sobol' G (Saltelli & Sobol' 1995), D inputs, each uniform on [0, 1], coefficients a_i >= 0:
//   f(x) = prod_i (|4 x_i - 2| + a_i) / (1 + a_i)         (E f = 1)
//   V_i = 1 / (3 (1 + a_i)^2),  Var f = prod_i (1 + V_i) - 1,
//   S1_i = V_i / Var,  ST_i = V_i prod_{j != i} (1 + V_j) / Var.
//   The smaller a_i, the more important x_i (a_i = 0: very important, a_i = 99: negligible).
//
// Plain values, no state: every member function is const and thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::analysis {

enum class TestFunctionKind { kIshigami, kSobolG };

/// Largest |f(x)| a sweep's test function may reach (its constants are refused beyond it): far
/// from overflow in the estimators' sums of squares over the largest design (docs/limits.md).
inline constexpr double kMaxTestFunctionValue = 1e100;

struct TestFunction {
  TestFunctionKind kind = TestFunctionKind::kIshigami;
  double a = 7.0, b = 0.1;              ///< Ishigami's constants (defaults: the classic a = 7, b = 0.1)
  std::vector<double> g_coefficients;  ///< Sobol' G: a_i >= 0, one per input (default: empty, set by
                                       ///< the caller, e.g. to default_g_coefficients())

  /// 3 for Ishigami, g_coefficients.size() for G.
  std::size_t dimension() const;
  /// Domain of x_i (i < dimension(), else std::out_of_range): Ishigami [-pi, pi], G [0, 1].
  double lower(std::size_t i) const;
  double upper(std::size_t i) const;
  /// f(x); x points to dimension() values in the domain (not checked: the hot path).
  double operator()(const double* x) const;
  /// Closed-form Var f(X), X uniform on the domain. These three throw std::invalid_argument for
  /// parameters without a finite positive variance: a non-finite a or b, a G-function with no
  /// input or a coefficient that is negative or not finite.
  double variance() const;
  /// Closed-form first-order indices S1_i, i < dimension().
  std::vector<double> first_order() const;
  /// Closed-form total-order indices ST_i, i < dimension().
  std::vector<double> total_order() const;
};

/// "ishigami", "sobol-g": the names a sweep file uses, in TestFunctionKind order.
const std::vector<std::string>& test_function_names();
/// The kind named `name` (exact, case-sensitive), or nullopt.
std::optional<TestFunctionKind> test_function_kind(std::string_view name);
/// The name of `kind` (one of test_function_names()).
std::string_view test_function_name(TestFunctionKind kind);
/// The G-function's default coefficients {0, 1, 4.5, 9, 99, 99, 99, 99} (Saltelli et al. 2008).
std::vector<double> default_g_coefficients();

}  // namespace geopipe::analysis
