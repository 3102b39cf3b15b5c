#include "sweep/stats.h"

#include <cmath>

namespace geopipe::sweep {

double t975(std::size_t df) {
  static const double table[31] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                   2.074,  2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return NAN;
  if (df <= 30) return table[df];
  // Between df = 30 (2.042) and infinity (1.960) the quantile is nearly linear in 1/df:
  // 40: 2.021, 60: 2.000, 120: 1.980.
  const double x = 1.0 / static_cast<double>(df);
  return 1.959964 + (2.042 - 1.959964) * x * 30.0;
}

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

}  // namespace geopipe::sweep
