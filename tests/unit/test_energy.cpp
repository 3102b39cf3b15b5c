// Energy, power and the cost of energy (docs/model.md, "Energy and cost").
#include <gtest/gtest.h>

#include <array>
#include <limits>

#include "model/topology.h"
#include "sim/energy.h"

namespace geopipe {
namespace {

TEST(Energy, StageEnergyPerIteration) {
  const GpuType gpu{"g", 1e14, 8e10, 500.0, 100.0};
  // g = 2, PUE 1.5, busy 3 s of a 5 s iteration: 2·1.5·(500·3 + 100·2) = 5100 J.
  EXPECT_DOUBLE_EQ(stage_energy_per_iteration_j(2, 1.5, gpu, 3.0, 5.0), 5100.0);
  EXPECT_DOUBLE_EQ(stage_power_w(2, 1.5, gpu, 3.0, 5.0), 1020.0);
  // Fully busy and fully idle.
  EXPECT_DOUBLE_EQ(stage_energy_per_iteration_j(1, 1.0, gpu, 5.0, 5.0), 2500.0);
  EXPECT_DOUBLE_EQ(stage_energy_per_iteration_j(1, 1.0, gpu, 0.0, 5.0), 500.0);
}

TEST(Energy, BusyTimeIsClampedToTheIteration) {
  const GpuType gpu{"g", 1e14, 8e10, 500.0, 100.0};
  // Busy longer than the iteration (rounding in the recurrence): busy the whole iteration.
  EXPECT_DOUBLE_EQ(stage_energy_per_iteration_j(1, 1.0, gpu, 6.0, 5.0), 2500.0);
  EXPECT_DOUBLE_EQ(stage_energy_per_iteration_j(1, 1.0, gpu, -1.0, 5.0), 500.0);
}

TEST(Energy, BusyTimePerIterationAndBackwardFactor) {
  // m·(f + b) with b = 2f (no recomputation): 4 micro-batches of f = 0.5 s.
  EXPECT_DOUBLE_EQ(stage_busy_per_iteration_s(4, 0.5, 2.0), 6.0);
  EXPECT_DOUBLE_EQ(backward_time(0.5, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(compute_time(0.5, 2.0), 1.5);
  // b = 3f with full recomputation: 4·(0.5 + 1.5) = 8 s.
  EXPECT_DOUBLE_EQ(stage_busy_per_iteration_s(4, 0.5, 3.0), 8.0);
  // compute_time is f + b to the bit, whatever the ratio.
  for (double rho : {2.0, 3.0, 2.8125})
    for (double f : {0.1, 1.0 / 3.0, 7.3e-5, 123.456}) EXPECT_EQ(compute_time(f, rho), f + backward_time(f, rho)) << f;
}

TEST(Energy, CostOfEnergy) {
  // 3.6e6 J = 1 kWh.
  EXPECT_DOUBLE_EQ(energy_cost_usd(7.2e6, 0.25), 0.5);
  const PriceProfile flat = PriceProfile::flat(0.2);
  EXPECT_NEAR(energy_cost_usd(flat, 1000.0, 0.0, 3600.0), 0.2, 1e-15);  // 1 kW for an hour
}

}  // namespace
}  // namespace geopipe
