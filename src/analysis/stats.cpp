#include "analysis/stats.h"

#include <cmath>

#include <boost/math/distributions/students_t.hpp>

namespace geopipe::analysis {

double t_quantile(double confidence, std::size_t df) {
  if (df == 0) return NAN;
  const boost::math::students_t dist(static_cast<double>(df));
  return boost::math::quantile(dist, 0.5 + confidence / 2);
}

double t975(std::size_t df) { return t_quantile(0.95, df); }

MeanCi mean_ci(const std::vector<double>& x) {
  MeanCi r;
  r.n = x.size();
  if (x.empty()) return r;
  double s = 0;
  for (double v : x) s += v;
  r.mean = s / static_cast<double>(x.size());
  if (x.size() < 2) return r;
  double ss = 0;
  for (double v : x) ss += (v - r.mean) * (v - r.mean);
  const double sd = std::sqrt(ss / static_cast<double>(x.size() - 1));
  r.half_width = t975(x.size() - 1) * sd / std::sqrt(static_cast<double>(x.size()));
  return r;
}

}  // namespace geopipe::analysis
