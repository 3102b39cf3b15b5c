// Unit tests of the sweep runner's pure parts: scenario ids and shards, MPI message encoding,
// confidence intervals.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "sweep/plan.h"
#include "sweep/serialize.h"
#include "sweep/stats.h"

namespace geopipe::sweep {
namespace {

TEST(Plan, IdsAreDenseStableAndPairsAdjacent) {
  const Plan p(5, 3, 4);  // points, seeds, schedulers
  EXPECT_EQ(p.total(), 60u);
  for (std::uint64_t id = 0; id < p.total(); ++id) {
    const ScenarioKey k = p.key(id);
    EXPECT_LT(k.point, 5u);
    EXPECT_LT(k.seed_index, 3u);
    EXPECT_LT(k.scheduler_index, 4u);
    EXPECT_EQ(p.id(k), id);
  }
  // id = (point·seeds + seed)·schedulers + scheduler
  EXPECT_EQ(p.id({2, 1, 3}), (2u * 3 + 1) * 4 + 3);
}

TEST(Plan, ShardsPartitionWholePairs) {
  for (std::uint64_t N : {1u, 2u, 3u, 7u, 100u}) {
    const Plan full(4, 5, 3);
    std::vector<int> seen(full.total(), 0);
    std::uint64_t sum = 0;
    for (std::uint64_t K = 0; K < N; ++K) {
      const Plan s(4, 5, 3, K, N);
      std::uint64_t mine = 0;
      for (std::uint64_t id = 0; id < s.total(); ++id)
        if (s.in_shard(id)) {
          ++seen[id];
          ++mine;
          // every scheduler of the pair is in the same shard
          for (std::uint64_t q = 0; q < 3; ++q) EXPECT_TRUE(s.in_shard(id / 3 * 3 + q));
        }
      EXPECT_EQ(mine, s.shard_total()) << "K=" << K << " N=" << N;
      sum += mine;
    }
    EXPECT_EQ(sum, full.total());
    for (int c : seen) EXPECT_EQ(c, 1);
  }
}

TEST(Serialize, ResultsRoundTrip) {
  std::vector<ScenarioResult> in(3);
  in[0].id = 5;
  in[0].ok = true;
  in[0].metrics.avg_jct_s = 1234.5;
  in[0].metrics.jobs_completed = 17;
  in[0].metrics.total_cost_usd = std::nan("");
  in[1].id = 6;
  in[1].ok = false;
  in[1].error = "boom: \xce\xbb";
  in[2].id = 7;
  in[2].ok = true;
  JobRow j;
  j.job_id = 3;
  j.model = "llama2-7b";
  j.regions = "us-east;eu-west";
  j.cost_usd = 0.25;
  j.finish_s = -1;
  in[2].jobs = {j, j};
  std::vector<char> buf;
  encode_results(in, buf);
  std::vector<ScenarioResult> out;
  decode_results(buf.data(), buf.size(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].id, 5);
  EXPECT_TRUE(out[0].ok);
  EXPECT_EQ(out[0].metrics.avg_jct_s, 1234.5);
  EXPECT_EQ(out[0].metrics.jobs_completed, 17);
  EXPECT_TRUE(std::isnan(out[0].metrics.total_cost_usd));
  EXPECT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].error, in[1].error);
  ASSERT_EQ(out[2].jobs.size(), 2u);
  EXPECT_EQ(out[2].jobs[1].regions, "us-east;eu-west");
  EXPECT_EQ(out[2].jobs[1].cost_usd, 0.25);
  EXPECT_EQ(out[2].jobs[1].finish_s, -1);
  // Truncated or corrupted messages are rejected, not misread.
  EXPECT_THROW(decode_results(buf.data(), buf.size() - 1, out), std::runtime_error);
  buf[0] = 99;
  EXPECT_THROW(decode_results(buf.data(), buf.size(), out), std::runtime_error);
}

TEST(Serialize, RangesRoundTrip) {
  const std::vector<IdRange> in = {{0, 10}, {15, 16}, {1000000000000, 1000000000007}};
  std::vector<char> buf;
  encode_ranges(in, buf);
  std::vector<IdRange> out;
  decode_ranges(buf.data(), buf.size(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].first, 1000000000000);
  EXPECT_EQ(out[2].last, 1000000000007);
  EXPECT_THROW(decode_ranges(buf.data(), 3, out), std::runtime_error);
}

TEST(Stats, StudentTQuantiles) {
  EXPECT_DOUBLE_EQ(t975(1), 12.706);
  EXPECT_DOUBLE_EQ(t975(9), 2.262);
  EXPECT_NEAR(t975(40), 2.021, 2e-3);
  EXPECT_NEAR(t975(60), 2.000, 2e-3);
  EXPECT_NEAR(t975(120), 1.980, 2e-3);
  EXPECT_NEAR(t975(100000), 1.960, 1e-3);
}

TEST(Stats, MeanCiByHand) {
  // x = 1..5: mean 3, sd = sqrt(2.5), half width = 2.776 · sqrt(2.5)/sqrt(5)
  const MeanCi m = mean_ci({1, 2, 3, 4, 5});
  EXPECT_EQ(m.n, 5u);
  EXPECT_DOUBLE_EQ(m.mean, 3.0);
  EXPECT_NEAR(m.half_width, 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-12);
  EXPECT_EQ(mean_ci({7}).half_width, 0.0);
  EXPECT_EQ(mean_ci({}).n, 0u);
}

}  // namespace
}  // namespace geopipe::sweep
