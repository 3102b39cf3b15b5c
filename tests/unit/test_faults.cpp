// Failures and checkpoint-restart (docs/model.md, "Failures and checkpoints"): the closed forms
// by hand, checkpoints without failures exactly, the mean JCT of a job alone under failures
// against E[JCT] = Σ_k (e^{λ x_k} − 1)(1/λ + R), determinism, and the refusal of a job that
// would practically never finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/faults.h"
#include "model/job.h"
#include "model/scenario.h"
#include "model/step_series.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "unit_common.h"
#include "util/input_error.h"

namespace geopipe {
namespace fault_tests {  // named: test_core is a unity build
namespace {

using testutil::kInf;
using testutil::ScriptedScheduler;
using Placements = std::vector<std::vector<int>>;

TEST(Faults, ClosedFormsByHand) {
  EXPECT_DOUBLE_EQ(young_daly_interval_s(60, 3600), std::sqrt(2.0 * 60 * 3600));
  EXPECT_EQ(young_daly_interval_s(60, kInf), kInf);
  EXPECT_EQ(expected_segment_s(0, 123.0, 600), 123.0);  // nothing fails: the work itself
  // λx = 1: (e − 1)(1/λ + R).
  EXPECT_NEAR(expected_segment_s(1.0 / 3600, 3600, 600), (std::exp(1.0) - 1) * (3600 + 600), 1e-9);
  // W = 10,000 s, τ = 3,000 s, C = 100 s: 3 checkpointed segments of 3,100 s, then 1,000 s.
  const double l = 1e-4, R = 60;
  auto seg = [&](double x) { return (std::exp(l * x) - 1) * (1 / l + R); };
  EXPECT_NEAR(expected_jct_s(10000, 3000, 100, l, R), 3 * seg(3100) + seg(1000), 1e-9);
  // W a multiple of τ: no checkpoint after the last segment (2 checkpointed, then 3,000 s).
  EXPECT_NEAR(expected_jct_s(9000, 3000, 100, l, R), 2 * seg(3100) + seg(3000), 1e-9);
  // τ >= W: one segment, no checkpoint.
  EXPECT_NEAR(expected_jct_s(9000, 9000, 100, l, R), seg(9000), 1e-9);
  EXPECT_NEAR(expected_jct_s(9000, kInf, 100, l, R), seg(9000), 1e-9);
  // Without failures the checkpoints alone: W + n·C.
  EXPECT_DOUBLE_EQ(expected_jct_s(10000, 3000, 100, 0, R), 10000 + 3 * 100);
}

TEST(Faults, RatesAndAutoCostByHand) {
  Topology t;
  t.gpu_types = {GpuType{"g", 100e12, 80e9, 500.0, 100.0}};
  t.regions.resize(2);
  t.regions[0].gpu_mtbf_s = 1000;
  t.regions[0].checkpoint_bytes_per_s = 12.5e9;
  t.regions[1].checkpoint_bytes_per_s = 1.25e9;  // gpu_mtbf_s stays +inf: never fails
  // Stages in 0, 0, 1 with g = 2: 4 GPUs fail at 1/1000 s each.
  EXPECT_DOUBLE_EQ(failure_rate_per_s(std::vector<int>{0, 0, 1}, 2, t), 4.0 / 1000);
  EXPECT_EQ(failure_rate_per_s(std::vector<int>{1, 1}, 8, t), 0.0);
  // Two stages of 1e9 and 2e9 parameters, D = 2 replicas, each with stage 0 in region 0 and
  // stage 1 in region 1: each replica writes half of its stage's 12-byte state, so region 0
  // writes 2 × 6e9 B and region 1 2 × 12e9 B: max(12e9 / 12.5e9, 24e9 / 1.25e9) = 19.2 s.
  const std::vector<double> params = {1e9, 2e9};
  EXPECT_DOUBLE_EQ(checkpoint_cost_auto_s(params, std::vector<int>{0, 1, 0, 1}, 12, t), 19.2);
  // One replica: region 0 writes 12e9 B (0.96 s), region 1 24e9 B (19.2 s).
  EXPECT_DOUBLE_EQ(checkpoint_cost_auto_s(params, std::vector<int>{0, 1}, 12, t), 19.2);
  EXPECT_DOUBLE_EQ(checkpoint_cost_auto_s(params, std::vector<int>{0, 0}, 12, t), 36e9 / 12.5e9);
  // GEMINI's figure: 530e9 parameters × 12 B at 20 Gbit/s = 2,544 s = 42.4 min (measured: 42 min).
  t.regions[0].checkpoint_bytes_per_s = 20e9 / 8;
  EXPECT_NEAR(checkpoint_cost_auto_s(std::vector<double>{530e9}, std::vector<int>{0}, 12, t) / 60, 42.4, 1e-9);
}

/// One region of `gpus` GPUs of 100 TFLOP/s; a tiny model.
Scenario one_region(int gpus) {
  Scenario sc;
  sc.name = "faults";
  sc.compute.mfu = 0.5;
  sc.compute.recompute = Recompute::kNone;
  sc.llms = {LlmSpec{"tiny", 10, 1000, 5000, 100, 2}};
  Topology& t = sc.topology;
  t.gpu_types = {GpuType{"g", 100e12, 80e9, 500.0, 100.0}};
  Region reg;
  reg.name = "r0";
  reg.gpu_count = gpus;
  reg.price = PriceProfile::flat(0.1);
  t.regions.push_back(reg);
  t.reset_links();
  return sc;
}

/// Three copies of one_region(8), every pair joined by a 10 Gbit/s, 10 ms link charging
/// `egress_usd_per_byte`.
Scenario three_regions(double egress_usd_per_byte = 0) {
  Scenario sc = one_region(8);
  for (int r = 1; r < 3; ++r) {
    Region reg = sc.topology.regions[0];
    reg.name = "r" + std::to_string(r);
    sc.topology.regions.push_back(reg);
  }
  sc.topology.reset_links();
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b) sc.topology.link(a, b) = Link{1.25e9, 0.01, egress_usd_per_byte, {}};
  return sc;
}

Job job(int S, long iters, double arrival = 0, int id = 0) {
  Job j;
  j.id = id;
  j.arrival_s = arrival;
  j.stages = S;
  j.micro_batches = 4;
  j.iterations = iters;
  return j;
}

/// W: the failure-free run time of `j` alone on region 0.
double work_s(const Scenario& sc, const Job& j) {
  ScriptedScheduler s(Placements{std::vector<int>(static_cast<size_t>(j.stages), 0)});
  const SimResult r = simulate(sc, {j}, s, 1);
  return r.jobs[0].finish_s - r.jobs[0].start_s;
}

TEST(Faults, CheckpointsWithoutFailuresAddTheirCostExactly) {
  Scenario sc = one_region(4);
  const Job j = job(2, 20000);
  const double W = work_s(sc, j);
  const double tau = W / 3.5, C = 17.0;  // 3 checkpoints, none after the last segment
  sc.faults.checkpoint_interval_s = tau;
  sc.faults.checkpoint_cost_s = C;
  ScriptedScheduler s(Placements{{0, 0}});
  const SimResult r = simulate(sc, {j}, s, 1);
  EXPECT_NEAR(r.jobs[0].finish_s, W + 3 * C, 1e-9 * W);
  EXPECT_EQ(r.metrics.failures, 0);
  EXPECT_EQ(r.metrics.restarts, 0);
  EXPECT_EQ(r.metrics.lost_gpu_hours, 0.0);
  // 2 GPUs held for 3 checkpoints; every other GPU-hour useful.
  EXPECT_NEAR(r.metrics.checkpoint_gpu_hours, 2 * 3 * C / 3600, 1e-12);
  EXPECT_NEAR(r.jobs[0].checkpoint_gpu_hours, 2 * 3 * C / 3600, 1e-12);
  EXPECT_NEAR(r.metrics.gpu_hours, 2 * (W + 3 * C) / 3600, 1e-9);
  EXPECT_NEAR(r.metrics.goodput, W / (W + 3 * C), 1e-12);
  // A checkpoint is not a stall: the share of the run lost to communication is the run's
  // without checkpoints.
  ScriptedScheduler s0(Placements{{0, 0}});
  Scenario plain = sc;
  plain.faults = FaultParams{};
  EXPECT_NEAR(r.metrics.stall_fraction, simulate(plain, {j}, s0, 1).metrics.stall_fraction, 1e-12);
  // A longer interval than the job: no checkpoint at all, the run of no faults bit for bit.
  sc.faults.checkpoint_interval_s = 2 * W;
  ScriptedScheduler s2(Placements{{0, 0}});
  const SimResult r2 = simulate(sc, {j}, s2, 1);
  EXPECT_EQ(r2.jobs[0].finish_s, W);
  EXPECT_EQ(r2.metrics.goodput, 1.0);
}

TEST(Faults, MeanJctOfAJobAloneMatchesTheClosedForm) {
  // One job alone on 2 GPUs (S = 2): W s of work, a checkpoint of C after every τ s of
  // training, failures at λ = 2 / MTBF, a restart of R: the mean JCT over many seeds against
  // E[JCT] = Σ_k (e^{λ x_k} − 1)(1/λ + R), within 4 standard errors.
  Scenario sc = one_region(2);
  const Job j = job(2, 20000);
  const double W = work_s(sc, j);
  const double tau = W / 4.5, C = 0.02 * W, R = 0.05 * W;
  const double mtbf = 2 * (tau + C) / 0.7;  // λ(τ + C) = 0.7: e^0.7 − 1 ≈ 1 failure per segment
  sc.topology.regions[0].gpu_mtbf_s = mtbf;
  sc.faults.checkpoint_interval_s = tau;
  sc.faults.checkpoint_cost_s = C;
  sc.faults.restart_s = R;
  const double lambda = 2 / mtbf;
  const double want = expected_jct_s(W, tau, C, lambda, R);
  const int n = 4000;
  double sum = 0, sum2 = 0;
  long failures = 0;
  for (int seed = 1; seed <= n; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, static_cast<std::uint64_t>(seed));
    ASSERT_EQ(r.metrics.jobs_completed, 1);
    const double jct = r.jobs[0].finish_s;
    sum += jct;
    sum2 += jct * jct;
    failures += r.metrics.failures;
    EXPECT_EQ(r.metrics.failures, r.metrics.restarts);
  }
  const double mean = sum / n, sd = std::sqrt((sum2 - n * mean * mean) / (n - 1));
  EXPECT_NEAR(mean, want, 4 * sd / std::sqrt(n)) << "W " << W << " mean " << mean << " want " << want;
  EXPECT_GT(failures, 3 * n);  // the case exercises failures (about 4.4 per run)
  // Without checkpoints the job must do W in one go: E = (e^{λW} − 1)(1/λ + R).
  sc.faults.checkpoint_interval_s = kInf;
  const double want1 = expected_jct_s(W, kInf, C, lambda, R);
  sum = sum2 = 0;
  for (int seed = 1; seed <= n; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}});
    const double jct = simulate(sc, {j}, s, static_cast<std::uint64_t>(seed)).jobs[0].finish_s;
    sum += jct;
    sum2 += jct * jct;
  }
  const double mean1 = sum / n, sd1 = std::sqrt((sum2 - n * mean1 * mean1) / (n - 1));
  EXPECT_NEAR(mean1, want1, 4 * sd1 / std::sqrt(n)) << "mean " << mean1 << " want " << want1;
}

TEST(Faults, LostWorkIsTheTimeSinceTheLastCheckpoint) {
  // Metrics of one seed: allocated = useful + lost + checkpoint GPU-hours, useful = 2 W.
  Scenario sc = one_region(2);
  const Job j = job(2, 20000);
  const double W = work_s(sc, j);
  sc.topology.regions[0].gpu_mtbf_s = W;  // λ = 2/W
  sc.faults.checkpoint_interval_s = W / 5;
  sc.faults.checkpoint_cost_s = W / 100;
  sc.faults.restart_s = W / 50;
  long failures = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, seed);
    const ScenarioMetrics& m = r.metrics;
    failures += m.failures;
    EXPECT_NEAR(m.gpu_hours, 2 * W / 3600 + m.lost_gpu_hours + m.checkpoint_gpu_hours, 1e-9 * m.gpu_hours);
    EXPECT_NEAR(m.goodput, 2 * W / 3600 / m.gpu_hours, 1e-9);
    EXPECT_EQ(r.jobs[0].failures, m.failures);
    EXPECT_EQ(r.jobs[0].restarts, m.restarts);
    EXPECT_NEAR(r.jobs[0].lost_gpu_hours, m.lost_gpu_hours, 1e-12);
    // Restarts hold no GPU: the JCT is the allocated time plus R per failure.
    EXPECT_NEAR(r.jobs[0].finish_s, m.gpu_hours * 3600 / 2 + static_cast<double>(m.failures) * W / 50, 1e-9 * W);
    // Same seed, same run.
    ScriptedScheduler s2(Placements{{0, 0}});
    EXPECT_EQ(simulate(sc, {j}, s2, seed).jobs[0].finish_s, r.jobs[0].finish_s);
  }
  EXPECT_GT(failures, 20);  // about 2.2 per run at λ = 2/W: the identities are tested with failures
}

TEST(Faults, AFailedJobWaitsAheadOfLaterArrivals) {
  // Region of 2 GPUs; job 0 (2 GPUs) fails at some point; job 1 (2 GPUs) arrived after it and
  // waits for its GPUs. With a restart of 0, the failed job 0 is placed again before job 1
  // (arrival order), so job 1 starts only after job 0 finished.
  Scenario sc = one_region(2);
  const Job j0 = job(2, 20000, 0, 0);
  const double W = work_s(sc, j0);
  sc.topology.regions[0].gpu_mtbf_s = W / 2;  // λ = 4/W: it fails, most likely
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.restart_s = 0;
  const std::vector<Job> jobs = {j0, job(2, 10, 1.0, 1)};
  int failed_runs = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}, {0, 0}});
    const SimResult r = simulate(sc, jobs, s, seed);
    ASSERT_EQ(r.metrics.jobs_completed, 2);
    if (r.jobs[0].failures == 0) continue;
    ++failed_runs;
    EXPECT_GE(r.jobs[1].start_s, r.jobs[0].finish_s) << seed;
  }
  EXPECT_GE(failed_runs, 5);  // e^{-4} of runs see no failure: the case is exercised
}

TEST(Faults, AJobThatWouldPracticallyNeverFinishIsRefused) {
  // MTBF far below the work, no checkpoints: e^{λW} − 1 > 10^5 expected failures.
  Scenario sc = one_region(2);
  sc.source_path = "s.toml";
  const Job j = job(2, 20000);
  const double W = work_s(sc, j);
  sc.topology.regions[0].gpu_mtbf_s = W / 10;  // λW = 20
  sc.faults.checkpoint_interval_s = kInf;
  ScriptedScheduler s(Placements{{0, 0}});
  try {
    simulate(sc, {j}, s, 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("would expect"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("faults.checkpoint_interval_s"), std::string::npos) << e.what();
  }
  // With checkpoints every W/40 (λx = 0.5) it finishes.
  sc.faults.checkpoint_interval_s = W / 40;
  sc.faults.checkpoint_cost_s = 0;
  ScriptedScheduler s2(Placements{{0, 0}});
  EXPECT_EQ(simulate(sc, {j}, s2, 1).metrics.jobs_completed, 1);
}

TEST(Faults, APreemptionWhoseNoticeFitsACheckpointLosesNothing) {
  // A spot region only (no failures): each preemption gives 120 s of notice; a checkpoint of
  // 17 s fits, so the job saves its work, leaves, restarts after R and resumes where it left:
  // JCT = W + (one checkpoint + R) per preemption, exactly; nothing lost.
  Scenario sc = one_region(2);
  const Job j = job(2, 20000);
  const double W = work_s(sc, j);
  sc.topology.regions[0].spot_mtbp_s = W;  // λ = 2/W: about 2 preemptions per run
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.checkpoint_cost_s = 17;
  sc.faults.restart_s = 60;
  long preempted = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, seed);
    const ScenarioMetrics& m = r.metrics;
    EXPECT_EQ(m.failures, 0);
    EXPECT_EQ(m.restarts, m.preemptions);
    EXPECT_EQ(r.jobs[0].preemptions, m.preemptions);
    EXPECT_EQ(m.lost_gpu_hours, 0.0);
    const double n = static_cast<double>(m.preemptions);
    EXPECT_NEAR(r.jobs[0].finish_s, W + n * (17 + 60), 1e-9 * W) << seed;
    EXPECT_NEAR(m.checkpoint_gpu_hours, 2 * n * 17 / 3600, 1e-12);
    preempted += m.preemptions;
  }
  EXPECT_GT(preempted, 20);
  // A notice shorter than the checkpoint: the job trains to the end of its notice and loses
  // its work since its start (no checkpoint completed): allocated = useful + lost.
  sc.faults.preemption_notice_s = 5;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, seed);
    const ScenarioMetrics& m = r.metrics;
    EXPECT_EQ(m.checkpoint_gpu_hours, 0.0);
    EXPECT_NEAR(m.gpu_hours, 2 * W / 3600 + m.lost_gpu_hours, 1e-9 * m.gpu_hours);
    if (m.preemptions > 0) {
      EXPECT_GT(m.lost_gpu_hours, 0.0);
    }
    EXPECT_NEAR(r.jobs[0].finish_s, m.gpu_hours * 3600 / 2 + static_cast<double>(m.preemptions) * 60, 1e-9 * W);
  }
}

/// Starts job 1 before job 0 whenever both wait, and preempts job 0 to make room for job 1
/// (a shortest-first rule by hand: job 1 is the short one).
class PreemptForJobOne final : public Scheduler {
 public:
  std::string_view name() const override { return "preempt-for-1"; }
  bool preempts() const override { return true; }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view, std::vector<Decision>& out) override {
    std::vector<int> order(queue.begin(), queue.end());
    std::sort(order.begin(), order.end(), [](int a, int b) { return a == 1 ? true : b == 1 ? false : a < b; });
    for (int j : order) {
      if (j == 0 && preempted_) seen_iterations_ = ctx.profile(0).iterations;
      Placement p{{0, 0}};
      if (view.free_gpus[0] >= 2) {
        view.commit(ctx.profile(j), p);
        out.push_back({j, p});
      } else if (j == 1 && !preempted_) {
        Decision d;
        d.job = 0;
        d.preempt = true;
        out.push_back(d);
        preempted_ = true;
      }
    }
  }
  double seen_iterations_ = -1;  ///< job 0's iterations as the scheduler saw them after its preemption

 private:
  bool preempted_ = false;
};

TEST(Faults, ASchedulerPreemptsAJobWhichResumesFromItsCheckpoint) {
  // Two GPUs. Job 0 (W0 of work) runs from 0; job 1 (W1) arrives at t1 and the scheduler
  // preempts job 0: it checkpoints for C, leaves at t1 + C, job 1 starts then and ends at
  // t1 + C + W1; job 0 restarts after R < W1 and waits for job 1, then does its remaining
  // W0 − t1: it ends at W0 + C + W1. Nothing is lost; one preemption, one restart.
  Scenario sc = one_region(2);
  const Job j0 = job(2, 20000, 0, 0);
  const double W0 = work_s(sc, j0), W1 = work_s(sc, job(2, 4000));
  const double t1 = W0 / 3, C = 13, R = W1 / 2;
  sc.faults.checkpoint_cost_s = C;
  sc.faults.restart_s = R;
  const std::vector<Job> jobs = {j0, job(2, 4000, t1, 1)};
  PreemptForJobOne s;
  const SimResult r = simulate(sc, jobs, s, 1);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  EXPECT_NEAR(r.jobs[1].start_s, t1 + C, 1e-9 * W0);
  EXPECT_NEAR(r.jobs[1].finish_s, t1 + C + W1, 1e-9 * W0);
  EXPECT_NEAR(r.jobs[0].finish_s, W0 + C + W1, 1e-9 * W0);
  EXPECT_EQ(r.jobs[0].start_s, 0.0);  // its first start
  EXPECT_EQ(r.metrics.preemptions, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.metrics.restarts, 1);
  EXPECT_EQ(r.metrics.failures, 0);
  EXPECT_EQ(r.metrics.lost_gpu_hours, 0.0);
  EXPECT_NEAR(r.metrics.checkpoint_gpu_hours, 2 * C / 3600, 1e-12);
  // Waiting again, job 0 shows the scheduler what is left of it: 2/3 of its 20,000 iterations.
  EXPECT_NEAR(s.seen_iterations_, 20000.0 * 2 / 3, 1e-6);
  // A scheduler that does not declare preempts() may not preempt.
  class Liar final : public Scheduler {
   public:
    std::string_view name() const override { return "liar"; }
    void schedule(const SchedContext& ctx, const WaitingQueue& q, ClusterView& v, std::vector<Decision>& out) override {
      inner_.schedule(ctx, q, v, out);
    }
    PreemptForJobOne inner_;
  } liar;
  EXPECT_THROW(simulate(sc, jobs, liar, 1), std::logic_error);
}

TEST(Faults, SpotPriceFactorAndPreemptionRateByHand) {
  Topology t;
  t.regions.resize(2);
  t.regions[1].spot_mtbp_s = 100;
  EXPECT_FALSE(t.regions[0].spot());
  EXPECT_TRUE(t.regions[1].spot());
  EXPECT_DOUBLE_EQ(preemption_rate_per_s(std::vector<int>{0, 1, 1}, 4, t), 8.0 / 100);
  EXPECT_EQ(preemption_rate_per_s(std::vector<int>{0, 0}, 4, t), 0.0);
}

TEST(Faults, EveryPresetFinishesEveryJobUnderFailures) {
  // Three regions, twenty jobs, failures and auto checkpoints: every preset completes every
  // job, and allocated = useful + lost + checkpoint GPU-hours holds for the scenario.
  Scenario sc = three_regions();
  std::vector<Job> jobs;
  for (int i = 0; i < 20; ++i) {
    Job j = job(1 + i % 4, 20000 + 1000 * i, 30.0 * i, i);
    jobs.push_back(j);
  }
  const double W0 = work_s(sc, job(1, 20000));
  for (auto& reg : sc.topology.regions) reg.gpu_mtbf_s = 3 * W0;
  sc.topology.regions[2].spot_mtbp_s = 2 * W0;  // a spot region
  sc.faults.restart_s = W0 / 20;
  for (const std::string& name : preset_names()) {
    auto sched = make_scheduler(name, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 7);
    EXPECT_EQ(r.metrics.jobs_completed, 20) << name;
    EXPECT_GT(r.metrics.failures, 0) << name;
    EXPECT_GT(r.metrics.checkpoint_gpu_hours, 0) << name;
    EXPECT_LT(r.metrics.goodput, 1.0) << name;
    EXPECT_NEAR(r.metrics.goodput * r.metrics.gpu_hours,
                r.metrics.gpu_hours - r.metrics.lost_gpu_hours - r.metrics.checkpoint_gpu_hours, 1e-9) << name;
  }
}

/// A spot availability series of region 0: `gpus[k]` GPUs from `times[k]`, held after the last.
void spot_series(Scenario& sc, std::vector<double> times, std::vector<double> gpus) {
  sc.topology.regions[0].gpus_series = std::make_shared<const StepSeries>(
      std::move(times), std::move(gpus), SeriesEnd::kHold, /*merge_equal_steps=*/true, StepSeries::Integral::kNone);
}

TEST(Faults, ASpotSeriesEvictsAJobWhichResumesWhenItsGpusReturn) {
  // Two GPUs, gone from W/4 to W/2 (gpus_series). The job gets the notice at W/4, writes its
  // 17 s checkpoint, leaves, restarts after R = 60 s and waits until W/2 for GPUs; it then does
  // its last 3W/4: JCT = W/2 + 3W/4 = 5W/4 exactly, nothing lost.
  Scenario sc = one_region(2);
  const Job j = job(2, 2000000);
  const double W = work_s(sc, j);
  ASSERT_GT(W / 4, 17 + 60);  // the restart ends before the GPUs return
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.checkpoint_cost_s = 17;
  sc.faults.restart_s = 60;
  spot_series(sc, {0, W / 4, W / 2}, {2, 0, 2});
  {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, 1);
    EXPECT_NEAR(r.jobs[0].finish_s, 1.25 * W, 1e-9 * W);
    EXPECT_EQ(r.metrics.preemptions, 1);
    EXPECT_EQ(r.metrics.restarts, 1);
    EXPECT_EQ(r.metrics.failures, 0);
    EXPECT_EQ(r.metrics.lost_gpu_hours, 0.0);
    EXPECT_NEAR(r.metrics.checkpoint_gpu_hours, 2 * 17.0 / 3600, 1e-12);
    // GPU-hours held: the work and the checkpoint; none while the GPUs were gone.
    EXPECT_NEAR(r.metrics.gpu_hours, 2 * (W + 17) / 3600, 1e-9);
  }
  // A checkpoint of 200 s does not fit the 120 s notice: the job trains to the notice's end,
  // loses all of it (no checkpoint completed), and runs its whole W from W/2: JCT = 3W/2.
  sc.faults.checkpoint_cost_s = 200;
  {
    ScriptedScheduler s(Placements{{0, 0}});
    const SimResult r = simulate(sc, {j}, s, 1);
    EXPECT_NEAR(r.jobs[0].finish_s, 1.5 * W, 1e-9 * W);
    EXPECT_EQ(r.metrics.preemptions, 1);
    EXPECT_NEAR(r.metrics.lost_gpu_hours, 2 * (W / 4 + 120) / 3600, 1e-9);
    EXPECT_EQ(r.metrics.checkpoint_gpu_hours, 0.0);
  }
}

TEST(Faults, ASpotSeriesEvictsTheLastStartedJobsFirst) {
  // Four GPUs, two jobs of two GPUs. The capacity falls to 2 at t = 100: one job must go, the
  // one started last (job 1, at 10); at 105 it falls to 1: job 1 under its notice gives back
  // 2, one more GPU is missing, so job 0 goes too. With the second step at 2 instead (job 1's
  // notice covers what is missing), job 0 stays.
  Scenario sc = one_region(4);
  const std::vector<Job> jobs = {job(2, 2000000, 0, 0), job(2, 2000000, 10, 1)};
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.checkpoint_cost_s = 17;
  sc.faults.restart_s = 60;
  auto preemptions = [&](double second) {
    Scenario s2 = sc;
    spot_series(s2, {0, 100, 105, 1000}, {4, 2, second, 4});
    ScriptedScheduler s(Placements{{0, 0}, {0, 0}});
    const SimResult r = simulate(s2, jobs, s, 1);
    EXPECT_EQ(r.metrics.jobs_completed, 2);
    return std::vector<long>{r.jobs[0].preemptions, r.jobs[1].preemptions};
  };
  EXPECT_EQ(preemptions(2), (std::vector<long>{0, 1}));
  EXPECT_EQ(preemptions(1), (std::vector<long>{1, 1}));
  // Ties (both started at 0): the higher job id goes first.
  const std::vector<Job> together = {job(2, 2000000, 0, 0), job(2, 2000000, 0, 1)};
  Scenario s3 = sc;
  spot_series(s3, {0, 100, 1000}, {4, 2, 4});
  ScriptedScheduler s(Placements{{0, 0}, {0, 0}});
  const SimResult r = simulate(s3, together, s, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
}

TEST(Faults, ASpotSeriesThatNeverReturnsTheGpusFailsTheRunNamingTheRegion) {
  Scenario sc = one_region(2);
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.checkpoint_cost_s = 17;
  spot_series(sc, {0, 100, 200}, {2, 0, 0});  // held at 0 after 200 s
  ScriptedScheduler s(Placements{{0, 0}});
  try {
    simulate(sc, {job(2, 2000000)}, s, 1);
    ADD_FAILURE() << "expected a SimulationFailure";
  } catch (const SimulationFailure& e) {
    EXPECT_NE(std::string(e.what()).find("region 'r0' has 0 of its 2 GPUs at the end of its gpus_series"), std::string::npos)
        << e.what();
  }
}

TEST(Faults, EveryPresetFinishesEveryJobUnderASpotSeries) {
  // Three regions of 8 GPUs; region 0's spot GPUs fall and return every 2,000 s (wrapped): every
  // preset completes every job, some of them evicted.
  Scenario sc = three_regions();
  sc.topology.regions[0].gpus_series = std::make_shared<const StepSeries>(
      std::vector<double>{0, 500, 1000, 1500}, std::vector<double>{8, 2, 0, 6}, SeriesEnd::kWrap, true,
      StepSeries::Integral::kNone);
  std::vector<Job> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(job(1 + i % 4, 20000 + 1000 * i, 30.0 * i, i));
  for (const std::string& name : preset_names()) {
    auto sched = make_scheduler(name, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 7);
    EXPECT_EQ(r.metrics.jobs_completed, 20) << name;
    EXPECT_GT(r.metrics.preemptions, 0) << name;
    EXPECT_EQ(r.metrics.failures, 0) << name;
    EXPECT_NEAR(r.metrics.goodput * r.metrics.gpu_hours,
                r.metrics.gpu_hours - r.metrics.lost_gpu_hours - r.metrics.checkpoint_gpu_hours, 1e-9) << name;
  }
}

TEST(Faults, RestoreSourcesAndShardBytesByHand) {
  // The same shape: each stage restores its own shard.
  EXPECT_EQ(restore_source_stage(3, 8, 8), 3);
  // 8 stages restart as 4: new stage x holds old stages 2x and 2x + 1 and restores from 2x.
  EXPECT_EQ(restore_source_stage(3, 8, 4), 6);
  // 2 stages restart as 4: new stages 0, 1 from old 0; 2, 3 from old 1.
  EXPECT_EQ(restore_source_stage(1, 2, 4), 0);
  EXPECT_EQ(restore_source_stage(2, 2, 4), 1);
  EXPECT_EQ(restore_source_stage(3, 2, 4), 1);
  // 1e9 parameters × 12 B shared by 4 replicas: 3 GB each.
  EXPECT_DOUBLE_EQ(restore_shard_bytes(1e9, 12, 4), 3e9);
}

/// Places every job on stages {0, 1} the first time it waits, on {r, r} afterwards (a job
/// moved off a link that went down).
class MoveToRegionZero final : public Scheduler {
 public:
  explicit MoveToRegionZero(int r = 0) : r_(r) {}
  std::string_view name() const override { return "move-to-0"; }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view, std::vector<Decision>& out) override {
    for (int j : queue) {
      Placement p{seen_ ? std::vector<int>{r_, r_} : std::vector<int>{0, 1}};
      const auto need = p.gpus_per_region(view.regions(), ctx.job(j).gpus_per_stage);
      if (need[0] > view.free_gpus[0] || need[1] > view.free_gpus[1]) return;
      view.commit(ctx.profile(j), p);
      out.push_back({j, p});
      seen_ = true;
    }
  }

 private:
  int r_;
  bool seen_ = false;
};

/// Two regions of 2 GPUs joined by a 10 Gbit/s link (egress 0.02 USD/GB back from region 1).
Scenario two_regions() {
  Scenario sc = one_region(2);
  Region reg = sc.topology.regions[0];
  reg.name = "r1";
  sc.topology.regions.push_back(reg);
  sc.topology.reset_links();
  sc.topology.link(0, 1) = Link{1.25e9, 0.01, 0.0, {}};
  sc.topology.link(1, 0) = Link{1.25e9, 0.01, 0.02e-9, {}};
  return sc;
}

TEST(Faults, AJobStalledOnALinkThatIsDownMigrates) {
  // A 2-stage job on regions 0 and 1; the link 0 -> 1 goes down at t_o = W01/4 (a quarter of
  // the job done) and stays down for 10^6 s. Without faults.migrate_after_s it waits:
  // JCT = W01 + 10^6. With migrate_after_s = M it stalls M, writes its checkpoint (C), leaves,
  // restarts after R and runs its last 3/4 on region 0 alone: JCT = t_o + M + C + R + 3/4 W00.
  Scenario sc = two_regions();
  const Job j = job(2, 2000000);
  ScriptedScheduler s01(Placements{{0, 1}});
  const double W01 = simulate(sc, {j}, s01, 1).jobs[0].finish_s;
  const double W00 = work_s(sc, j);
  const double t_o = W01 / 4, M = 50, C = 17, R = 60;
  Link& down = sc.topology.link(0, 1);
  down.capacity_series = std::make_shared<const StepSeries>(std::vector<double>{0, t_o, t_o + 1e6},
                                                            std::vector<double>{1.25e9, 0, 1.25e9}, SeriesEnd::kHold, true);
  sc.faults.checkpoint_interval_s = kInf;
  sc.faults.checkpoint_cost_s = C;
  sc.faults.restart_s = R;
  {
    MoveToRegionZero waits;
    const SimResult r = simulate(sc, {j}, waits, 1);
    EXPECT_NEAR(r.jobs[0].finish_s, W01 + 1e6, 1e-9 * (W01 + 1e6));
    EXPECT_EQ(r.metrics.preemptions, 0);
  }
  sc.faults.migrate_after_s = M;
  MoveToRegionZero moves;
  const SimResult global = simulate(sc, {j}, moves, 1);
  EXPECT_NEAR(global.jobs[0].finish_s, t_o + M + C + R + 0.75 * W00, 1e-9 * W01);
  EXPECT_EQ(global.metrics.preemptions, 1);  // a migration counts as a preemption
  EXPECT_EQ(global.metrics.restarts, 1);
  EXPECT_EQ(global.metrics.lost_gpu_hours, 0.0);
  EXPECT_EQ(global.jobs[0].stage_region, (std::vector<int>{0, 0}));
  // Global checkpoint storage: nothing crosses a link to restore it.
  EXPECT_NEAR(global.metrics.checkpoint_gpu_hours, 2 * C / 3600, 1e-12);
  // Regional storage: stage 1's shard (its parameters × 12 B) crosses the link 1 -> 0, which is
  // up, at its whole 1.25e9 B/s before the job trains again (GPUs held, idle), and pays the
  // link's egress: the same run but for the restore's time, bytes and egress.
  sc.faults.checkpoint_regional = true;
  MoveToRegionZero moves2;
  const SimResult regional = simulate(sc, {j}, moves2, 1);
  const JobProfile p = make_profile(j, sc.llms[0], sc.compute);
  const double bytes = p.params[1] * 12, restore = bytes / 1.25e9;
  EXPECT_NEAR(regional.jobs[0].finish_s, t_o + M + C + R + restore + 0.75 * W00, 1e-9 * W01);
  EXPECT_NEAR(regional.metrics.checkpoint_gpu_hours, 2 * (C + restore) / 3600, 1e-12);
  EXPECT_NEAR(regional.jobs[0].egress_cost_usd - global.jobs[0].egress_cost_usd, bytes * 0.02e-9, 1e-12);
  EXPECT_NEAR(regional.jobs[0].cross_region_bytes - global.jobs[0].cross_region_bytes, bytes, 1e-6 * bytes);
  EXPECT_GT(bytes, 0.0);
  // Moved to region 1 instead, stage 0's shard must cross the link 0 -> 1, which is down until
  // t_o + 10^6: the restore waits for it (GPUs held), then takes its bytes / 1.25e9.
  MoveToRegionZero to_one(1);
  const SimResult waited = simulate(sc, {j}, to_one, 1);
  const double restore0 = p.params[0] * 12 / 1.25e9;
  EXPECT_NEAR(waited.jobs[0].finish_s, t_o + 1e6 + restore0 + 0.75 * W00, 1e-9 * (t_o + 1e6));
  EXPECT_NEAR(waited.metrics.checkpoint_gpu_hours, 2 * (C + (t_o + 1e6 - (t_o + M + C + R)) + restore0) / 3600, 1e-9);
}

TEST(Faults, EveryPresetFinishesEveryJobWithOutagesMigrationAndRegionalCheckpoints) {
  // Three regions of 8 GPUs, every link down for 300 s of every 700 s (wrapped), migration after
  // 60 s, regional checkpoints, failures and a spot series on region 2: every preset completes
  // every job, jobs migrate, and allocated = useful + lost + checkpoint GPU-hours.
  Scenario sc = three_regions(0.01e-9);
  auto outage = std::make_shared<const StepSeries>(std::vector<double>{0, 400}, std::vector<double>{1.25e9, 0},
                                                   SeriesEnd::kWrap, true);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b) sc.topology.link(a, b).capacity_series = outage;
  std::vector<Job> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(job(1 + i % 4, 200000 + 10000 * i, 30.0 * i, i));
  const double W0 = work_s(sc, job(1, 200000));
  for (auto& reg : sc.topology.regions) reg.gpu_mtbf_s = 20 * W0;
  sc.topology.regions[2].gpus_series = std::make_shared<const StepSeries>(
      std::vector<double>{0, 900, 1300}, std::vector<double>{8, 3, 8}, SeriesEnd::kWrap, true, StepSeries::Integral::kNone);
  sc.faults.migrate_after_s = 60;
  sc.faults.checkpoint_regional = true;
  sc.faults.restart_s = 30;
  long migrated_or_evicted = 0;
  for (const std::string& name : preset_names()) {
    auto sched = make_scheduler(name, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 3);
    EXPECT_EQ(r.metrics.jobs_completed, 20) << name;
    EXPECT_NEAR(r.metrics.goodput * r.metrics.gpu_hours,
                r.metrics.gpu_hours - r.metrics.lost_gpu_hours - r.metrics.checkpoint_gpu_hours, 1e-9) << name;
    migrated_or_evicted += r.metrics.preemptions;
  }
  EXPECT_GT(migrated_or_evicted, 0);
  // The outages alone (no failure, no spot): every preemption is a migration, and jobs that
  // stall migrate under every preset that places pipelines across regions.
  Scenario only = sc;
  for (auto& reg : only.topology.regions) reg.gpu_mtbf_s = kInf;
  only.topology.regions[2].gpus_series = nullptr;
  long migrated = 0;
  for (const std::string& name : preset_names()) {
    auto sched = make_scheduler(name, only.scheduler);
    const SimResult r = simulate(only, jobs, *sched, 3);
    EXPECT_EQ(r.metrics.jobs_completed, 20) << name;
    EXPECT_EQ(r.metrics.failures, 0) << name;
    migrated += r.metrics.preemptions;
  }
  EXPECT_GT(migrated, 0);
}

}  // namespace
}  // namespace fault_tests
}  // namespace geopipe
