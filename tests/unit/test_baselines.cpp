// The literature's baselines (docs/model.md, "Literature baselines"): each preset on a hand
// case whose schedule and JCTs follow from its rule alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

/// One region of `gpus` GPUs, no links.
Scenario one_region_of(int gpus) { return make_scenario({make_gpu("gpu")}, {{"only", 0, gpus, 0.1}}); }

// SJF on one GPU, three jobs of one shape arriving together with 300, 100 and 200 iterations of
// the same T: they run shortest first (1, 2, 0), so the JCTs are 100T, 300T, 600T and the mean
// is the shortest-first sum (3·100 + 2·200 + 300)·T / 3; fifo-backfill runs them in arrival
// order: 300T, 400T, 600T.
TEST(Baselines, SjfRunsShortestFirstAndFifoBackfillInArrivalOrder) {
  const Scenario sc = one_region_of(1);
  const std::vector<Job> jobs =
      finalize_jobs({make_job(0.0, 0, 1, 1, 4, 300), make_job(0.0, 0, 1, 1, 4, 100), make_job(0.0, 0, 1, 1, 4, 200)});
  const SimResult sjf = run_preset("sjf", sc, jobs);
  const SimResult fifo = run_preset("fifo-backfill", sc, jobs);
  ASSERT_EQ(sjf.metrics.jobs_completed, 3);
  ASSERT_EQ(fifo.metrics.jobs_completed, 3);
  const double T = sjf.jobs[0].mean_iteration_s;
  ASSERT_GT(T, 0);
  for (const SimResult* r : {&sjf, &fifo})
    for (const JobRecord& j : r->jobs) EXPECT_DOUBLE_EQ(j.mean_iteration_s, T);  // one shape, alone on the GPU
  EXPECT_EQ(sjf.jobs[1].start_s, 0.0);
  EXPECT_DOUBLE_EQ(sjf.jobs[2].start_s, 100 * T);
  EXPECT_DOUBLE_EQ(sjf.jobs[0].start_s, 300 * T);
  EXPECT_DOUBLE_EQ(sjf.jobs[0].finish_s, 600 * T);
  EXPECT_NEAR(sjf.metrics.avg_jct_s, (3 * 100 + 2 * 200 + 300) * T / 3, 1e-12 * 600 * T);
  EXPECT_EQ(fifo.jobs[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(fifo.jobs[1].start_s, 300 * T);
  EXPECT_DOUBLE_EQ(fifo.jobs[2].start_s, 400 * T);
  EXPECT_NEAR(fifo.metrics.avg_jct_s, (300 + 400 + 600) * T / 3, 1e-12 * 600 * T);
}

// fifo-backfill differs from strict FIFO (bace-no-priority: the same placement) exactly by
// backfill: on 8 GPUs, A (6 GPUs, long) runs; B (8 GPUs) cannot start; C (2 GPUs, short) is
// started at its arrival by fifo-backfill and waits behind B under strict FIFO.
TEST(Baselines, FifoBackfillStartsWhatFitsBehindABlockedHead) {
  const Scenario sc = one_region_of(8);
  const std::vector<Job> jobs = finalize_jobs({
      make_job(0.0, 0, 6, 1, 8, 100000),
      make_job(1.0, 0, 8, 1, 8, 1000),
      make_job(2.0, 0, 2, 1, 8, 100),
  });
  const SimResult bf = run_preset("fifo-backfill", sc, jobs);
  const SimResult strict = run_preset("bace-no-priority", sc, jobs);
  ASSERT_EQ(bf.metrics.jobs_completed, 3);
  ASSERT_EQ(strict.metrics.jobs_completed, 3);
  EXPECT_EQ(bf.jobs[2].start_s, 2.0);
  EXPECT_EQ(bf.jobs[1].start_s, bf.jobs[0].finish_s);
  EXPECT_GE(strict.jobs[2].start_s, strict.jobs[1].finish_s);
  // A later arrival never starts before an earlier one that fits the same free GPUs: with two
  // jobs of C's shape waiting, the earlier starts first.
  std::vector<Job> two = jobs;
  two.push_back(make_job(3.0, 0, 2, 1, 8, 100));
  two = finalize_jobs(two);
  const SimResult bf2 = run_preset("fifo-backfill", sc, two);
  EXPECT_EQ(bf2.jobs[2].start_s, 2.0);
  EXPECT_GE(bf2.jobs[3].start_s, bf2.jobs[2].finish_s);
}

}  // namespace
}  // namespace geopipe
