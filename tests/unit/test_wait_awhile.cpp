// wait-awhile (sched/wait_awhile.h; docs/model.md, "Literature baselines"): the hold rule on
// hand cases (one GPU, a price step or a carbon step), the GPU-weighted signal of a placement,
// and that a workload without slack is scheduled exactly as bace-pipe schedules it.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "model/step_series.h"
#include "sched/wait_awhile.h"
#include "sched_testing.h"

namespace geopipe {
namespace {

using namespace schedtest;

constexpr double kHour = 3600.0;

/// 0.30 $/kWh in hours 0-5 of each day, 0.10 in hours 6-23 (UTC offset 0).
PriceProfile expensive_morning() {
  std::array<double, 24> h{};
  for (int k = 0; k < 24; ++k) h[static_cast<size_t>(k)] = k < 6 ? 0.30 : 0.10;
  return PriceProfile::hourly(h, 0.0);
}

/// One region of one GPU with expensive_morning() prices, and T, the iteration time of the
/// 1-stage job used alone on it; `job(slack)` runs about an hour (I = ⌊3600 s / T⌋ iterations).
struct MorningGpu {
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"only", 0, 1, 0.1}});
  double T = 0;
  std::int64_t I = 0;
  MorningGpu() {
    sc.topology.regions[0].price = expensive_morning();
    T = run_preset("bace-pipe", sc, finalize_jobs({make_job(0.0, 0, 1, 1, 4, 1000)})).jobs[0].mean_iteration_s;
    I = static_cast<std::int64_t>(kHour / T);
  }
  std::vector<Job> job(double slack_s) const {
    Job j = make_job(0.0, 0, 1, 1, 4, I);
    j.slack_s = slack_s;
    return finalize_jobs({j});
  }
};

// The hand case. The job runs D = I·T ≈ 1 h (a little less). Starting now, its mean price is
// 0.30; the price may change at every hour boundary, and the first start with a lower mean is
// 6 h, at 0.10: a saving of 2/3. With a slack of 8 h it is held and starts at 21600 s, and its
// electricity costs a third of bace-pipe's (the same energy, at 0.10 instead of 0.30 $/kWh).
TEST(WaitAwhile, HoldsAJobForTheCheaperHoursWithinItsSlack) {
  MorningGpu g;
  ASSERT_GT(g.I, 100);
  const double D = static_cast<double>(g.I) * g.T;
  ASSERT_LT(D, kHour);
  const SimResult base = run_preset("bace-pipe", g.sc, g.job(8 * kHour));
  const SimResult wait = run_preset("wait-awhile", g.sc, g.job(8 * kHour));
  ASSERT_EQ(wait.metrics.jobs_completed, 1);
  EXPECT_EQ(base.jobs[0].start_s, 0.0);
  EXPECT_EQ(wait.jobs[0].start_s, 6 * kHour);
  EXPECT_NEAR(wait.jobs[0].finish_s, 6 * kHour + D, 1e-9 * kHour);
  const double kwh = wait.jobs[0].energy_j / 3.6e6;
  EXPECT_DOUBLE_EQ(wait.jobs[0].energy_j, base.jobs[0].energy_j);
  EXPECT_NEAR(base.jobs[0].electricity_cost_usd, 0.30 * kwh, 1e-12 * kwh);
  EXPECT_NEAR(wait.jobs[0].electricity_cost_usd, 0.10 * kwh, 1e-12 * kwh);
  EXPECT_NEAR(wait.metrics.total_cost_usd, base.metrics.total_cost_usd / 3, 1e-12 * kwh);
  // Its JCT is the 6 h it waited plus its run.
  EXPECT_NEAR(wait.metrics.avg_jct_s, 6 * kHour + D, 1e-9 * kHour);
}

// Within a slack of 2 h (or 5.5 h) the starts tried are the hour boundaries 1 h, 2 h (… 5 h),
// whose runs [t, t + D], D < 1 h, all cost 0.30: no saving, the job starts at once. With 8 h of
// slack but a min_saving of 0.9 the saving of 2/3 is not enough: it starts at once too; with
// 0.6 it is.
TEST(WaitAwhile, StartsAtOnceWithoutACheaperStartOrEnoughSaving) {
  MorningGpu g;
  for (double slack_h : {2.0, 5.5}) {
    const SimResult r = run_preset("wait-awhile", g.sc, g.job(slack_h * kHour));
    EXPECT_EQ(r.jobs[0].start_s, 0.0) << slack_h;
  }
  g.sc.scheduler.wait_awhile_min_saving = 0.9;
  EXPECT_EQ(run_preset("wait-awhile", g.sc, g.job(8 * kHour)).jobs[0].start_s, 0.0);
  g.sc.scheduler.wait_awhile_min_saving = 0.6;
  EXPECT_EQ(run_preset("wait-awhile", g.sc, g.job(8 * kHour)).jobs[0].start_s, 6 * kHour);
  // A slack of exactly 6 h reaches the cheap start (the deadline is inclusive).
  g.sc.scheduler.wait_awhile_min_saving = 0.05;
  EXPECT_EQ(run_preset("wait-awhile", g.sc, g.job(6 * kHour)).jobs[0].start_s, 6 * kHour);
}

// The carbon signal: a grid at 400 g/kWh until 3 h, 100 afterwards (a held series), flat
// prices. With the carbon signal the job is held until 3 h (the series adds no event of its
// own: the scheduler's release time calls it) and emits a quarter of bace-pipe's CO2; with
// the price signal (flat) it starts at once. A region with a constant intensity never holds.
TEST(WaitAwhile, CarbonSignalFollowsTheSeries) {
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"only", 0, 1, 0.1}});
  sc.topology.regions[0].carbon_series =
      std::make_shared<const StepSeries>(std::vector<double>{0, 3 * kHour}, std::vector<double>{400, 100}, SeriesEnd::kHold);
  Job j = make_job(0.0, 0, 1, 1, 4, 1000);
  j.slack_s = 8 * kHour;
  const std::vector<Job> jobs = finalize_jobs({j});
  const SimResult price = run_preset("wait-awhile", sc, jobs);
  EXPECT_EQ(price.jobs[0].start_s, 0.0);
  sc.scheduler.wait_awhile_signal = WaitAwhileSignal::kCarbon;
  const SimResult carbon = run_preset("wait-awhile", sc, jobs);
  const SimResult base = run_preset("bace-pipe", sc, jobs);
  ASSERT_EQ(carbon.metrics.jobs_completed, 1);
  EXPECT_EQ(carbon.jobs[0].start_s, 3 * kHour);
  const double kwh = carbon.jobs[0].energy_j / 3.6e6;
  EXPECT_NEAR(carbon.jobs[0].carbon_g, 100 * kwh, 1e-9 * kwh);
  EXPECT_NEAR(base.jobs[0].carbon_g, 400 * kwh, 1e-9 * kwh);
  sc.topology.regions[0].carbon_series = nullptr;
  sc.topology.regions[0].carbon_g_per_kwh = 300;
  EXPECT_EQ(run_preset("wait-awhile", sc, jobs).jobs[0].start_s, 0.0);
}

// A held job's GPU is free for the others: on two GPUs, job 0 (slack 8 h) is held while job 1
// (no slack) arriving with it starts at once; job 0 starts at 6 h.
TEST(WaitAwhile, AHeldJobLeavesItsGpusToTheOthers) {
  MorningGpu g;
  g.sc = make_scenario({make_gpu("gpu")}, {{"only", 0, 2, 0.1}});
  g.sc.topology.regions[0].price = expensive_morning();
  Job a = make_job(0.0, 0, 1, 1, 4, g.I);
  a.slack_s = 8 * kHour;
  const Job b = make_job(0.0, 0, 1, 1, 4, g.I);
  const SimResult r = run_preset("wait-awhile", g.sc, finalize_jobs({a, b}));
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  EXPECT_EQ(r.jobs[1].start_s, 0.0);
  EXPECT_EQ(r.jobs[0].start_s, 6 * kHour);
}

// The signal of a placement is the GPU-weighted mean over its regions: stages in A (0.30 until
// 6 h, then 0.10) and twice in B (flat 0.20): now (0.30 + 2·0.20)/3, from 6 h (0.10 + 0.40)/3,
// a saving of 2/7; the starts tried are A's hour boundaries up to the deadline.
TEST(WaitAwhile, TheSignalIsTheGpuWeightedMeanOfThePlacement) {
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"A", 0, 4, 0.1}, {"B", 0, 4, 0.20}});
  sc.topology.regions[0].price = expensive_morning();
  const WaitAwhileChoice c =
      wait_awhile_choice(sc.topology, {0, 1, 1}, WaitAwhileSignal::kPrice, 0.05, 0.0, 8 * kHour, 0.5 * kHour);
  EXPECT_TRUE(c.hold);
  EXPECT_EQ(c.start_s, 6 * kHour);
  EXPECT_EQ(c.candidates, 8);
  EXPECT_NEAR(c.mean_now, 0.70 / 3, 1e-15);
  EXPECT_NEAR(c.mean_best, 0.50 / 3, 1e-15);
  EXPECT_FALSE(wait_awhile_choice(sc.topology, {0, 1, 1}, WaitAwhileSignal::kPrice, 0.3, 0.0, 8 * kHour, 0.5 * kHour).hold);
  // only B: flat, nothing to try
  const WaitAwhileChoice flat = wait_awhile_choice(sc.topology, {1, 1}, WaitAwhileSignal::kPrice, 0.0, 0.0, 8 * kHour, kHour);
  EXPECT_FALSE(flat.hold);
  EXPECT_EQ(flat.candidates, 0);
  EXPECT_EQ(flat.start_s, 0.0);
  // A run reaching the cheap hours from now: from 4 h, a 4 h run has half its time at 0.10.
  const WaitAwhileChoice part = wait_awhile_choice(sc.topology, {0}, WaitAwhileSignal::kPrice, 0.05, 0.0, 4 * kHour, 4 * kHour);
  EXPECT_TRUE(part.hold);
  EXPECT_EQ(part.start_s, 4 * kHour);
  EXPECT_NEAR(part.mean_best, 0.20, 1e-15);
}

// Without slack, wait-awhile is bace-pipe, bit for bit (decisions, metrics, per-job records), on
// random three-region scenarios with hourly prices; with slack on every job but flat prices too.
TEST(WaitAwhile, WithoutSlackOrWithoutVaryingSignalItIsBacePipe) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    Scenario sc = random_cluster();
    sc.topology.regions[0].price = expensive_morning();
    const std::vector<Job> jobs = random_jobs(seed, 20);
    const SimResult a = run_preset("bace-pipe", sc, jobs);
    const SimResult b = run_preset("wait-awhile", sc, jobs);
    expect_same_metrics(a.metrics, b.metrics);
    expect_same_jobs(a.jobs, b.jobs);
    Scenario flat = random_cluster();
    std::vector<Job> slack = jobs;
    for (Job& j : slack) j.slack_s = 12 * kHour;
    const SimResult c = run_preset("bace-pipe", flat, slack);
    const SimResult d = run_preset("wait-awhile", flat, slack);
    expect_same_metrics(c.metrics, d.metrics);
    expect_same_jobs(c.jobs, d.jobs);
  }
}

// With slack and hourly prices: every job finishes, none starts before it arrives, the run is
// deterministic, and the schedule differs from bace-pipe's (some job was held).
TEST(WaitAwhile, RandomScenariosWithSlackFinishDeterministically) {
  int moved = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    Scenario sc = random_cluster();
    for (Region& r : sc.topology.regions) r.price = expensive_morning();
    std::vector<Job> jobs = random_jobs(seed, 20);
    for (Job& j : jobs) j.slack_s = (j.id % 3) * 4 * kHour;
    const SimResult a = run_preset("wait-awhile", sc, jobs);
    const SimResult b = run_preset("wait-awhile", sc, jobs);
    const SimResult base = run_preset("bace-pipe", sc, jobs);
    ASSERT_EQ(a.metrics.jobs_completed, 20);
    expect_same_metrics(a.metrics, b.metrics);
    expect_same_jobs(a.jobs, b.jobs);
    expect_no_overallocation(sc, a.jobs);
    for (const JobRecord& r : a.jobs) EXPECT_GE(r.start_s, jobs[static_cast<size_t>(r.id)].arrival_s);
    for (size_t i = 0; i < jobs.size(); ++i) moved += a.jobs[i].start_s != base.jobs[i].start_s;
  }
  EXPECT_GT(moved, 0);
}

}  // namespace
}  // namespace geopipe
