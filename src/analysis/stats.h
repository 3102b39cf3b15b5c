// Small statistics for summaries: mean and a two-sided 95% Student-t confidence interval.
#pragma once

#include <cstddef>
#include <vector>

namespace geopipe::analysis {

struct MeanCi {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;  ///< 95% CI = mean ± half_width (0 when n < 2)
};

/// The (1 + confidence) / 2 quantile of Student's t with `df` degrees of freedom (df >= 1), from
/// Boost.Math: the half-width factor of a two-sided `confidence` interval. NaN for df = 0.
double t_quantile(double confidence, std::size_t df);
/// t_quantile(0.95, df): the factor of a two-sided 95% interval.
double t975(std::size_t df);

MeanCi mean_ci(const std::vector<double>& x);

}  // namespace geopipe::analysis
