#include "analysis/test_functions.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace geopipe::analysis {
namespace {

constexpr double kPi = std::numbers::pi;

struct IshigamiTerms {
  double v1, v2, v13, var;
};

IshigamiTerms ishigami_terms(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b))
    throw std::invalid_argument("ishigami: a and b must be finite (a = " + std::to_string(a) +
                                ", b = " + std::to_string(b) + ")");
  const double pi4 = std::pow(kPi, 4), pi8 = std::pow(kPi, 8);
  IshigamiTerms t{};
  const double c = 1.0 + b * pi4 / 5.0;
  t.v1 = c * c / 2.0;
  t.v2 = a * a / 8.0;
  t.v13 = 8.0 * b * b * pi8 / 225.0;
  t.var = a * a / 8.0 + b * pi4 / 5.0 + b * b * pi8 / 18.0 + 0.5;
  return t;
}

/// V_i = 1 / (3 (1 + a_i)^2) of every input; checks the coefficients.
std::vector<double> g_partial_variances(const std::vector<double>& coef) {
  if (coef.empty()) throw std::invalid_argument("sobol-g: no input (g_coefficients is empty)");
  std::vector<double> v(coef.size());
  for (std::size_t i = 0; i < coef.size(); ++i) {
    if (!std::isfinite(coef[i]) || coef[i] < 0)
      throw std::invalid_argument("sobol-g: g_coefficients[" + std::to_string(i) + "] = " +
                                  std::to_string(coef[i]) + " (expected a finite value >= 0)");
    v[i] = 1.0 / (3.0 * (1.0 + coef[i]) * (1.0 + coef[i]));
  }
  return v;
}

/// prod (1 + V_i) - 1, as expm1(sum log1p V_i): no cancellation when every V_i is small.
double g_variance(const std::vector<double>& v) {
  double log_sum = 0.0;
  for (double vi : v) log_sum += std::log1p(vi);
  return std::expm1(log_sum);
}

}  // namespace

std::size_t TestFunction::dimension() const {
  return kind == TestFunctionKind::kIshigami ? 3 : g_coefficients.size();
}

double TestFunction::lower(std::size_t i) const {
  if (i >= dimension())
    throw std::out_of_range("TestFunction::lower: input " + std::to_string(i) + " of " +
                            std::to_string(dimension()));
  return kind == TestFunctionKind::kIshigami ? -kPi : 0.0;
}

double TestFunction::upper(std::size_t i) const {
  if (i >= dimension())
    throw std::out_of_range("TestFunction::upper: input " + std::to_string(i) + " of " +
                            std::to_string(dimension()));
  return kind == TestFunctionKind::kIshigami ? kPi : 1.0;
}

double TestFunction::operator()(const double* x) const {
  if (kind == TestFunctionKind::kIshigami) {
    const double s1 = std::sin(x[0]), s2 = std::sin(x[1]);
    const double x3sq = x[2] * x[2];
    return s1 + a * s2 * s2 + b * x3sq * x3sq * s1;
  }
  double p = 1.0;
  for (std::size_t i = 0; i < g_coefficients.size(); ++i)
    p *= (std::abs(4.0 * x[i] - 2.0) + g_coefficients[i]) / (1.0 + g_coefficients[i]);
  return p;
}

double TestFunction::variance() const {
  if (kind == TestFunctionKind::kIshigami) return ishigami_terms(a, b).var;
  return g_variance(g_partial_variances(g_coefficients));
}

std::vector<double> TestFunction::first_order() const {
  if (kind == TestFunctionKind::kIshigami) {
    const IshigamiTerms t = ishigami_terms(a, b);
    return {t.v1 / t.var, t.v2 / t.var, 0.0};
  }
  const std::vector<double> v = g_partial_variances(g_coefficients);
  const double var = g_variance(v);
  std::vector<double> s(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) s[i] = v[i] / var;
  return s;
}

std::vector<double> TestFunction::total_order() const {
  if (kind == TestFunctionKind::kIshigami) {
    const IshigamiTerms t = ishigami_terms(a, b);
    return {(t.v1 + t.v13) / t.var, t.v2 / t.var, t.v13 / t.var};
  }
  const std::vector<double> v = g_partial_variances(g_coefficients);
  const double var = g_variance(v);
  std::vector<double> s(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    double log_others = 0.0;
    for (std::size_t j = 0; j < v.size(); ++j)
      if (j != i) log_others += std::log1p(v[j]);
    s[i] = v[i] * std::exp(log_others) / var;
  }
  return s;
}

const std::vector<std::string>& test_function_names() {
  static const std::vector<std::string> names{"ishigami", "sobol-g"};
  return names;
}

std::optional<TestFunctionKind> test_function_kind(std::string_view name) {
  if (name == "ishigami") return TestFunctionKind::kIshigami;
  if (name == "sobol-g") return TestFunctionKind::kSobolG;
  return std::nullopt;
}

std::string_view test_function_name(TestFunctionKind kind) {
  return kind == TestFunctionKind::kIshigami ? "ishigami" : "sobol-g";
}

std::vector<double> default_g_coefficients() { return {0, 1, 4.5, 9, 99, 99, 99, 99}; }

}  // namespace geopipe::analysis
