// Precision-driven replication (plan/replication.h): the rounds' decisions on hand-computed
// cases. The end-to-end determinism (threads, ranks, kill -9 + resume) is sweep.precision_seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "plan/replication.h"

namespace geopipe::sweep {
namespace {

config::ReplicationRule rule(std::uint64_t min, std::uint64_t max, double rel, double abs = 0, std::string paired = "") {
  config::ReplicationRule r;
  r.min = min;
  r.max = max;
  r.rel_ci = rel;
  r.abs_ci = abs;
  r.paired_vs = std::move(paired);
  return r;
}

// t_{0.975, 1} = tan(0.475 pi) = 12.7062047...: two seeds of 10 and 20 give mean 15, sd sqrt(50), half-width
// 12.7062 * sqrt(50) / sqrt(2) = 63.531; against 10% of 15 = 1.5 the ratio is 42.35, so the
// projection n * ratio^2 = 3587 seeds is capped at twice the seeds: 4.
TEST(Replication, ProjectsCapsAndStops) {
  Replication rep(rule(2, 8, 0.1), 3, {"a"});
  EXPECT_EQ(rep.allowance(0), 2u);
  rep.record(0, 0, 0, true, 10);
  rep.record(0, 1, 0, true, 10);  // no spread: converged at once
  rep.record(1, 0, 0, true, 10);
  rep.record(1, 1, 0, true, 20);
  EXPECT_FALSE(rep.round_complete());  // point 2 has nothing yet
  rep.record(2, 0, 0, true, 100);
  rep.record(2, 1, 0, true, 101);  // mean 100.5, half 12.706 * 0.5 = 6.353 = 6.3% <= 10%
  ASSERT_TRUE(rep.round_complete());
  EXPECT_EQ(rep.next_round(), 2u);
  EXPECT_EQ(rep.precision(0).state, PrecisionState::kConverged);
  EXPECT_EQ(rep.precision(2).state, PrecisionState::kConverged);
  EXPECT_NEAR(rep.precision(2).half_width, 12.7062047361747 * 0.5, 1e-9);
  EXPECT_NEAR(rep.precision(2).rel_half_width, 12.7062047361747 * 0.5 / 100.5, 1e-12);
  EXPECT_EQ(rep.precision(1).state, PrecisionState::kRunning);
  EXPECT_NEAR(rep.precision(1).half_width, 12.7062047361747 * std::sqrt(50.0) / std::sqrt(2.0), 1e-9);
  EXPECT_EQ(rep.allowance(1), 4u);
  EXPECT_EQ(rep.scenarios(), 2u + 4u + 2u);
  // Still spread out at 4 seeds: 8 = max, then it stops there.
  rep.record(1, 2, 0, true, 10);
  rep.record(1, 3, 0, true, 20);
  EXPECT_EQ(rep.next_round(), 4u);
  EXPECT_EQ(rep.allowance(1), 8u);
  for (std::uint64_t k = 4; k < 8; ++k) rep.record(1, k, 0, true, k % 2 ? 20 : 10);
  EXPECT_EQ(rep.next_round(), 0u);
  EXPECT_EQ(rep.precision(1).state, PrecisionState::kMaxSeeds);
  EXPECT_EQ(rep.precision(1).seeds, 8u);
  EXPECT_EQ(rep.count(PrecisionState::kConverged), 2u);
  EXPECT_EQ(rep.rounds(), 3);
}

// A nearly met target grows by the projection, not by doubling: 20 seeds at ratio 1.1 need
// ceil(20 * 1.21) = 25. One more seed at least: ratio 1.0001 still adds one.
TEST(Replication, ProjectionBelowDoubling) {
  // Values alternating 100 +- d give sd = d * sqrt(n / (n - 1)); pick d for a ratio of 1.1.
  const double t19 = 2.093024054408263;  // t_{0.975, 19} (the ratio test below has slack for its last digits)
  const double n = 20, mean = 100;
  const double half_want = 1.1 * 0.05 * mean;
  const double d = half_want * std::sqrt(n) / t19 / std::sqrt(n / (n - 1));
  Replication rep(rule(20, 100, 0.05), 1, {"a"});
  for (std::uint64_t k = 0; k < 20; ++k) rep.record(0, k, 0, true, k % 2 ? mean + d : mean - d);
  EXPECT_EQ(rep.next_round(), 5u);
  EXPECT_EQ(rep.allowance(0), 25u);
}

// Paired: the quantity is a / b - 1 per seed; abs_ci is an alternative target (a change near 0
// never meets a relative one). A failed scenario stops its point.
TEST(Replication, PairedAbsoluteAndFailed) {
  Replication rep(rule(3, 10, 0.01, 0.05, "b"), 2, {"a", "b"});
  const double a[3] = {9.0, 10.0, 11.0}, b[3] = {10.0, 10.0, 10.0};  // changes -0.1, 0, 0.1: mean 0
  for (std::uint64_t k = 0; k < 3; ++k) {
    rep.record(0, k, 0, true, a[k]);
    rep.record(0, k, 1, true, b[k]);
    rep.record(1, k, 0, true, 10.0);
    rep.record(1, k, 1, k == 1 ? false : true, 10.0);
  }
  EXPECT_EQ(rep.next_round(), 3u * 2u);  // half = t_{.975,2} * 0.1 / sqrt(3) = 0.2484 > 0.05: 3 -> 6 seeds
  EXPECT_NEAR(rep.precision(0).mean, 0.0, 1e-15);
  // t_{0.975, 2} in closed form: (2p - 1) / sqrt(2 p (1 - p)), p = 0.975.
  const double t2 = 0.95 / std::sqrt(2 * 0.975 * 0.025);
  EXPECT_NEAR(rep.precision(0).half_width, t2 * 0.1 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(rep.precision(1).state, PrecisionState::kFailed);
  EXPECT_EQ(rep.allowance(1), 3u);
}

// Results beyond a point's allowance (a resumed file holds later rounds) are kept and used when
// the allowance reaches them: replaying a finished run needs no new scenario.
TEST(Replication, ReplaysFromResultsRecordedAhead) {
  Replication live(rule(2, 16, 0.02), 1, {"a"});
  Replication replay(rule(2, 16, 0.02), 1, {"a"});
  const auto value = [](std::uint64_t k) { return 100.0 + static_cast<double>((k * 7) % 5); };
  for (std::uint64_t k = 0; k < 16; ++k) replay.record(0, k, 0, true, value(k));
  std::uint64_t next = 0;
  while (true) {
    for (; next < live.allowance(0); ++next) live.record(0, next, 0, true, value(next));
    if (live.next_round() == 0) break;
  }
  while (replay.round_complete() && replay.next_round() > 0) {
  }
  EXPECT_EQ(replay.allowance(0), live.allowance(0));
  EXPECT_EQ(replay.rounds(), live.rounds());
  EXPECT_EQ(replay.precision(0).state, live.precision(0).state);
  EXPECT_NE(live.precision(0).state, PrecisionState::kRunning);
}

}  // namespace
}  // namespace geopipe::sweep
