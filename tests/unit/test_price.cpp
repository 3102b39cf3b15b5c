// Electricity price profiles: flat, hourly by local hour, integrals across midnight
// (docs/model.md, "Topology" and "Energy and cost").
#include <gtest/gtest.h>

#include <array>
#include <limits>

#include "model/topology.h"
#include "sim/energy.h"

namespace geopipe {
namespace {

TEST(Price, FlatProfile) {
  const PriceProfile p = PriceProfile::flat(0.2);
  EXPECT_TRUE(p.is_flat());
  EXPECT_DOUBLE_EQ(p.usd_per_kwh_at(12345.0), 0.2);
  EXPECT_DOUBLE_EQ(p.integral(7200.0), 0.2 * 7200.0);
  EXPECT_EQ(p.next_change_after(10.0), std::numeric_limits<double>::infinity());
  // 1 kW for one hour at $0.2/kWh = $0.2.
  EXPECT_NEAR(energy_cost_usd(p, 1000.0, 0.0, 3600.0), 0.2, 1e-15);
}

std::array<double, 24> ramp() {
  std::array<double, 24> a{};
  for (int h = 0; h < 24; ++h) a[static_cast<size_t>(h)] = 0.10 + 0.01 * h;  // local hour h costs 0.10 + 0.01h
  return a;
}

TEST(Price, HourlyProfileUsesLocalHour) {
  // UTC+2: simulation time 0 (00:00 UTC) is 02:00 local.
  const PriceProfile p = PriceProfile::hourly(ramp(), 2.0);
  EXPECT_FALSE(p.is_flat());
  EXPECT_DOUBLE_EQ(p.usd_per_kwh_at(0.0), 0.12);
  EXPECT_DOUBLE_EQ(p.usd_per_kwh_at(3599.0), 0.12);
  EXPECT_DOUBLE_EQ(p.usd_per_kwh_at(3600.0), 0.13);
  // 22:00 UTC = 00:00 local next day.
  EXPECT_DOUBLE_EQ(p.usd_per_kwh_at(22 * 3600.0), 0.10);
  // Negative offsets wrap too: UTC−5 at t = 0 is 19:00 local.
  EXPECT_DOUBLE_EQ(PriceProfile::hourly(ramp(), -5.0).usd_per_kwh_at(0.0), 0.29);
}

TEST(Price, ProfileCrossingMidnight) {
  // UTC+0. From 23:30 to 00:45 (next day): 30 min at hour 23 (0.33) + 45 min at hour 0 (0.10).
  const PriceProfile p = PriceProfile::hourly(ramp(), 0.0);
  const double t0 = 23.5 * 3600, t1 = 24.75 * 3600;
  const double expected = 0.33 * 1800 + 0.10 * 2700;
  EXPECT_NEAR(p.integral(t1) - p.integral(t0), expected, 1e-9);
  // 2 kW over that interval: 2 kW · (0.5 h · 0.33 + 0.75 h · 0.10) $/kWh.
  EXPECT_NEAR(energy_cost_usd(p, 2000.0, t0, t1), 2.0 * (0.5 * 0.33 + 0.75 * 0.10), 1e-12);
  // Mean price and next change.
  EXPECT_NEAR(p.mean_usd_per_kwh(t0, t1), expected / (t1 - t0), 1e-12);
  EXPECT_DOUBLE_EQ(p.next_change_after(t0), 24 * 3600.0);
  // Whole days integrate to the daily sum, from any start.
  double day = 0;
  for (double v : ramp()) day += v * 3600;
  EXPECT_NEAR(p.integral(3 * 86400.0 + 5000) - p.integral(5000), 3 * day, 1e-6);
}

TEST(Price, OffsetProfileCrossingLocalMidnight) {
  // UTC+9: local midnight is 15:00 UTC. From 14:00 to 16:00 UTC = 23:00–01:00 local.
  const PriceProfile p = PriceProfile::hourly(ramp(), 9.0);
  EXPECT_NEAR(p.integral(16 * 3600.0) - p.integral(14 * 3600.0), 0.33 * 3600 + 0.10 * 3600, 1e-9);
  EXPECT_DOUBLE_EQ(p.next_change_after(14.5 * 3600), 15 * 3600.0);
}

}  // namespace
}  // namespace geopipe
