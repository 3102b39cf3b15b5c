// The dispatcher's bookkeeping (plan/dispatch.h), without MPI or threads: the ids left to run,
// batch sizes, and results reaching the output in id order.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "plan/dispatch.h"

namespace geopipe::sweep {
namespace {

std::vector<std::int64_t> ids_of(const std::vector<IdRange>& rs) {
  std::vector<std::int64_t> v;
  for (const IdRange& r : rs)
    for (std::int64_t id = r.first; id < r.last; ++id) v.push_back(id);
  return v;
}

TEST(IdCursor, YieldsTheShardsIdsNotDoneInOrderAsRanges) {
  const Plan plan(3, 2, 2, 1, 2);  // 3 points x 2 seeds x 2 schedulers, shard 1 of 2: pairs 1, 3, 5
  const std::vector<std::int64_t> done = {3, 6, 7, 8};  // 8 is not in the shard
  IdCursor c(plan, done);
  EXPECT_EQ(c.remaining(), 6u - 3u);
  std::vector<IdRange> got;
  EXPECT_EQ(c.take(2, got), 2u);
  EXPECT_EQ(c.remaining(), 1u);
  EXPECT_EQ(c.take(100, got), 1u);
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.take(5, got), 0u);
  // Shard ids: pairs 1, 3, 5 -> ids 2,3, 6,7, 10,11; minus done 3, 6, 7.
  EXPECT_EQ(ids_of(got), (std::vector<std::int64_t>{2, 10, 11}));
  ASSERT_EQ(got.size(), 2u);  // 10 and 11 are one range
  EXPECT_EQ(got[1].first, 10);
  EXPECT_EQ(got[1].last, 12);
  EXPECT_EQ(count(got), 3u);
}

TEST(BatchSizer, MeasuresFirstThenAimsAtAQuarterSecondWithABalancedTail) {
  BatchSizer s(2, 2);  // 2 threads, 2 executors
  EXPECT_EQ(s.next(1000), 1u);  // nothing measured yet: one scenario
  s.observe(0.01);
  EXPECT_EQ(s.next(1000), 50u);  // 0.25 s x 2 threads / 0.01 s
  EXPECT_EQ(s.next(40), 10u);    // tail: 40 left / (2 x 2 executors)
  EXPECT_EQ(s.next(3), 2u);      // but at least one per thread
  s.observe(1e-9);               // very fast scenarios: capped at 16384
  for (int k = 0; k < 200; ++k) s.observe(1e-9);
  EXPECT_EQ(s.next(100'000'000), 16384u);
}

class RecordingSink final : public ResultSink {
 public:
  void append(const ScenarioResult& r) override { ids.push_back(r.id); }
  void flush() override { ++flushes; }
  void finalize() override {}
  std::vector<std::int64_t> ids;
  int flushes = 0;
};

ScenarioResult result(std::int64_t id) {
  ScenarioResult r;
  r.id = id;
  r.ok = true;
  return r;
}

TEST(Reorder, ResultsReachTheSinkInDispatchOrder) {
  RecordingSink sink;
  Reorder ro(sink);
  ro.dispatched({{0, 3}});
  ro.dispatched({{3, 5}, {9, 10}});
  for (std::int64_t id : {2, 0, 4, 9}) ro.add(result(id));
  EXPECT_EQ(sink.ids, (std::vector<std::int64_t>{0}));  // 1 is missing: 2, 4, 9 wait
  ro.add(result(1));
  EXPECT_EQ(sink.ids, (std::vector<std::int64_t>{0, 1, 2}));
  ro.add(result(3));
  EXPECT_EQ(sink.ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 9}));
}

TEST(Reorder, ReleaseAllHandsOverWhatWaitsAfterAnInterruption) {
  RecordingSink sink;
  Reorder ro(sink);
  ro.dispatched({{0, 4}});
  ro.add(result(3));
  ro.add(result(1));
  EXPECT_TRUE(sink.ids.empty());
  ro.release_all();  // 0 and 2 never came back
  EXPECT_EQ(sink.ids, (std::vector<std::int64_t>{1, 3}));
}

}  // namespace
}  // namespace geopipe::sweep
