// Unit tests of analysis/stats.h: Student-t quantiles and mean confidence intervals, against
// closed forms and printed tables.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/stats.h"

namespace geopipe::analysis {
namespace {

TEST(Stats, StudentTQuantiles) {
  // Closed forms: df = 1 is Cauchy, tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2 p (1 - p)).
  EXPECT_NEAR(t975(1), std::tan(std::acos(-1.0) * 0.475), 1e-11);
  EXPECT_NEAR(t975(2), 0.95 / std::sqrt(2 * 0.975 * 0.025), 1e-12);
  EXPECT_NEAR(t975(9), 2.262157162, 1e-8);   // tables: 2.262
  EXPECT_NEAR(t975(120), 1.979930405, 1e-8); // tables: 1.980
  EXPECT_NEAR(t975(100000000), 1.959963985, 1e-7);  // the normal quantile
  EXPECT_NEAR(t_quantile(0.99, 1), std::tan(std::acos(-1.0) * 0.495), 1e-9);
  EXPECT_TRUE(std::isnan(t975(0)));
}

TEST(Stats, MeanCiByHand) {
  // x = 1..5: mean 3, sd = sqrt(2.5), half width = t_{0.975,4} · sqrt(2.5)/sqrt(5), where for 4
  // degrees of freedom t = 2 sqrt(cos(theta / 3) / sqrt(a) - 1), a = 4p(1 - p), theta = acos(sqrt(a)).
  const double a = 4 * 0.975 * 0.025;
  const double t4 = 2 * std::sqrt(std::cos(std::acos(std::sqrt(a)) / 3) / std::sqrt(a) - 1);
  const MeanCi m = mean_ci({1, 2, 3, 4, 5});
  EXPECT_EQ(m.n, 5u);
  EXPECT_DOUBLE_EQ(m.mean, 3.0);
  EXPECT_NEAR(m.half_width, t4 * std::sqrt(2.5) / std::sqrt(5.0), 1e-12);
  EXPECT_EQ(mean_ci({7}).half_width, 0.0);
  EXPECT_EQ(mean_ci({}).n, 0u);
}

}  // namespace
}  // namespace geopipe::analysis
