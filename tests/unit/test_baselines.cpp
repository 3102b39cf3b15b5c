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

/// One GPU for the preemptive hand cases: T, the iteration time of the 1-stage job shape used
/// (alone on the GPU), a checkpoint of C = 7T and a restart of R = 30T.
struct OneGpu {
  Scenario sc = one_region_of(1);
  double T = 0, C = 0, R = 0;
  OneGpu() {
    T = run_preset("sjf", sc, finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000)})).jobs[0].mean_iteration_s;
    C = 7 * T;
    R = 30 * T;
    sc.faults.checkpoint_cost_s = C;
    sc.faults.restart_s = R;
  }
};

// srtf on one GPU: A (1000 iterations of T) runs from 0; B (100 iterations) arrives at 10T,
// when A has 990T of work left, more than B's 100T: A is preempted, writes its checkpoint
// (C), B runs from 10T + C to 110T + C, and A, back in the queue after R < 100T, resumes its
// 990 iterations then: it ends at 1100T + C. sjf (non-preemptive) lets A finish first.
TEST(Baselines, SrtfPreemptsALongerJobForAShorterOne) {
  OneGpu g;
  Scenario& sc = g.sc;
  const double T = g.T, C = g.C;
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000), make_job(10 * T, 0, 1, 1, 4, 100)});
  const SimResult r = run_preset("srtf", sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  EXPECT_EQ(r.metrics.preemptions, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_NEAR(r.jobs[1].start_s, 10 * T + C, 1e-9 * T);
  EXPECT_NEAR(r.jobs[1].finish_s, 110 * T + C, 1e-9 * T);
  EXPECT_NEAR(r.jobs[0].finish_s, 1100 * T + C, 1e-9 * T);
  EXPECT_NEAR(r.metrics.checkpoint_gpu_hours, C / 3600, 1e-9);
  const SimResult nonpre = run_preset("sjf", sc, jobs);
  EXPECT_EQ(nonpre.metrics.preemptions, 0);
  EXPECT_NEAR(nonpre.jobs[1].start_s, 1000 * T, 1e-9 * T);
  // A job with more work left than the running one's never preempts it.
  const std::vector<Job> longer = finalize_jobs({make_job(0.0, 0, 1, 1, 4, 100), make_job(10 * T, 0, 1, 1, 4, 1000)});
  const SimResult l = run_preset("srtf", sc, longer);
  EXPECT_EQ(l.metrics.preemptions, 0);
  EXPECT_NEAR(l.jobs[1].start_s, 100 * T, 1e-9 * T);
}

// tiresias on one GPU, one threshold at 100T GPU-s (two queues): A (1000 iterations) runs from
// 0; B (300 iterations) arrives at 50T, while A, in the first queue too and running, keeps its
// GPU. At 100T A's attained service reaches the threshold: it drops to the second queue and B
// preempts it (the scheduler asked to be called then). B runs from 100T + C; at 200T + C it
// drops to the second queue too, where the running job goes first: B ends at 400T + C, and A
// then does its last 900 iterations: 1300T + C.
TEST(Baselines, TiresiasDemotesAJobAtItsThresholdAndANewJobPreemptsIt) {
  OneGpu g;
  Scenario& sc = g.sc;
  const double T = g.T, C = g.C;
  sc.scheduler.tiresias_thresholds_gpu_s = {100 * T};
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000), make_job(50 * T, 0, 1, 1, 4, 300)});
  const SimResult r = run_preset("tiresias", sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  EXPECT_EQ(r.metrics.preemptions, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_NEAR(r.jobs[1].start_s, 100 * T + C, 1e-9 * T);
  EXPECT_NEAR(r.jobs[1].finish_s, 400 * T + C, 1e-9 * T);
  EXPECT_NEAR(r.jobs[0].finish_s, 1300 * T + C, 1e-9 * T);
  // Both in the first queue for good (a threshold above both jobs' service): first come,
  // first served, no preemption.
  sc.scheduler.tiresias_thresholds_gpu_s = {1e6 * T};
  const SimResult fifo = run_preset("tiresias", sc, jobs);
  EXPECT_EQ(fifo.metrics.preemptions, 0);
  EXPECT_NEAR(fifo.jobs[1].start_s, 1000 * T, 1e-9 * T);
}

// tiresias's starvation knob: with K = 2 queues (threshold 100T) and knob 4, A is preempted by
// B at 100T as above; its executed time is its attempt, 100T + C (GPUs held while writing the
// checkpoint count). Back in the queue at 100T + C + R, it returns to the first queue
// 4·(100T + C) later, at P, and preempts B (in the second queue since 200T + C). A resumes at
// P + C and ends 900T later; B, whose own promotion would come only 4·(P − 100T) + R after its
// requeue, more than 900T, waits for it.
TEST(Baselines, TiresiasPromotesAStarvedJob) {
  OneGpu g;
  Scenario& sc = g.sc;
  const double T = g.T, C = g.C, R = g.R;
  sc.scheduler.tiresias_thresholds_gpu_s = {100 * T};
  sc.scheduler.tiresias_promote_knob = 4;
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000), make_job(50 * T, 0, 1, 1, 4, 3000)});
  const SimResult r = run_preset("tiresias", sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  const double P = 100 * T + C + R + 4 * (100 * T + C);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_NEAR(r.jobs[0].finish_s, P + C + 900 * T, 1e-9 * T);
  // B ran from 100T + C to P; what it has left, 3000T − (P − 100T − C), runs after A.
  EXPECT_NEAR(r.jobs[1].finish_s, P + C + 900 * T + 2900 * T - (P - (100 * T + C) - 100 * T), 1e-9 * T);
}

}  // namespace
}  // namespace geopipe
