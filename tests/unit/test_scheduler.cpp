// ComposedScheduler (sched/scheduler.h): its shortcuts (failure caching by job shape, the
// return at an unchanged epoch, the incremental priority order) change no decision against a
// scheduler written the obvious way, and the failure cache is used only by placement
// policies that opt in; the search policies' relaxation decided once per job shape changes no
// decision against deciding it for every job.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/pathfinder.h"
#include "sched/scheduler.h"
#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

// random_cluster() whose links follow capacity series over the span of 160 arrivals `gap_s`
// apart: drops, an outage and recoveries in every direction, wrapped. A change of capacity
// starts a new epoch (a fall too: it may relax a search policy's constraints), so the cached
// failures expire as the obvious scheduler's re-searches would find.
Scenario with_capacity_series(Scenario sc, double gap_s) {
  const double u = 160 * gap_s / 10;
  const std::vector<double> t = {0, 1.0 * u, 1.7 * u, 3.1 * u, 4.0 * u, 5.5 * u, 6.2 * u};
  const std::vector<double> f = {1.0, 0.3, 0.0, 1.0, 0.15, 0.6, 0.05};  // of the constant capacity
  const int R = sc.topology.num_regions();
  int k = 0;
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b) {
      Link& l = sc.topology.link(a, b);
      if (a == b || l.capacity_bytes_per_s <= 0) continue;
      std::vector<double> v;
      for (std::size_t i = 0; i < f.size(); ++i) v.push_back(l.capacity_bytes_per_s * f[(i + static_cast<std::size_t>(k)) % f.size()]);
      l.capacity_series = std::make_shared<const StepSeries>(t, v, SeriesEnd::kWrap, true);
      l.capacity_bytes_per_s = l.capacity_series->max_value();
      ++k;
    }
  return sc;
}

TEST(Schedulers, ShortcutsChangeNoDecision) {
  for (double gap_s : {30.0, 300.0}) {
    for (bool series : {false, true}) {
      const Scenario sc = series ? with_capacity_series(random_cluster(), gap_s) : random_cluster();
      const std::vector<Job> jobs = shaped_jobs(derive_seed(static_cast<std::uint64_t>(gap_s), "sched-shortcuts"), 160, gap_s);
      for (const PresetInfo& info : presets()) {
        SCOPED_TRACE(std::string(info.name) + " gap " + std::to_string(gap_s) + (series ? " with capacity series" : ""));
        if (info.make_whole) continue;  // the preemptive baselines: tests/unit/test_baselines.cpp
        auto fast = make_scheduler(info.name, sc.scheduler);
        // fifo-backfill and sjf are the dynamic priority with their own weights (ordering.h).
        SchedulerParams order_prm = sc.scheduler;
        if (info.name == "fifo-backfill" || info.name == "sjf") {
          order_prm.priority_runtime_weight = info.name == "sjf" ? 1 : 0;
          order_prm.priority_network_weight = order_prm.priority_aging = 0;
        }
        NaiveScheduler naive(!info.make_ordering(sc.scheduler)->strict(), info.make_placement(sc.scheduler), order_prm);
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

// --- the relaxation is decided once per shape ------------------------------------------------

/// The relaxation of docs/model.md, "Relaxations", written the obvious way for one profile:
/// (max_blocks, stall_tolerant) on the idle cluster at `now_s`.
std::pair<int, bool> obvious_relaxation(const Scenario& sc, const JobProfile& p, double now_s, bool stall_free,
                                        BandwidthModel bw) {
  const ClusterView idle = idle_view(sc.topology, sc.compute, now_s);
  const int K1 = sc.scheduler.max_region_switches + 1, R = idle.regions();
  Pathfinder pf;
  auto found = [&](bool sf, int mb) {
    SearchSpec s;
    s.stall_free = sf;
    s.bandwidth = bw;
    s.max_blocks = mb;
    s.stop_at_first = true;
    return pf.search(p, idle, s).found;
  };
  if (found(stall_free, K1)) return {K1, false};
  if (found(stall_free, R)) return {R, false};
  if (stall_free && found(false, K1)) return {K1, true};
  return {R, stall_free};
}

TEST(Schedulers, RelaxationPerShapeChangesNoDecision) {
  // At most one region per job (max_region_switches = 0) on the three regions of random_cluster
  // (8, 16 and 8 GPUs; the east-north link below every job's β): 4-GPU jobs keep the limit,
  // 20- and 24-GPU jobs need two or three regions, and some of them no stall-free path.
  Scenario sc = random_cluster();
  sc.scheduler.max_region_switches = 0;
  const int shapes[6][4] = {{0, 2, 2, 8}, {1, 4, 1, 16}, {0, 5, 4, 8}, {1, 10, 2, 4}, {0, 6, 4, 12}, {1, 12, 2, 8}};
  Rng rng(derive_seed(7, "relaxation-per-shape"));
  std::vector<Job> jobs;
  double t = 0;
  for (int k = 0; k < 150; ++k) {
    t += rng.exponential(1.0 / 120.0);
    const int* sh = shapes[rng.below(6)];
    const auto iters = static_cast<std::int64_t>(std::llround(rng.bounded_pareto(1.1, 200, 20000)));
    jobs.push_back(make_job(t, sh[0], sh[1], sh[2], sh[3], iters));
  }
  jobs = finalize_jobs(std::move(jobs));

  // The claim the cache rests on, checked per job: a job's own profile (its iterations) at its
  // own arrival time gives its shape's relaxation; and the shapes' relaxations differ (so a
  // cache keyed wrongly would change decisions below).
  Context c(sc, jobs);
  ASSERT_EQ(c.ctx.num_shapes, 6);
  for (const auto& [stall_free, bw] : {std::pair{true, BandwidthModel::kExpected}, std::pair{false, BandwidthModel::kBlind},
                                       std::pair{false, BandwidthModel::kExpected}}) {
    std::vector<std::pair<int, bool>> of_shape(6, {-1, false});
    for (const Job& j : jobs) {
      const auto rx = obvious_relaxation(sc, c.profiles[static_cast<size_t>(j.id)], j.arrival_s, stall_free, bw);
      auto& first = of_shape[static_cast<size_t>(c.shapes[static_cast<size_t>(j.id)])];
      if (first.first < 0) first = rx;
      EXPECT_EQ(rx, first) << "job " << j.id;
    }
    std::sort(of_shape.begin(), of_shape.end());
    const auto distinct = std::unique(of_shape.begin(), of_shape.end()) - of_shape.begin();
    EXPECT_GE(distinct, stall_free ? 3 : 2) << "stall_free " << stall_free;
  }

  for (SearchPolicyKind kind : {SearchPolicyKind::kPathfinderCostMin, SearchPolicyKind::kPathfinderMinTime,
                                SearchPolicyKind::kCostMinBlind, SearchPolicyKind::kDelayFirst})
    for (bool priority : {true, false}) {
      SCOPED_TRACE("kind " + std::to_string(static_cast<int>(kind)) + (priority ? " priority" : " fifo"));
      auto ordering = [&] { return priority ? make_priority_backfill(sc.scheduler) : make_fifo_strict(sc.scheduler); };
      ComposedScheduler per_shape("per-shape", ordering(), make_search_policy(kind, sc.scheduler, RelaxationScope::kPerShape));
      ComposedScheduler per_job("per-job", ordering(), make_search_policy(kind, sc.scheduler, RelaxationScope::kPerJob));
      const SimResult a = simulate(sc, jobs, per_shape, 5), b = simulate(sc, jobs, per_job, 5);
      EXPECT_EQ(a.metrics.jobs_completed, 150);
      expect_same_jobs(a.jobs, b.jobs);
      expect_same_metrics(a.metrics, b.metrics);
      // Jobs ran both within the switch limit and beyond it (relaxed).
      int one_region = 0, more = 0;
      for (const JobRecord& r : a.jobs) {
        const bool single = std::all_of(r.stage_region.begin(), r.stage_region.end(),
                                        [&](int x) { return x == r.stage_region.front(); });
        (single ? one_region : more) += 1;
      }
      EXPECT_GT(one_region, 0);
      EXPECT_GT(more, 0);
    }
}

// The same for flexible jobs (data_parallel = 0, docs/model.md "Choosing D"): each variant has a
// shape of its own (SchedContext::with_variant), whose relaxation kPerShape caches and kPerJob
// decides afresh; the two give the same decisions. The jobs (model, slots, g, m): "wide" on 12
// slots of 2 GPUs has a first variant (D = 1, 24 GPUs) that no region holds, so it is relaxed to
// several regions, and variants (D = 2, 4) whose replicas keep the one-region limit; a cache
// keyed by the job alone would hand them the first variant's relaxation.
TEST(Schedulers, RelaxationPerShapeChangesNoDecisionForFlexibleJobs) {
  Scenario sc = random_cluster();
  sc.scheduler.max_region_switches = 0;
  const int shapes[4][4] = {{1, 12, 2, 8}, {0, 8, 2, 8}, {1, 6, 1, 8}, {1, 12, 2, 4}};
  Rng rng(derive_seed(8, "relaxation-per-shape-flexible"));
  std::vector<Job> jobs;
  double t = 0;
  for (int k = 0; k < 80; ++k) {
    t += rng.exponential(1.0 / 120.0);
    const int* sh = shapes[rng.below(4)];
    const auto iters = static_cast<std::int64_t>(std::llround(rng.bounded_pareto(1.1, 200, 20000)));
    Job j = make_job(t, sh[0], sh[1], sh[2], sh[3], iters);
    j.data_parallel = 0;
    jobs.push_back(j);
  }
  jobs = finalize_jobs(std::move(jobs));
  int several = 0;
  for (SearchPolicyKind kind : {SearchPolicyKind::kPathfinderCostMin, SearchPolicyKind::kPathfinderMinTime,
                                SearchPolicyKind::kCostMinBlind, SearchPolicyKind::kDelayFirst}) {
    SCOPED_TRACE("kind " + std::to_string(static_cast<int>(kind)));
    ComposedScheduler per_shape("per-shape", make_priority_backfill(sc.scheduler),
                                make_search_policy(kind, sc.scheduler, RelaxationScope::kPerShape));
    ComposedScheduler per_job("per-job", make_priority_backfill(sc.scheduler),
                              make_search_policy(kind, sc.scheduler, RelaxationScope::kPerJob));
    const SimResult a = simulate(sc, jobs, per_shape, 5), b = simulate(sc, jobs, per_job, 5);
    EXPECT_EQ(a.metrics.jobs_completed, 80);
    expect_same_jobs(a.jobs, b.jobs);
    expect_same_metrics(a.metrics, b.metrics);
    for (const JobRecord& r : a.jobs) several += r.data_parallel > 1;
  }
  EXPECT_GT(several, 0);  // some jobs ran as several replicas: variants beyond the first were placed
}

}  // namespace
}  // namespace geopipe
