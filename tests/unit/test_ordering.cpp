// The incremental dynamic-priority order (sched/ordering.h) against a full sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

// The incremental priority order itself, call after call: the jobs it yields (taking some,
// skipping a shape, passing over single jobs) are the full sort's, in order; the queue changes as the engine changes it
// (arrivals appended, taken jobs gone) and, every fourth call, arbitrarily (which the order
// repairs by rebuilding).
TEST(Ordering, PriorityOrderEqualsFullSortAcrossCalls) {
  const Scenario sc = random_cluster();
  const std::vector<Job> jobs = shaped_jobs(derive_seed(5, "ordering-direct"), 400, 30.0);
  const Context c(sc, jobs);
  const SchedContext& ctx = c.ctx;
  ASSERT_EQ(ctx.num_shapes, 5);
  // Aging from dominant (1 s/s: the oldest job first, mostly) to none (run time decides); then
  // w_rt = 0 (arrival order: the shape's head without the records' scan), and the weights
  // fifo-backfill and sjf set whatever the scenario says (ordering.h).
  struct Variant {
    double w_rt, w_net, aging;
  };
  for (const Variant v : {Variant{1, 1, 1.0}, Variant{1, 1, 1e-3}, Variant{1, 1, 0.0}, Variant{0, 1, 1.0},
                          Variant{0, 0, 0}, Variant{1, 0, 0}}) {
    const double aging = v.aging;
    SchedulerParams prm = sc.scheduler;
    prm.priority_runtime_weight = v.w_rt;
    prm.priority_network_weight = v.w_net;
    prm.priority_aging = aging;
    SchedulerParams scenario_prm = prm;  // what the preset factories are handed: they override it
    scenario_prm.priority_runtime_weight = 7;
    scenario_prm.priority_network_weight = 5;
    scenario_prm.priority_aging = 3;
    auto ord = v.w_rt == 0 && v.w_net == 0 && v.aging == 0 ? make_fifo_backfill(scenario_prm)
               : v.w_rt == 1 && v.w_net == 0 && v.aging == 0 ? make_shortest_first(scenario_prm)
                                                             : make_priority_backfill(prm);
    Rng rng(derive_seed(6, "ordering-direct"));
    std::vector<int> queue;
    int next_id = 0;
    long compared = 0, rebuilds = 0, passed_over = 0;
    for (int call = 0; call < 120; ++call) {
      if (call % 4 == 3) {  // arbitrary change: a random subset of everything arrived so far
        std::vector<int> subset;
        for (int j = 0; j < next_id; ++j)
          if (rng.uniform() < 0.5) subset.push_back(j);
        // The order detects a change outside its protocol by the number of waiting jobs
        // (ordering.h): make it differ.
        if (subset.size() == queue.size()) {
          if (subset.empty()) continue;
          subset.pop_back();
        }
        queue = std::move(subset);
        ++rebuilds;
      }
      for (int k = 2 + static_cast<int>(rng.below(6)); k > 0 && next_id < 400; --k) queue.push_back(next_id++);
      if (queue.empty()) continue;
      const double now = jobs[static_cast<size_t>(queue.back())].arrival_s + rng.uniform(0.0, 3600.0);
      ClusterView view = idle_view(sc.topology, sc.compute, now);
      for (int r = 0; r < view.regions(); ++r) view.free_gpus[static_cast<size_t>(r)] = static_cast<int>(rng.below(17));
      for (double& x : view.residual) x *= rng.uniform(0.2, 1.0);
      SCOPED_TRACE("w_rt " + std::to_string(v.w_rt) + " w_net " + std::to_string(v.w_net) + " aging " + std::to_string(aging) + " call " + std::to_string(call));
      const WaitingQueue waiting(queue);
      std::vector<int> expect = naive_priority_order(ctx, waiting, view, prm);
      ord->begin(ctx, waiting, view);
      const int skip = rng.uniform() < 0.3 ? static_cast<int>(rng.below(5)) : -1;  // a shape that fails
      const int take = static_cast<int>(rng.below(4));
      std::vector<int> taken;
      std::vector<char> dead(5, 0);  // shapes ended in this pass
      size_t pos = 0;
      auto skip_dead = [&] {
        while (pos < expect.size() && dead[static_cast<size_t>(ctx.shape(expect[pos]))]) ++pos;
      };
      for (int j = ord->next(); j >= 0; j = ord->next()) {
        skip_dead();
        ASSERT_LT(pos, expect.size());
        ASSERT_EQ(j, expect[pos]) << "position " << pos;
        ++pos;
        ++compared;
        const int sh = ctx.shape(j);
        if (sh != skip && static_cast<int>(taken.size()) < take) {
          ord->started(j);
          taken.push_back(j);
        } else if (rng.uniform() < 0.5) {  // pass over this job only (a non-caching policy failed)
          ord->skip_job(j);
          ++passed_over;
        } else {  // end the shape, as a failed placement of a caching policy would
          dead[static_cast<size_t>(sh)] = 1;
          ord->skip_shape(sh);
        }
      }
      skip_dead();
      EXPECT_EQ(pos, expect.size()) << "the order stopped early";
      std::erase_if(queue, [&](int j) { return std::find(taken.begin(), taken.end(), j) != taken.end(); });
    }
    EXPECT_GT(compared, 500);
    EXPECT_GT(passed_over, 100);
    EXPECT_GE(rebuilds, 25);
  }
}

}  // namespace
}  // namespace geopipe
