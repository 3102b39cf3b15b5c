// Unit tests of the sweep runner's pure parts: scenario ids and shards, MPI message encoding.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "plan/plan.h"
#include "run/serialize.h"

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

/// Sets every field to a distinct value (strings: a distinct text), through the field lists,
/// so that a field added to a list is covered without touching this test.
template <class Row, class Visit>
void fill_distinct(Row& row, Visit visit, int salt) {
  int k = salt;
  visit(row, [&](const auto&, auto& v) {
    ++k;
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) v = "text-" + std::to_string(k) + " \xce\xbb";
    else if constexpr (std::is_floating_point_v<T>) v = static_cast<T>(k) + 0.25;
    else v = static_cast<T>(k);
  });
}

template <class Row, class Visit>
void expect_same_fields(Row& a, Row& b, Visit visit) {
  std::vector<std::string> ta, tb;
  auto text = [](std::vector<std::string>& out) {
    return [&out](const auto&, const auto& v) { out.push_back(fmt::format("{}", v)); };
  };
  visit(a, text(ta));
  visit(b, text(tb));
  EXPECT_EQ(ta, tb);
}

TEST(Serialize, ResultsRoundTrip) {
  const auto metrics = [](auto& m, auto&& f) { for_each_metric(m, f); };
  const auto columns = [](auto& r, auto&& f) { for_each_job_column(r, f); };
  std::vector<ScenarioResult> in(3);
  in[0].id = 5;
  in[0].ok = true;
  fill_distinct(in[0].metrics, metrics, 0);
  in[0].metrics.total_cost_usd = std::nan("");
  in[1].id = 6;
  in[1].ok = false;
  in[1].error = "boom: \xce\xbb";
  in[2].id = 7;
  in[2].ok = true;
  JobRow j, j2;
  fill_distinct(j, columns, 100);
  fill_distinct(j2, columns, 200);
  in[2].jobs = {j, j2};
  std::vector<char> buf;
  encode_results(in, buf);
  std::vector<ScenarioResult> out;
  decode_results(buf.data(), buf.size(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].id, 5);
  EXPECT_TRUE(out[0].ok);
  expect_same_fields(in[0].metrics, out[0].metrics, metrics);
  EXPECT_TRUE(std::isnan(out[0].metrics.total_cost_usd));
  EXPECT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].error, in[1].error);
  ASSERT_EQ(out[2].jobs.size(), 2u);
  expect_same_fields(in[2].jobs[0], out[2].jobs[0], columns);
  expect_same_fields(in[2].jobs[1], out[2].jobs[1], columns);
  EXPECT_NE(out[2].jobs[0].carbon_g, out[2].jobs[1].carbon_g);
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

}  // namespace
}  // namespace geopipe::sweep
