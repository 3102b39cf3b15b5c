// gavel-maxmin (docs/model.md, "Literature baselines"): its linear program (GLPK through
// sched/linear_program.h), its placement classes and max-min allocation on hand-solved cases,
// and its rounds on one GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sched/gavel.h"
#include "sched/linear_program.h"
#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

// max x + y s.t. x + 2y <= 4, 3x + y <= 6: the vertex where both bind, x = 8/5, y = 6/5.
TEST(LinearProgram, SolvesATwoVariableProgramAtItsVertex) {
  LinearProgram lp;
  const int x = lp.add_variable(1.0), y = lp.add_variable(1.0);
  lp.add_row({{x, 1.0}, {y, 2.0}}, -LinearProgram::kInf, 4.0);
  lp.add_row({{x, 3.0}, {y, 1.0}}, -LinearProgram::kInf, 6.0);
  const LinearProgram::Solution s = lp.maximize();
  ASSERT_TRUE(s.optimal) << s.status;
  EXPECT_NEAR(s.x[0], 1.6, 1e-12);
  EXPECT_NEAR(s.x[1], 1.2, 1e-12);
  EXPECT_NEAR(s.objective, 2.8, 1e-12);
  // A second objective over the same rows: max x alone reaches x = 2 (3x <= 6, y = 0).
  lp.set_objective({1.0, 0.0});
  EXPECT_NEAR(lp.maximize().objective, 2.0, 1e-12);
}

TEST(LinearProgram, ReportsInfeasibleAndUnboundedPrograms) {
  LinearProgram inf;
  const int x = inf.add_variable(1.0);
  inf.add_row({{x, 1.0}}, 2.0, LinearProgram::kInf);
  inf.add_row({{x, 1.0}}, -LinearProgram::kInf, 1.0);
  const LinearProgram::Solution a = inf.maximize();
  EXPECT_FALSE(a.optimal);
  EXPECT_EQ(a.status, "infeasible");
  LinearProgram unb;
  const int y = unb.add_variable(1.0);
  unb.add_row({{y, 1.0}}, 0.0, LinearProgram::kInf);
  const LinearProgram::Solution b = unb.maximize();
  EXPECT_FALSE(b.optimal);
  EXPECT_EQ(b.status, "unbounded");
  EXPECT_THROW(unb.add_row({{5, 1.0}}, 0.0, 1.0), std::invalid_argument);
}

TEST(Gavel, PlacementClassesAreRegionsPairsAndTheWholeCluster) {
  EXPECT_EQ(placement_classes(1), (std::vector<std::vector<int>>{{0}}));
  EXPECT_EQ(placement_classes(2), (std::vector<std::vector<int>>{{0}, {1}, {0, 1}}));
  EXPECT_EQ(placement_classes(3),
            (std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}}));
  EXPECT_EQ(placement_classes(6).size(), 6u + 15u + 1u);
}

/// A problem of `jobs` jobs, `classes` classes = regions, each job on 1 GPU of its class.
MaxMinProblem one_gpu_jobs(int jobs, std::vector<double> throughput, std::vector<double> capacity) {
  MaxMinProblem p;
  p.jobs = jobs;
  p.classes = p.regions = static_cast<int>(capacity.size());
  p.throughput = std::move(throughput);
  p.capacity = std::move(capacity);
  p.gpus.assign(static_cast<size_t>(p.jobs * p.classes * p.regions), 0.0);
  for (int m = 0; m < p.jobs; ++m)
    for (int c = 0; c < p.classes; ++c)
      if (p.throughput[static_cast<size_t>(m * p.classes + c)] > 0)
        p.gpus[static_cast<size_t>((m * p.classes + c) * p.regions + c)] = 1.0;
  return p;
}

// Two jobs, one GPU: each gets half of the time (t* = 1/2).
TEST(Gavel, TwoJobsShareOneGpuEqually) {
  const MaxMinAllocation a = solve_maxmin(one_gpu_jobs(2, {1.0, 1.0}, {1.0}));
  ASSERT_TRUE(a.ok) << a.status;
  EXPECT_NEAR(a.min_share, 0.5, 1e-9);
  EXPECT_NEAR(a.x[0], 0.5, 1e-9);
  EXPECT_NEAR(a.x[1], 0.5, 1e-9);
}

// Heterogeneity: regions A and B of one GPU each; job 0 runs 2 it/s on A and 1 on B, job 1
// 1 it/s on both. Normalised by its best class, job 0's share is (2x_0A + x_0B)/2 and job 1's
// x_1A + x_1B. Giving A to job 0 and B to job 1 reaches t* = 1 (both at their best speed); it
// is the only allocation that does (job 0 at 1 needs x_0A = 1). An equal split of each GPU,
// the heterogeneity-agnostic answer, gives job 0 only 3/4.
TEST(Gavel, HeterogeneityAwareAllocationGivesEachJobWhereItRunsBest) {
  const MaxMinAllocation a = solve_maxmin(one_gpu_jobs(2, {2.0, 1.0, 1.0, 1.0}, {1.0, 1.0}));
  ASSERT_TRUE(a.ok) << a.status;
  EXPECT_NEAR(a.min_share, 1.0, 1e-9);
  EXPECT_NEAR(a.x[0], 1.0, 1e-9);  // job 0 on A
  EXPECT_NEAR(a.x[1], 0.0, 1e-9);
  EXPECT_NEAR(a.x[2], 0.0, 1e-9);
  EXPECT_NEAR(a.x[3], 1.0, 1e-9);  // job 1 on B
}

// The second stage fills what the max-min optimum leaves: jobs 0 and 1 run only on A (1 GPU),
// job 2 only on B (2 GPUs): t* = 1/2 from A, and job 2, which any X_2B in [1/2, 1] serves at
// the optimum, gets all of its time on B.
TEST(Gavel, SecondStageGivesSpareCapacityAway) {
  const MaxMinAllocation a = solve_maxmin(one_gpu_jobs(3, {1.0, 0.0, 1.0, 0.0, 0.0, 1.0}, {1.0, 2.0}));
  ASSERT_TRUE(a.ok) << a.status;
  EXPECT_NEAR(a.min_share, 0.5, 1e-9);
  EXPECT_NEAR(a.x[0] + a.x[2], 1.0, 1e-9);
  EXPECT_NEAR(a.x[5], 1.0, 1e-9);
  // A job that runs nowhere is left out (all its X are 0), the others are solved.
  const MaxMinAllocation b = solve_maxmin(one_gpu_jobs(2, {1.0, 0.0}, {1.0}));
  ASSERT_TRUE(b.ok);
  EXPECT_NEAR(b.x[0], 1.0, 1e-9);
  EXPECT_EQ(b.x[1], 0.0);
  EXPECT_FALSE(solve_maxmin(one_gpu_jobs(1, {0.0}, {1.0})).ok);
}

/// One region of one GPU, the 1-stage shape's iteration time T alone on it, a checkpoint of
/// C = 7T and a restart of 30T.
struct OneGpuGavel {
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"only", 0, 1, 0.1}});
  double T = 0, C = 0;
  OneGpuGavel() {
    T = run_preset("sjf", sc, finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000)})).jobs[0].mean_iteration_s;
    C = 7 * T;
    sc.faults.checkpoint_cost_s = C;
    sc.faults.restart_s = 30 * T;
  }
};

// Two jobs of 1000 iterations arrive together on one GPU; rounds of 100T. The LP gives each
// half of the GPU (X = 1/2). Round 1 (t = 0): neither has run, both have priority +inf; the
// tie goes to the lower id, A runs. Round 2 (100T): A's share so far is 1 (priority 1/2), B's
// 0: B is assigned, A preempted; A's checkpoint ends at 100T + C, when B starts. Round 3
// (200T): B ran 100T − C of 200T (priority 0.5·200/93 > 1), A 100T of 200T (priority 1): no
// change. Round 4 (300T): B's 193T of 300T (priority < 0.78) against A's 100T (1.5): A
// preempts B. With rounds longer than the work, nothing is preempted: A, then B.
TEST(Gavel, RoundsTimeSliceOneGpuBetweenTwoJobs) {
  OneGpuGavel g;
  const double T = g.T, C = g.C;
  g.sc.scheduler.gavel_round_s = 100 * T;
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000), make_job(0.0, 0, 1, 1, 4, 1000)});
  const SimResult r = run_preset("gavel-maxmin", g.sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  EXPECT_EQ(r.jobs[0].start_s, 0.0);
  EXPECT_NEAR(r.jobs[1].start_s, 100 * T + C, 1e-9 * T);
  EXPECT_GE(r.jobs[0].preemptions, 1);
  EXPECT_GE(r.jobs[1].preemptions, 1);
  // Time-slicing: both finish late in the run, within a round of each other's end.
  EXPECT_GT(r.jobs[0].finish_s, 1500 * T);
  EXPECT_GT(r.jobs[1].finish_s, 1500 * T);

  g.sc.scheduler.gavel_round_s = 1e6;
  const SimResult once = run_preset("gavel-maxmin", g.sc, jobs);
  ASSERT_EQ(once.metrics.jobs_completed, 2);
  EXPECT_EQ(once.metrics.preemptions, 0);
  EXPECT_EQ(once.jobs[0].start_s, 0.0);
  EXPECT_NEAR(once.jobs[1].start_s, 1000 * T, 1e-9 * T);
  EXPECT_NEAR(once.jobs[1].finish_s, 2000 * T, 1e-9 * T);
}

// Three 1000-iteration jobs on two one-GPU regions of the same type, rounds of 100T: the LP
// gives each 2/3 of a GPU, split between the regions arbitrarily (they tie). The two regions
// count as one class for the priorities and a running job is not moved between them: the
// jobs share the GPUs in turn (3000T of work on 2 GPUs, plus checkpoints and restarts) and end
// within a few rounds of one another. Counting each region apart, the job the LP split kept its
// region for ever (its other region, never run in, had priority +inf) and the third job waited
// until the others ended (finishes 1000T, 1107T, 1900T).
TEST(Gavel, ClassesOfEqualSpeedShareTheirTime) {
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"a", 0, 1, 0.1}, {"b", 0, 1, 0.1}});
  const Job job = make_job(0.0, 0, 1, 1, 4, 1000);
  const std::vector<Job> jobs = finalize_jobs({job, job, job});
  const double T = run_preset("sjf", sc, finalize_jobs({job})).jobs[0].mean_iteration_s;
  sc.scheduler.gavel_round_s = 100 * T;
  sc.faults.checkpoint_cost_s = 7 * T;
  sc.faults.restart_s = 30 * T;
  const SimResult r = run_preset("gavel-maxmin", sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 3);
  double lo = r.jobs[0].finish_s, hi = lo;
  for (const JobRecord& j : r.jobs) {
    EXPECT_GE(j.preemptions, 1);
    lo = std::min(lo, j.finish_s);
    hi = std::max(hi, j.finish_s);
  }
  EXPECT_GT(lo, 1500 * T);     // nobody ran alone to the end: 3000T of work over 2 GPUs
  EXPECT_LT(hi - lo, 300 * T);  // within three rounds of one another
}

}  // namespace
}  // namespace geopipe
