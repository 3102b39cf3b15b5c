// WaitingQueue (sim/waiting_queue.h) against a std::set of the same ids under random pushes
// and removals: contents, order, front/back, upper_bound, and the iteration bound.
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <vector>

#include "model/rng.h"
#include "sim/waiting_queue.h"

namespace geopipe {
namespace {

std::vector<int> as_vector(const std::set<int>& s) { return std::vector<int>(s.begin(), s.end()); }

TEST(WaitingQueue, EraseKeepsOrderAndFrontBack) {
  WaitingQueue q(std::vector<int>{2, 3, 5, 8, 13});
  EXPECT_EQ(q.size(), 5u);
  EXPECT_TRUE(q.erase(5));
  EXPECT_FALSE(q.erase(5)) << "already removed";
  EXPECT_FALSE(q.erase(4)) << "never there";
  EXPECT_EQ(q.to_vector(), (std::vector<int>{2, 3, 8, 13}));
  EXPECT_TRUE(q.erase(2));
  EXPECT_TRUE(q.erase(13));
  EXPECT_EQ(q.front(), 3);
  EXPECT_EQ(q.back(), 8);
  EXPECT_EQ(*q.upper_bound(3), 8) << "skips the removed 5";
  EXPECT_TRUE(q.upper_bound(8) == q.end());
  q.push_back(21);
  EXPECT_EQ(q.to_vector(), (std::vector<int>{3, 8, 21}));
  EXPECT_TRUE(q.erase(3));
  EXPECT_TRUE(q.erase(8));
  EXPECT_TRUE(q.erase(21));
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.begin() == q.end());
  q.push_back(34);
  EXPECT_EQ(q.front(), 34);
}

TEST(WaitingQueue, MatchesASetUnderRandomOperations) {
  Rng rng(42);
  WaitingQueue q;
  std::set<int> ref;
  int next_id = 0;
  for (int step = 0; step < 200000; ++step) {
    const double u = rng.uniform();
    // Phases: grow to a few thousand, then drain, so compaction, head and tail trimming all run.
    const bool grow = (step / 20000) % 2 == 0 ? u < 0.6 : u < 0.35;
    if (grow || ref.empty()) {
      q.push_back(next_id);
      ref.insert(next_id++);
    } else {
      // remove a random live id (by rank), sometimes the front or back on purpose
      auto it = ref.begin();
      const double v = rng.uniform();
      if (v < 0.2) it = ref.begin();
      else if (v < 0.3) it = std::prev(ref.end());
      else std::advance(it, static_cast<long>(rng.uniform() * static_cast<double>(ref.size())) % static_cast<long>(ref.size()));
      ASSERT_TRUE(q.erase(*it));
      ref.erase(it);
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(q.front(), *ref.begin());
      ASSERT_EQ(q.back(), *ref.rbegin());
    }
    if (step % 997 == 0) {
      ASSERT_EQ(q.to_vector(), as_vector(ref)) << "step " << step;
      const int probe = next_id > 0 ? static_cast<int>(rng.uniform() * next_id) : 0;
      const auto want = ref.upper_bound(probe);
      const auto got = q.upper_bound(probe);
      if (want == ref.end()) ASSERT_TRUE(got == q.end());
      else ASSERT_EQ(*got, *want);
    }
  }
}

TEST(WaitingQueue, InsertPutsAJobBackInIdOrder) {
  // A failed job waits again ahead of every job that arrived after it (docs/model.md,
  // "Failures and checkpoints"): insert keeps the ids in increasing order.
  WaitingQueue q(std::vector<int>{1, 3, 5, 7, 9});
  q.erase(3);
  q.erase(1);
  q.insert(4);  // between 3 (gone) and 5
  EXPECT_EQ(q.to_vector(), (std::vector<int>{4, 5, 7, 9}));
  EXPECT_EQ(q.front(), 4);
  q.insert(0);
  q.insert(12);  // beyond every id: an append
  EXPECT_EQ(q.to_vector(), (std::vector<int>{0, 4, 5, 7, 9, 12}));
  EXPECT_EQ(q.size(), 6u);
  EXPECT_TRUE(q.erase(4));
  EXPECT_FALSE(q.erase(4));
  q.insert(4);  // an id that left comes back
  EXPECT_EQ(q.to_vector(), (std::vector<int>{0, 4, 5, 7, 9, 12}));
  EXPECT_EQ(*q.upper_bound(4), 5);
  for (int id : {0, 4, 5, 7, 9, 12}) EXPECT_TRUE(q.erase(id));
  EXPECT_TRUE(q.empty());
  q.insert(3);
  EXPECT_EQ(q.to_vector(), (std::vector<int>{3}));
}

}  // namespace
}  // namespace geopipe
