// Max-min fair sharing with demand caps (docs/model.md, "Network sharing") and the
// incremental link state.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "model/rng.h"
#include "sim/maxmin.h"
#include "sim/network.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

std::vector<double> share(double cap, std::vector<double> d) {
  std::vector<double> a(d.size(), -1.0);
  maxmin_share(cap, d, a);
  return a;
}

TEST(MaxMin, TwoFlowsUncappedSplitEvenly) {
  EXPECT_EQ(share(10, {kInf, kInf}), (std::vector<double>{5, 5}));
}

TEST(MaxMin, TwoFlowsOneCapped) {
  // 10 units; flow 0 wants 2 -> gets 2; flow 1 gets the remaining 8.
  EXPECT_EQ(share(10, {2, kInf}), (std::vector<double>{2, 8}));
  // Both capped below the fair share: both satisfied, capacity left over.
  std::vector<double> a(2);
  EXPECT_DOUBLE_EQ(maxmin_share(10, std::vector<double>{3, 4}, a), 3.0);
  EXPECT_EQ(a, (std::vector<double>{3, 4}));
}

TEST(MaxMin, ThreeFlowsUncappedAndCapped) {
  EXPECT_EQ(share(9, {kInf, kInf, kInf}), (std::vector<double>{3, 3, 3}));
  // caps 1, 5, inf on 9: level after satisfying 1 is 4 -> flow 1 (5) bottlenecked at 4.
  EXPECT_EQ(share(9, {1, 5, kInf}), (std::vector<double>{1, 4, 4}));
  // caps 1, 2, inf on 9: 1 and 2 satisfied, third gets 6.
  EXPECT_EQ(share(9, {2, kInf, 1}), (std::vector<double>{2, 6, 1}));
  // caps 4, 4, 4 on 9: all bottlenecked at 3.
  EXPECT_EQ(share(9, {4, 4, 4}), (std::vector<double>{3, 3, 3}));
}

TEST(MaxMin, PropertiesOnRandomInstances) {
  Rng rng(42);
  for (int it = 0; it < 2000; ++it) {
    const auto n = static_cast<size_t>(1 + rng.below(12));
    const double cap = rng.uniform(0.0, 100.0);
    std::vector<double> d(n), a(n);
    for (auto& x : d) x = rng.uniform() < 0.2 ? kInf : rng.uniform(0.0, 30.0);
    const double left = maxmin_share(cap, d, a);
    double sum = 0, level = 0;
    for (size_t k = 0; k < n; ++k) {
      EXPECT_GE(a[k], 0.0);
      EXPECT_LE(a[k], d[k]);
      sum += a[k];
      level = std::max(level, a[k]);
    }
    EXPECT_NEAR(sum + left, cap, 1e-9 * std::max(1.0, cap)) << "capacity conserved";
    // Max-min: every flow is either satisfied or at the common (maximal) level.
    for (size_t k = 0; k < n; ++k) {
      if (a[k] < d[k]) {
        EXPECT_NEAR(a[k], level, 1e-9 * std::max(1.0, level));
      }
    }
    if (left > 1e-9) {
      for (size_t k = 0; k < n; ++k) EXPECT_EQ(a[k], d[k]) << "capacity left only if all satisfied";
    }
  }
}

TEST(NetworkState, RebalanceReportsOnlyChangedOwners) {
  Topology t;
  t.gpu_types = {GpuType{"g", 1e12, 1e9, 100, 10}};
  t.regions.resize(3);
  t.reset_links();
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b) t.link(a, b) = Link{10.0, 0.0, 0, {}};
  NetworkState net(t);
  std::vector<int> changed;
  const auto f0 = net.add_flow(0, 1, 4.0, /*owner*/ 7);
  const auto f1 = net.add_flow(0, 1, kInf, 8);
  const auto g0 = net.add_flow(1, 2, 3.0, 9);  // another link, independent
  net.rebalance(changed);
  EXPECT_EQ(changed, (std::vector<int>{7, 8, 9}));
  EXPECT_EQ(net.allocation(f0), 4.0);
  EXPECT_EQ(net.allocation(f1), 6.0);
  EXPECT_EQ(net.allocation(g0), 3.0);
  EXPECT_EQ(net.residual(0, 1), 0.0);
  EXPECT_EQ(net.residual(1, 2), 7.0);
  EXPECT_EQ(net.residual(1, 0), 10.0);
  // Rates are work-conserving: a saturated link runs its flows at their allocations; a flow
  // alone on a link with room runs at the link's capacity (3 + 7).
  EXPECT_EQ(net.rate(f0), 4.0);
  EXPECT_EQ(net.rate(f1), 6.0);
  EXPECT_EQ(net.rate(g0), 10.0);
  // A third flow on 0->1 that the fair level does not touch flow 0 (4 < 10/3? no: level 3.33)
  changed.clear();
  const auto f2 = net.add_flow(0, 1, 1.0, 10);
  net.rebalance(changed);
  // level: 1 satisfied, then (10-1)/2 = 4.5 >= 4 -> f0 keeps 4, f1 gets 5: owners 8 and 10 change.
  EXPECT_EQ(changed, (std::vector<int>{8, 10}));
  EXPECT_EQ(net.allocation(f0), 4.0);
  EXPECT_EQ(net.allocation(f1), 5.0);
  EXPECT_EQ(net.allocation(f2), 1.0);
  // Removing a flow only re-shares its own link; flows on 1->2 are not reported. f0 and f2 keep
  // their allocations (they were satisfied) but share the 5 left unallocated: 4 + 2.5 and
  // 1 + 2.5, so their owners are re-timed.
  changed.clear();
  net.remove_flow(f1);
  net.rebalance(changed);
  EXPECT_EQ(changed, (std::vector<int>{7, 10}));
  EXPECT_EQ(net.allocation(f0), 4.0);
  EXPECT_EQ(net.allocation(f2), 1.0);
  EXPECT_EQ(net.rate(f0), 6.5);
  EXPECT_EQ(net.rate(f2), 3.5);
  EXPECT_EQ(net.residual(0, 1), 5.0);
  EXPECT_EQ(net.num_flows(), 3);
  // A rebalance that changes nothing reports no owner.
  changed.clear();
  net.set_capacity(1, 2, 10.0);
  net.rebalance(changed);
  EXPECT_EQ(changed, (std::vector<int>{}));
}

}  // namespace
}  // namespace geopipe
