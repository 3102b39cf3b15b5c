// ComposedScheduler (sched/scheduler.h): its shortcuts (failure caching by job shape, the
// return at an unchanged epoch, the incremental priority order) change no decision against a
// scheduler written the obvious way, and the failure cache is used only by placement
// policies that opt in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "sched/scheduler.h"
#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

TEST(Schedulers, ShortcutsChangeNoDecision) {
  const Scenario sc = random_cluster();
  for (double gap_s : {30.0, 300.0}) {
    const std::vector<Job> jobs = shaped_jobs(derive_seed(static_cast<std::uint64_t>(gap_s), "sched-shortcuts"), 160, gap_s);
    for (const PresetInfo& info : presets()) {
      SCOPED_TRACE(std::string(info.name) + " gap " + std::to_string(gap_s));
      auto fast = make_scheduler(info.name, sc.scheduler);
      NaiveScheduler naive(!info.make_ordering(sc.scheduler)->strict(), info.make_placement(sc.scheduler), sc.scheduler);
      const SimResult a = simulate(sc, jobs, *fast, 3), b = simulate(sc, jobs, naive, 3);
      EXPECT_EQ(a.metrics.jobs_completed, 160);
      expect_same_jobs(a.jobs, b.jobs);
      const auto fa = metric_fields(a.metrics), fb = metric_fields(b.metrics);
      for (size_t k = 0; k < fa.size(); ++k) {
        const std::string name = fa[k].name;
        if (!fa[k].deterministic || name == "sched_searches" || name == "sched_search_nodes") continue;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(fa[k].value), std::bit_cast<std::uint64_t>(fb[k].value)) << name;
      }
      // The shortcuts must actually have saved searches on the loaded run (the policies that
      // search at all).
      EXPECT_LE(a.metrics.sched_searches, b.metrics.sched_searches);
      if (gap_s < 100 && b.metrics.sched_searches > 0) {
        EXPECT_LT(a.metrics.sched_searches, b.metrics.sched_searches);
      }
    }
  }
}

// --- the failure cache is opt-in ---------------------------------------------------------------

/// Places even job ids on region 0 (one stage, one GPU each); odd ids fail. Whether it
/// finds a placement depends on the job id, not on its shape: it must not opt in.
class OddIdsFail : public PlacementPolicy {
 public:
  explicit OddIdsFail(bool claim_cacheable) : claim_(claim_cacheable) {}
  Placement place(const SchedContext&, int job, const ClusterView&) override {
    ++calls;
    if (job % 2 == 1) return {};
    return Placement{{0}};
  }
  bool failures_depend_only_on_shape_and_epoch() const override { return claim_; }
  int calls = 0;

 private:
  bool claim_;
};

TEST(ComposedScheduler, FailureCacheOnlyForPoliciesThatOptIn) {
  const Scenario sc = testutil::make_scenario({testutil::make_gpu("gpu")}, {{"only", 0, 8, 0.1}});
  std::vector<Job> jobs;
  for (int k = 0; k < 6; ++k) jobs.push_back(testutil::make_job(k, 0, 1, 1, 4, 100));  // one shape
  jobs = testutil::finalize_jobs(std::move(jobs));
  Context c(sc, jobs);
  ASSERT_EQ(c.ctx.num_shapes, 1);
  const std::vector<int> queue = {0, 1, 2, 3, 4, 5};
  for (bool opt_in : {false, true}) {
    SCOPED_TRACE(opt_in ? "opted in" : "not opted in");
    auto policy = std::make_unique<OddIdsFail>(opt_in);
    OddIdsFail* p = policy.get();
    ComposedScheduler s("test", make_priority_backfill(sc.scheduler), std::move(policy));
    ClusterView view = idle_view(sc.topology, sc.compute, 10.0);
    std::vector<Decision> out;
    s.schedule(c.ctx, WaitingQueue(queue), view, out);
    std::vector<int> started;
    for (const Decision& d : out) started.push_back(d.job);
    if (opt_in) {
      // Job 1 fails first after job 0 started: the whole shape is skipped for the epoch.
      EXPECT_EQ(started, (std::vector<int>{0}));
      EXPECT_EQ(p->calls, 2);
    } else {
      // Every job is asked; the even ones start.
      EXPECT_EQ(started, (std::vector<int>{0, 2, 4}));
      EXPECT_EQ(p->calls, 6);
    }
    // A second call at the same epoch with the remaining queue and no new arrival.
    std::vector<int> rest;
    for (int j : queue)
      if (std::find(started.begin(), started.end(), j) == started.end()) rest.push_back(j);
    const int before = p->calls;
    out.clear();
    s.schedule(c.ctx, WaitingQueue(rest), view, out);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(p->calls - before, opt_in ? 0 : static_cast<int>(rest.size()));
  }
}

}  // namespace
}  // namespace geopipe
