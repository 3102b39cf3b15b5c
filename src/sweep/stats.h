// Small statistics for summaries: mean and a two-sided 95% Student-t confidence interval.
#pragma once

#include <cstddef>
#include <vector>

namespace geopipe::sweep {

struct MeanCi {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;  ///< 95% CI = mean ± half_width (0 when n < 2)
};

/// Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (df >= 1); exact
/// table values for df <= 30, interpolated in 1/df beyond (error < 1e-3).
double t975(std::size_t df);

MeanCi mean_ci(const std::vector<double>& x);

}  // namespace geopipe::sweep
