// Shared test fixtures and independent references for the scheduler tests (test_presets,
// test_scheduler, test_ordering): a random three-region cluster and job streams, bit-exact
// comparisons of results, an over-allocation check from the job records, and the obvious
// implementations of the priority order and of a scheduler that the fast ones must match.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/rng.h"
#include "scenario_builders.h"
#include "sched/ordering.h"
#include "sched/placement_policy.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/scheduler_api.h"

namespace geopipe::schedtest {

using testutil::finalize_jobs;
using testutil::make_gpu;
using testutil::make_job;
using testutil::make_scenario;
using testutil::RegionSpec;
using testutil::set_link;
using testutil::tiny_llm;

inline SimResult run_preset(const std::string& preset, const Scenario& sc, const std::vector<Job>& jobs,
                            std::uint64_t seed = 1, const SimOptions& opt = {}) {
  auto sched = make_scheduler(preset, sc.scheduler);
  return simulate(sc, jobs, *sched, seed, opt);
}

/// Three regions (two GPU types, different prices, one region large enough for any job),
/// full mesh with one link below the typical stall-free demand, 20 random jobs of two models.
inline Scenario random_cluster() {
  Scenario sc = make_scenario({make_gpu("fast", 300, 80, 700, 100), make_gpu("slow", 100, 80, 400, 60)},
                              {{"east", 0, 8, 0.30}, {"west", 1, 16, 0.10}, {"north", 0, 8, 0.15, 1.2}},
                              {tiny_llm("tiny", 8), tiny_llm("wide", 12, 2048, 32000, 1024)});
  set_link(sc.topology, 0, 1, 5e9, 0.030);
  set_link(sc.topology, 0, 2, 2e8, 0.010);  // below β of every job
  set_link(sc.topology, 1, 2, 1.5e9, 0.070);
  return sc;
}

inline std::vector<Job> random_jobs(std::uint64_t seed, int n) {
  Rng rng(seed);
  std::vector<Job> jobs;
  double t = 0;
  for (int k = 0; k < n; ++k) {
    t += rng.exponential(1.0 / 300.0);  // one job per 5 min on average
    const int model = static_cast<int>(rng.below(2));
    const int S = 2 + static_cast<int>(rng.below(7));       // 2..8 (<= layers of both)
    const int g = 1 + static_cast<int>(rng.below(2));       // total GPUs <= 16: fits "west"
    const int m = 4 + static_cast<int>(rng.below(13));      // 4..16
    const auto iters = static_cast<std::int64_t>(std::llround(rng.bounded_pareto(1.1, 200, 20000)));
    jobs.push_back(make_job(t, model, S, g, m, iters));
  }
  return finalize_jobs(std::move(jobs));
}

/// Every deterministic metric bit for bit, but the one named `except` (if any).
inline void expect_same_metrics(const ScenarioMetrics& a, const ScenarioMetrics& b, std::string_view except = {}) {
  const auto fa = metric_fields(a), fb = metric_fields(b);
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t k = 0; k < fa.size(); ++k) {
    if (!fa[k].deterministic || fa[k].name == except) continue;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(fa[k].value), std::bit_cast<std::uint64_t>(fb[k].value))
        << fa[k].name << ": " << fa[k].value << " vs " << fb[k].value;
  }
}

inline void expect_same_jobs(const std::vector<JobRecord>& a, const std::vector<JobRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  for (size_t k = 0; k < a.size(); ++k) {
    SCOPED_TRACE("job " + std::to_string(k));
    EXPECT_EQ(a[k].id, b[k].id);
    EXPECT_EQ(a[k].model, b[k].model);
    EXPECT_EQ(a[k].stages, b[k].stages);
    EXPECT_EQ(a[k].gpus_per_stage, b[k].gpus_per_stage);
    EXPECT_EQ(a[k].stage_region, b[k].stage_region);
    EXPECT_EQ(bits(a[k].arrival_s), bits(b[k].arrival_s));
    EXPECT_EQ(bits(a[k].start_s), bits(b[k].start_s));
    EXPECT_EQ(bits(a[k].finish_s), bits(b[k].finish_s));
    EXPECT_EQ(bits(a[k].iterations), bits(b[k].iterations));
    EXPECT_EQ(bits(a[k].mean_iteration_s), bits(b[k].mean_iteration_s));
    EXPECT_EQ(bits(a[k].first_iteration_s), bits(b[k].first_iteration_s));
    EXPECT_EQ(bits(a[k].energy_j), bits(b[k].energy_j));
    EXPECT_EQ(bits(a[k].electricity_cost_usd), bits(b[k].electricity_cost_usd));
    EXPECT_EQ(bits(a[k].egress_cost_usd), bits(b[k].egress_cost_usd));
    EXPECT_EQ(bits(a[k].carbon_g), bits(b[k].carbon_g));
    EXPECT_EQ(bits(a[k].cross_region_bytes), bits(b[k].cross_region_bytes));
  }
}

/// Independent over-allocation check from the job records: at every start time, the GPUs of
/// the jobs running in each region (start <= t < finish) never exceed its count.
inline void expect_no_overallocation(const Scenario& sc, const std::vector<JobRecord>& recs) {
  const int R = sc.topology.num_regions();
  for (const JobRecord& at : recs) {
    if (at.start_s < 0) continue;
    const double t = at.start_s;
    std::vector<int> used(static_cast<size_t>(R), 0);
    for (const JobRecord& r : recs)
      if (r.start_s >= 0 && r.start_s <= t && (r.finish_s < 0 || t < r.finish_s))
        for (int reg : r.stage_region) used[static_cast<size_t>(reg)] += r.gpus_per_stage;
    for (int reg = 0; reg < R; ++reg)
      EXPECT_LE(used[static_cast<size_t>(reg)], sc.topology.regions[static_cast<size_t>(reg)].gpu_count)
          << "region " << reg << " at t=" << t;
  }
}

/// Jobs of only five shapes (so shapes repeat and their failures are shared) arriving every
/// `gap_s` on average: with a short gap the queue grows long and backfill reorders it.
inline std::vector<Job> shaped_jobs(std::uint64_t seed, int n, double gap_s) {
  Rng rng(seed);
  const int shapes[5][4] = {{0, 2, 1, 8}, {0, 4, 2, 8}, {1, 6, 1, 16}, {1, 8, 2, 4}, {0, 8, 1, 12}};
  std::vector<Job> jobs;
  double t = 0;
  for (int k = 0; k < n; ++k) {
    t += rng.exponential(1.0 / gap_s);
    const int* sh = shapes[rng.below(5)];
    const auto iters = static_cast<std::int64_t>(std::llround(rng.bounded_pareto(1.1, 200, 20000)));
    jobs.push_back(make_job(t, sh[0], sh[1], sh[2], sh[3], iters));
  }
  return finalize_jobs(std::move(jobs));
}


/// The dynamic-priority order written the obvious way (ordering.h): score every waiting job
/// and sort the whole queue by (score, arrival, id). The reference for the incremental order.
inline std::vector<int> naive_priority_order(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView& view,
                                      const SchedulerParams& prm) {
  const Topology& topo = *ctx.topo;
  const int R = view.regions();
  double res_sum = 0;
  int res_n = 0, max_free = 0;
  for (int a = 0; a < R; ++a) {
    max_free = std::max(max_free, view.free_gpus[static_cast<size_t>(a)]);
    for (int b = 0; b < R; ++b)
      if (a != b && topo.link(a, b).capacity_bytes_per_s > 0) {
        res_sum += view.residual_bw(a, b);
        ++res_n;
      }
  }
  const double mean_res = res_n ? res_sum / res_n : 0.0;
  struct Item {
    double score, arrival;
    int job;
  };
  std::vector<Item> items;
  for (int j : queue) {
    // R̂ and β on the fastest GPU type present (ordering.h).
    const JobProfile& p = ctx.profile(j);
    double best_t = std::numeric_limits<double>::infinity();
    int best_r = 0;
    for (int r = 0; r < topo.num_regions(); ++r) {
      if (topo.regions[static_cast<size_t>(r)].gpu_count <= 0) continue;
      const double t = ideal_iteration_time(p, topo.gpu_of(r), *ctx.compute);
      if (t < best_t) {
        best_t = t;
        best_r = r;
      }
    }
    const double runtime = p.iterations * best_t;
    double fmin = std::numeric_limits<double>::infinity();
    for (int i = 0; i < p.stages; ++i) fmin = std::min(fmin, forward_time(p, i, topo.gpu_of(best_r), *ctx.compute));
    const double beta = p.activation_bytes / fmin;
    const Job& job = ctx.job(j);
    const double pressure = job.total_gpus() > max_free ? beta / std::max(mean_res, 1.0) : 0.0;
    const double wait = view.now_s - job.arrival_s;
    items.push_back({prm.priority_runtime_weight * runtime * (1.0 + prm.priority_network_weight * pressure) -
                         prm.priority_aging * wait,
                     job.arrival_s, j});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.job < b.job;
  });
  std::vector<int> order;
  for (const auto& it : items) order.push_back(it.job);
  return order;
}

/// A scheduler written the obvious way, as the reference for ComposedScheduler's shortcuts
/// (failure caching by job shape, the return at an unchanged epoch, the incremental priority
/// order): every call orders the whole queue (FIFO, or the documented priority score sorted
/// with std::sort) and asks the placement policy about every job in that order.
class NaiveScheduler final : public Scheduler {
 public:
  NaiveScheduler(bool priority, std::unique_ptr<PlacementPolicy> pl, const SchedulerParams& prm)
      : priority_(priority), placement_(std::move(pl)), prm_(prm) {}
  std::string_view name() const override { return "naive"; }
  SearchEffort effort() const override { return placement_->effort(); }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    const std::vector<int> order = priority_ ? naive_priority_order(ctx, queue, view, prm_) : queue.to_vector();
    for (int j : order) {
      Placement pl = placement_->place(ctx, j, view);
      if (pl.empty()) {
        if (!priority_) break;
        continue;
      }
      view.commit(ctx.profile(j), pl);
      out.push_back({j, std::move(pl)});
    }
  }

 private:
  bool priority_;
  std::unique_ptr<PlacementPolicy> placement_;
  SchedulerParams prm_;
};


/// The SchedContext the engine would build for `jobs` (profiles and shapes owned by the caller).
struct Context {
  std::vector<JobProfile> profiles;
  std::vector<int> shapes;
  SchedContext ctx;
  Context(const Scenario& sc, const std::vector<Job>& jobs) {
    for (const Job& j : jobs) profiles.push_back(testutil::profile_of(sc, j));
    ctx.topo = &sc.topology;
    ctx.compute = &sc.compute;
    ctx.jobs = &jobs;
    ctx.profiles = &profiles;
    shapes = job_shapes(jobs, ctx.num_shapes);
    ctx.shapes = &shapes;
  }
};

}  // namespace geopipe::schedtest
