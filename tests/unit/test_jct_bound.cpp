// The lower bound on the mean JCT (sim/jct_bound.h, docs/model.md "Lower bound on the mean
// JCT"): hand cases of the SRPT relaxation and of max(LB1, LB2), a property against FIFO on the
// same machine, and the metric through the accumulator. That every preset's avg_jct_s is at
// least the bound on random scenarios is checked by test_no_job_left_behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "model/rng.h"
#include "sim/jct_bound.h"
#include "sim/metrics_accumulator.h"

namespace geopipe {
namespace {

using V = std::vector<double>;
using G = std::vector<int>;

TEST(JctBound, TwoJobsOnOneGpuQueueInTheRelaxationToo) {
  // (a) G = 1, two 1-GPU jobs at 0 with T = 1 and 2: SRPT runs the short one first, C = 1 and 3
  // → mean 2; LB1 = 1.5.
  const JctBound b = jct_lower_bound(V{0, 0}, G{1, 1}, V{1, 2}, 1);
  EXPECT_DOUBLE_EQ(b.mean_alone_s, 1.5);
  EXPECT_DOUBLE_EQ(b.srpt_s, 2.0);
  EXPECT_DOUBLE_EQ(b.bound_s, 2.0);
  // Listed the other way round: the same.
  EXPECT_DOUBLE_EQ(jct_lower_bound(V{0, 0}, G{1, 1}, V{2, 1}, 1).bound_s, 2.0);
}

TEST(JctBound, JobsSideBySideAreBoundedByTheirAloneTimes) {
  // (b) G = 2, the same jobs: the relaxation serves w = 1 and 2 at rate 2, C = 0.5 and 1.5 → mean
  // 1.0, below LB1 = 1.5 (the relaxation may serve a 1-GPU job at rate 2).
  const JctBound b = jct_lower_bound(V{0, 0}, G{1, 1}, V{1, 2}, 2);
  EXPECT_DOUBLE_EQ(b.mean_alone_s, 1.5);
  EXPECT_DOUBLE_EQ(b.srpt_s, 1.0);
  EXPECT_DOUBLE_EQ(b.bound_s, 1.5);
}

TEST(JctBound, AShorterArrivalPreemptsInTheRelaxation) {
  // (c) G = 1: A (T = 4) at 0, B (T = 1) at 1, C (T = 2) at 2. SRPT: A on [0, 1) (3 left); B
  // (1 < 3) preempts it, done at 2 (flow 1); C (2 < 3) on [2, 4) (flow 2); A on [4, 7) (flow 7).
  // Mean (7 + 1 + 2) / 3 = 10/3; LB1 = 7/3.
  const JctBound b = jct_lower_bound(V{0, 1, 2}, G{1, 1, 1}, V{4, 1, 2}, 1);
  EXPECT_DOUBLE_EQ(b.mean_alone_s, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(b.srpt_s, 10.0 / 3.0);
  EXPECT_DOUBLE_EQ(b.bound_s, 10.0 / 3.0);
  // Work in GPU-seconds: a 4-GPU job of T = 1 on G = 4 is w = 4, served at rate 4 in 1 s; with a
  // 2-GPU job of T = 1 (w = 2) arriving at 0.5 it has 2 left, a tie, the lower index (A) first:
  // A done at 1 (flow 1), B at 1.5 (flow 1); LB1 = 1, LB2 = 1.
  const JctBound t = jct_lower_bound(V{0, 0.5}, G{4, 2}, V{1, 1}, 4);
  EXPECT_DOUBLE_EQ(t.srpt_s, 1.0);
  EXPECT_DOUBLE_EQ(t.bound_s, 1.0);
}

TEST(JctBound, IdleGapsAndNoJobs) {
  // Jobs far apart never wait: each flow is w / G; G = 2, w = 2·3 and 1·4 → 3 and 2; LB1 = 3.5.
  const JctBound b = jct_lower_bound(V{0, 100}, G{2, 1}, V{3, 4}, 2);
  EXPECT_DOUBLE_EQ(b.srpt_s, 2.5);
  EXPECT_DOUBLE_EQ(b.bound_s, 3.5);
  const JctBound none = jct_lower_bound(V{}, G{}, V{}, 8);
  EXPECT_EQ(none.mean_alone_s, 0.0);
  EXPECT_EQ(none.srpt_s, 0.0);
  EXPECT_EQ(none.bound_s, 0.0);
}

// FIFO on the same machine (each job in release order at full speed) is a feasible schedule of
// the relaxation, so SRPT's mean flow time is no larger; and the relaxation of one job is w / G.
TEST(JctBound, SrptIsNoWorseThanFifoOnRandomInstances) {
  Rng rng(2026);
  for (int k = 0; k < 500; ++k) {
    const auto n = static_cast<std::size_t>(1 + rng.below(30));
    V release(n), work(n);
    for (std::size_t j = 0; j < n; ++j) {
      release[j] = std::floor(rng.uniform() * 50.0) * (rng.below(4) == 0 ? 0.0 : 1.0);  // ties
      work[j] = 0.5 + rng.uniform() * 20.0;
    }
    const double speed = 1.0 + static_cast<double>(rng.below(8));
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return release[a] < release[b]; });
    double t = 0, fifo = 0;
    for (std::size_t j : order) {
      t = std::max(t, release[j]) + work[j] / speed;
      fifo += t - release[j];
    }
    fifo /= static_cast<double>(n);
    const double srpt = srpt_mean_flow_time_s(release, work, speed);
    EXPECT_LE(srpt, fifo * (1 + 1e-12)) << "instance " << k;
    double least = 0;  // no job is served faster than alone at full speed
    for (double w : work) least += w / speed;
    EXPECT_GE(srpt, least / static_cast<double>(n) * (1 - 1e-12)) << "instance " << k;
  }
}

TEST(JctBound, TheMetricCoversEveryJobOrIsNaN) {
  // Through the accumulator: G = 16 GPUs (two regions of 8). Two 16-GPU jobs of T_alone = 100 at
  // 0: the relaxation runs them one after the other, flows 100 and 200 → 150 ≥ LB1 = 100.
  Topology topo;
  for (int k = 0; k < 2; ++k) {
    Region r;
    r.name = k == 0 ? "a" : "b";
    r.gpu_count = 8;
    topo.regions.push_back(r);
  }
  topo.reset_links();
  auto job = [](double arrival, double finish, int gpus, double alone) {
    JobRecord r;
    r.arrival_s = arrival;
    r.start_s = arrival;
    r.finish_s = finish;
    r.gpus = gpus;
    r.alone_s = alone;
    return r;
  };
  std::vector<JobRecord> recs = {job(0, 100, 16, 100), job(0, 200, 16, 100)};
  MetricsAccumulator a(topo);
  ScenarioMetrics m = a.finish(recs, SearchEffort{}, 0.0);
  EXPECT_DOUBLE_EQ(m.jct_lower_bound_s, 150.0);
  EXPECT_DOUBLE_EQ(m.avg_jct_s, 150.0);  // this schedule attains it
  // Under the balanced layer split T_alone bounds no run time: NaN.
  MetricsAccumulator balanced(topo, false);
  EXPECT_TRUE(std::isnan(balanced.finish(recs, SearchEffort{}, 0.0).jct_lower_bound_s));
  // A job that did not finish, or has no T_alone (records built by hand): NaN, not a bound over
  // the others.
  recs.push_back(job(0, -1, 1, 100));
  MetricsAccumulator b(topo);
  EXPECT_TRUE(std::isnan(b.finish(recs, SearchEffort{}, 0.0).jct_lower_bound_s));
  recs.back() = job(0, 50, 1, 0);
  MetricsAccumulator c(topo);
  EXPECT_TRUE(std::isnan(c.finish(recs, SearchEffort{}, 0.0).jct_lower_bound_s));
  // No job: 0, as avg_jct_s.
  std::vector<JobRecord> empty;
  MetricsAccumulator d(topo);
  EXPECT_EQ(d.finish(empty, SearchEffort{}, 0.0).jct_lower_bound_s, 0.0);
}

}  // namespace
}  // namespace geopipe
