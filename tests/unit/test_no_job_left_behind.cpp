// No job left behind (docs/model.md, "Events and metrics" and "Stale or noisy view"): the
// bandwidth monitor as a process in time (sim/bandwidth_monitor.h), one case per way a
// scheduler used to strand jobs on an idle cluster (a noise draw hiding a feasible link, a
// stale snapshot taken under load, a FIFO head job behind such a view, a greedy fill on a
// topology with a missing link), the loud failure of a scheduler that would still strand jobs,
// and a randomized property: every preset finishes every job of hundreds of random accepted
// scenarios.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "model/rng.h"
#include "random_scenarios.h"
#include "sched_testing.h"
#include "sim/bandwidth_monitor.h"
#include "sim/view.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using namespace schedtest;
using testutil::set_link_dir;

using testutil::kInf;

// ---------------------------------------------------------------------------------------------
// The monitor on its own

std::vector<double> truth_of(double ab, double ba) { return {kInf, ab, ba, kInf}; }  // R = 2

// What a measurement of `truth` with the first two normals of `rng` gives (the documented
// noise: each direction a != b in row-major order times max(0, 1 + σ·N)).
std::vector<double> noisy(const std::vector<double>& truth, double sigma, Rng rng) {
  std::vector<double> v = truth;
  v[1] *= std::max(0.0, 1.0 + sigma * rng.normal());
  v[2] *= std::max(0.0, 1.0 + sigma * rng.normal());
  return v;
}

TEST(BandwidthMonitor, ExactViewIsTheTruthWithoutTicks) {
  const SchedulerParams prm;  // no staleness, no noise
  BandwidthMonitor m(prm, 2, 7);
  EXPECT_TRUE(m.exact());
  EXPECT_EQ(m.next_tick_s(), kInf);
  const auto truth = truth_of(5.0, 6.0);
  bool changed = true;
  EXPECT_EQ(m.view_for_call(truth, changed), truth);
  EXPECT_FALSE(changed);
  EXPECT_FALSE(m.catch_up(100.0, truth));
  EXPECT_FALSE(m.tick(100.0, truth).call);
  EXPECT_FALSE(m.may_change(truth));
  EXPECT_EQ(m.measurements(), 0u);
}

TEST(BandwidthMonitor, StaleTicksMeasureOnTheirOwnClock) {
  SchedulerParams prm;
  prm.view_staleness_s = 100.0;
  BandwidthMonitor m(prm, 2, 7);
  ASSERT_FALSE(m.exact());
  const auto idle = truth_of(10.0, 10.0), busy = truth_of(4.0, 10.0);
  // Tick 0 at t = 0, taken at the event at t = 0 after its completions.
  EXPECT_EQ(m.next_tick_s(), 0.0);
  EXPECT_FALSE(m.catch_up(0.0, idle));  // no tick strictly before 0
  EXPECT_TRUE(m.tick(0.0, idle).view_changed);
  bool changed = true;
  EXPECT_EQ(m.view_for_call(busy, changed), idle);  // the scheduler sees tick 0's measurement
  EXPECT_FALSE(changed);
  EXPECT_EQ(m.next_tick_s(), 100.0);
  // The next event is at t = 250 (no job waited in between): the latest tick before it (200)
  // measured the state in force since the previous event, `busy`.
  EXPECT_TRUE(m.catch_up(250.0, busy));
  EXPECT_EQ(m.view_for_call(idle, changed), busy);
  EXPECT_EQ(m.next_tick_s(), 300.0);
  EXPECT_FALSE(m.tick(250.0, idle).call);  // 250 is not a tick
  EXPECT_EQ(m.measurements(), 2u);
  // Without noise, a view that equals the truth cannot change before the truth does.
  EXPECT_TRUE(m.may_change(idle));
  EXPECT_FALSE(m.may_change(busy));
  // A tick at an event time measures the state after that time's completions; an unchanged
  // measurement does not call the scheduler.
  const BandwidthMonitor::Tick t300 = m.tick(300.0, busy);
  EXPECT_FALSE(t300.view_changed);
  EXPECT_FALSE(t300.call);
  EXPECT_EQ(m.next_tick_s(), 400.0);
}

TEST(BandwidthMonitor, StaleNoiseOfATickDoesNotDependOnWhichTicksWereObserved) {
  SchedulerParams prm;
  prm.view_staleness_s = 100.0;
  prm.view_noise_sigma = 0.2;
  const auto truth = truth_of(10.0, 20.0);
  BandwidthMonitor every(prm, 2, 99), lazy(prm, 2, 99);
  for (double t : {0.0, 100.0, 200.0, 300.0}) {
    (void)every.catch_up(t, truth);
    (void)every.tick(t, truth);
  }
  EXPECT_TRUE(lazy.catch_up(350.0, truth));  // only tick 3, lazily
  bool c1 = false, c2 = false;
  const std::vector<double> v_every = every.view_for_call(truth, c1), v_lazy = lazy.view_for_call(truth, c2);
  EXPECT_EQ(v_every, v_lazy);
  // ... and is tick 3's own stream, (seed, "view-noise", 3).
  EXPECT_EQ(v_lazy, noisy(truth, 0.2, Rng(derive_stream_seed(derive_seed(99, "view-noise"), 3))));
  EXPECT_NE(v_lazy, noisy(truth, 0.2, Rng(derive_stream_seed(derive_seed(99, "view-noise"), 2))));
  EXPECT_EQ(every.measurements(), 4u);
  EXPECT_EQ(lazy.measurements(), 1u);
  EXPECT_TRUE(lazy.may_change(truth));  // noise: a later tick draws again
}

TEST(BandwidthMonitor, LiveNoisyViewMeasuresAtEveryCallAndRefreshesWhileJobsWait) {
  SchedulerParams prm;
  prm.view_noise_sigma = 0.3;
  prm.view_refresh_s = 60.0;
  const auto truth = truth_of(10.0, 20.0);
  BandwidthMonitor m(prm, 2, 5);
  Rng seq(derive_seed(5, "view-noise"));  // the sequential stream, drawn call after call
  bool changed = false;
  const std::vector<double> first = m.view_for_call(truth, changed);
  EXPECT_TRUE(changed);
  std::vector<double> expect = truth;
  expect[1] *= std::max(0.0, 1.0 + 0.3 * seq.normal());
  expect[2] *= std::max(0.0, 1.0 + 0.3 * seq.normal());
  EXPECT_EQ(first, expect);
  const std::vector<double> second = m.view_for_call(truth, changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(first, second);
  // Refresh ticks every 60 s: each calls the scheduler (which measures); none in between.
  EXPECT_FALSE(m.catch_up(0.0, truth));  // live: catch_up never measures
  EXPECT_TRUE(m.tick(0.0, truth).call);
  EXPECT_EQ(m.next_tick_s(), 60.0);
  EXPECT_FALSE(m.tick(30.0, truth).call);
  const BandwidthMonitor::Tick t60 = m.tick(60.0, truth);
  EXPECT_TRUE(t60.call);
  EXPECT_FALSE(t60.view_changed);  // the call's own measurement changes the view
  EXPECT_EQ(m.next_tick_s(), 120.0);
  EXPECT_EQ(m.measurements(), 2u);
}

TEST(BandwidthMonitor, TickTimesAreExactMultiplesOfAnInexactPeriod) {
  SchedulerParams prm;
  prm.view_staleness_s = 0.1;  // not a binary fraction
  BandwidthMonitor m(prm, 2, 1);
  const auto truth = truth_of(1.0, 1.0);
  for (int k = 0; k < 1000; ++k) {
    const double t = m.next_tick_s();
    ASSERT_EQ(t, static_cast<double>(k) * 0.1);
    ASSERT_FALSE(m.catch_up(t, truth));  // never takes the tick at t as "before t"
    (void)m.tick(t, truth);
  }
  EXPECT_EQ(m.measurements(), 1000u);
}

TEST(BandwidthMonitor, FinestPeriodAtAstronomicalTimesNeitherOverflowsNorRepeatsATick) {
  SchedulerParams prm;
  prm.view_staleness_s = kMinMonitorPeriodS;
  prm.view_noise_sigma = 0.1;
  const auto truth = truth_of(1.0, 1.0);
  {  // beyond 2^52 periods: tick times round, but the next one is always later
    BandwidthMonitor m(prm, 2, 1);
    const double t = 1e13;  // 10^16 periods
    EXPECT_TRUE(m.catch_up(t, truth));
    double last = t;
    for (int k = 0; k < 5; ++k) {
      const double next = m.next_tick_s();
      ASSERT_GT(next, last);
      ASSERT_LT(next, t * (1 + 1e-12));
      (void)m.catch_up(next, truth);
      (void)m.tick(next, truth);
      last = next;
    }
  }
  {  // beyond 2^62 periods the monitor ticks no more
    BandwidthMonitor m(prm, 2, 1);
    EXPECT_TRUE(m.catch_up(1e300, truth));
    EXPECT_EQ(m.next_tick_s(), kInf);
    EXPECT_FALSE(m.tick(1e300, truth).call);
  }
}

// ---------------------------------------------------------------------------------------------
// One case per cause

// Two regions of 4 GPUs and a job that needs all 8: its only placements cross the one link,
// whose capacity (both directions) is `headroom` × the job's stall-free demand β.
struct TwoRegions {
  Scenario sc;
  double beta = 0;
};

TwoRegions two_regions(double headroom) {
  TwoRegions r;
  r.sc = make_scenario({make_gpu("gpu")}, {{"a", 0, 4, 0.10}, {"b", 0, 4, 0.12}});
  const Job probe = make_job(0.0, 0, 8, 1, 8, 100);
  const JobProfile p = make_profile(probe, r.sc.llms[0], r.sc.compute);
  r.beta = hop_demand_bytes_per_s(p, 3, 0, 1, r.sc.topology, r.sc.compute);
  set_link(r.sc.topology, 0, 1, headroom * r.beta, 0.010);
  return r;
}

// Does a live noisy measurement drawn from `rng` hide the link (either direction below β)?
bool hides(Rng& rng, double sigma, double headroom) {
  const double ab = headroom * std::max(0.0, 1.0 + sigma * rng.normal());
  const double ba = headroom * std::max(0.0, 1.0 + sigma * rng.normal());
  return ab < 1.0 || ba < 1.0;
}

// The first seed whose first live measurement hides the link, and the index (1, 2, ...) of the
// first later measurement that shows it.
std::pair<std::uint64_t, int> seed_hiding_first_draw(double sigma, double headroom) {
  for (std::uint64_t seed = 1;; ++seed) {
    Rng rng(derive_seed(seed, "view-noise"));
    if (!hides(rng, sigma, headroom)) continue;
    int k = 1;
    while (hides(rng, sigma, headroom)) ++k;
    return {seed, k};
  }
}

TEST(NoJobLeftBehind, NoiseHidingAFeasibleLinkOnTheIdleClusterIsMeasuredAgain) {
  TwoRegions tr = two_regions(1.05);
  tr.sc.scheduler.view_noise_sigma = 0.3;
  tr.sc.scheduler.view_refresh_s = 60.0;
  const auto [seed, k] = seed_hiding_first_draw(0.3, 1.05);
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 8, 1, 8, 100)});
  // Model version 1 measured only at scheduler calls: the one call, at the arrival, saw the
  // link hidden and the run ended with the job unfinished. Now the monitor measures again
  // every 60 s while the job waits; the k-th refresh shows the link.
  const SimResult r = run_preset("bace-pipe", tr.sc, jobs, seed);
  ASSERT_EQ(r.metrics.jobs_completed, 1);
  EXPECT_EQ(r.metrics.jobs_unfinished, 0);
  EXPECT_EQ(r.jobs[0].start_s, 60.0 * k);
  EXPECT_EQ(r.metrics.sched_calls, k + 1);  // the arrival, then one per refresh tick
  const std::vector<int>& pl = r.jobs[0].stage_region;  // 4 + 4 stages across the link
  EXPECT_TRUE(pl == (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}) || pl == (std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0}));
}

TEST(NoJobLeftBehind, StaleSnapshotTakenUnderLoadIsMeasuredAgainOnTheMonitorsClock) {
  TwoRegions tr = two_regions(1.5);  // one job's flow leaves 0.5 β: too little for a second
  tr.sc.scheduler.view_staleness_s = 1000.0;
  // Job 0 alone, to size it: it should end between job 1's arrival (1200 s) and tick 2 (2000 s).
  const SimResult alone = run_preset("bace-pipe", tr.sc, finalize_jobs({make_job(0.0, 0, 8, 1, 8, 1000)}));
  ASSERT_EQ(alone.metrics.jobs_completed, 1);
  const auto iters = static_cast<std::int64_t>(std::llround(1500.0 / alone.jobs[0].mean_iteration_s));
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 8, 1, 8, iters), make_job(1200.0, 0, 8, 1, 8, 100)});
  const SimResult r = run_preset("bace-pipe", tr.sc, jobs);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  ASSERT_EQ(r.jobs[0].start_s, 0.0);  // tick 0 measured the idle network
  ASSERT_GT(r.jobs[0].finish_s, 1200.0);
  ASSERT_LT(r.jobs[0].finish_s, 2000.0);
  // Tick 1 (t = 1000) measured 0.5 β while job 0 ran; at job 0's completion the view still
  // said so (model version 1 ended the run there). Tick 2 measures the idle link and starts it.
  EXPECT_EQ(r.jobs[1].start_s, 2000.0);
}

TEST(NoJobLeftBehind, FifoHeadJobBehindAHidingViewDoesNotStrandTheQueue) {
  TwoRegions tr = two_regions(1.05);
  tr.sc.scheduler.view_noise_sigma = 0.3;
  const auto [seed, k] = seed_hiding_first_draw(0.3, 1.05);
  // The head job needs the link; three 1-GPU jobs behind it fit anywhere, but strict FIFO
  // keeps them behind the head (model version 1: all four unfinished).
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 8, 1, 8, 100), make_job(0.0, 0, 1, 1, 8, 100),
                                               make_job(0.0, 0, 1, 1, 8, 100), make_job(0.0, 0, 1, 1, 8, 100)});
  const SimResult fifo = run_preset("bace-no-priority", tr.sc, jobs, seed);
  ASSERT_EQ(fifo.metrics.jobs_completed, 4);
  EXPECT_EQ(fifo.jobs[0].start_s, 60.0 * k);
  for (int j = 1; j < 4; ++j) EXPECT_GE(fifo.jobs[static_cast<size_t>(j)].start_s, fifo.jobs[0].finish_s);  // all 8 GPUs were taken
  // Backfill runs the small jobs at once; the head job still completes.
  const SimResult backfill = run_preset("bace-pipe", tr.sc, jobs, seed);
  ASSERT_EQ(backfill.metrics.jobs_completed, 4);
  for (int j = 1; j < 4; ++j) EXPECT_EQ(backfill.jobs[static_cast<size_t>(j)].start_s, 0.0);
}

TEST(NoJobLeftBehind, FillPoliciesPlaceAcrossAMissingLinkTheGreedyFillCannot) {
  // a - c - b, no a - b link, 4 GPUs each; a 12-stage job needs all three. The greedy fill in
  // scenario (and price) order takes a, skips b (not linked to a), takes c, and ends with 8
  // stages: it could never place the job. The complete fill goes a -> c -> b.
  Scenario sc = make_scenario({make_gpu("gpu")}, {{"a", 0, 4, 0.10}, {"b", 0, 4, 0.20}, {"c", 0, 4, 0.30}},
                              {tiny_llm("tiny", 12)});
  set_link(sc.topology, 0, 2, 10e9, 0.01);
  set_link(sc.topology, 2, 1, 10e9, 0.01);
  const std::vector<Job> jobs = finalize_jobs({make_job(0.0, 0, 12, 1, 8, 100), make_job(1.0, 0, 2, 1, 8, 100)});
  const std::vector<int> expect = {0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1};
  for (const char* name : {"first-fit", "greedy-cost", "cost-first"}) {
    SCOPED_TRACE(name);
    const SimResult r = run_preset(name, sc, jobs);
    ASSERT_EQ(r.metrics.jobs_completed, 2);
    EXPECT_EQ(r.jobs[0].start_s, 0.0);
    EXPECT_EQ(r.jobs[0].stage_region, expect);
  }
  // Where the greedy fill can place a job on the idle cluster it is kept as it is, even when
  // it waits: job 1 (2 stages) waits behind job 0 under FIFO, then fills region a.
  const SimResult ff = run_preset("first-fit", sc, jobs);
  EXPECT_EQ(ff.jobs[1].start_s, ff.jobs[0].finish_s);
  EXPECT_EQ(ff.jobs[1].stage_region, (std::vector<int>{0, 0}));
}

// A link whose capacity drops below the job's stall-free demand β for ever (a series held
// after its end) while the job waits: no stall-free placement will ever exist again. Model
// version 4 decided the relaxations on the series' maximum, found one there, never allowed
// the stall-tolerant fallback and failed the run ("a scheduler bug") under bace-pipe,
// bace-no-priority and bace-no-costmin. They are now decided on the capacities in force.
TEST(NoJobLeftBehind, ALinkThatDropsBelowTheStallFreeDemandForEverStillCarriesItsJobs) {
  TwoRegions tr = two_regions(1.0);
  auto drop = std::make_shared<const StepSeries>(std::vector<double>{0.0, 100.0},
                                                 std::vector<double>{2.0 * tr.beta, 0.5 * tr.beta}, SeriesEnd::kHold, true);
  for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 0}}) {
    tr.sc.topology.link(a, b).capacity_bytes_per_s = drop->max_value();
    tr.sc.topology.link(a, b).capacity_series = drop;
  }
  // Job 0 arrives before the drop, jobs 1 and 2 after it; each needs both regions.
  const std::vector<Job> jobs = finalize_jobs(
      {make_job(0.0, 0, 8, 1, 8, 100), make_job(200.0, 0, 8, 1, 8, 100), make_job(300.0, 0, 8, 1, 8, 100)});
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    SimResult r;
    ASSERT_NO_THROW(r = run_preset(name, tr.sc, jobs));
    ASSERT_EQ(r.metrics.jobs_completed, 3);
    EXPECT_EQ(r.jobs[0].start_s, 0.0);  // stall-free before the drop
    // After it, each job starts as soon as the one before it has left the GPUs.
    EXPECT_EQ(r.jobs[1].start_s, std::max(200.0, r.jobs[0].finish_s));
    EXPECT_EQ(r.jobs[2].start_s, std::max(300.0, r.jobs[1].finish_s));
  }
}

// ---------------------------------------------------------------------------------------------
// A scheduler that would still strand jobs fails the run loudly

class NeverScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "never"; }
  void schedule(const SchedContext&, const WaitingQueue&, ClusterView&, std::vector<Decision>&) override { ++calls; }
  int calls = 0;
};

std::string failure_of(const Scenario& sc, const std::vector<Job>& jobs, Scheduler& s, const SimOptions& opt = {}) {
  try {
    (void)simulate(sc, jobs, s, 1, opt);
  } catch (const SimulationFailure& e) {
    return e.what();
  }
  return "";
}

TEST(NoJobLeftBehind, AStrandingSchedulerIsAFailedRunNamingIt) {
  TwoRegions tr = two_regions(2.0);
  const std::vector<Job> jobs = finalize_jobs({make_job(10.0, 0, 2, 1, 8, 100), make_job(20.0, 0, 2, 1, 8, 100)});
  {  // exact view: fails at the last arrival, the first time nothing can change any more
    NeverScheduler s;
    const std::string what = failure_of(tr.sc, jobs, s);
    EXPECT_EQ(what, "scheduler 'never' left 2 jobs waiting on an idle cluster at t = 20 s (the first is job 0; it sees "
                    "the network exactly, and nothing will change; a scheduler bug)");
    EXPECT_EQ(s.calls, 2);
  }
  {  // stale, noise-free: one more tick measures the idle truth, then it fails
    Scenario sc = tr.sc;
    sc.scheduler.view_staleness_s = 15.0;  // ticks at 0, 15, 30: tick 1 saw the idle network already
    NeverScheduler s;
    const std::string what = failure_of(sc, jobs, s);
    EXPECT_NE(what.find("left 2 jobs waiting on an idle cluster at t = 20 s"), std::string::npos) << what;
    EXPECT_NE(what.find("its view of the network is current"), std::string::npos) << what;
  }
  {  // live and noisy: the monitor keeps measuring, up to the limit
    Scenario sc = tr.sc;
    sc.scheduler.view_noise_sigma = 0.1;
    SimOptions opt;
    opt.max_idle_measurements = 5;
    NeverScheduler s;
    const std::string what = failure_of(sc, jobs, s, opt);
    EXPECT_NE(what.find("left 2 jobs waiting on an idle cluster at t = 300 s"), std::string::npos) << what;
    EXPECT_NE(what.find("no placement in 5 measurements of the idle network"), std::string::npos) << what;
    EXPECT_EQ(s.calls, 2 + 5);  // the two arrivals, then refresh ticks at 60, 120, ..., 300 s
  }
}

// ---------------------------------------------------------------------------------------------
// The property: every preset finishes every job of random accepted scenarios

// Every preset finishes every job of case k (and, for a measuring monitor on every tenth case,
// the same seed gives the same run); returns the number of jobs completed over the presets.
// A job stranded while a wrapped capacity series keeps adding events would only end the run at
// the default budget of 3·10⁸ event times, after minutes: these cases need fewer than 10⁵, so
// a budget of 10⁶ turns a stranded job into a quick failure.
long max_events_seen = 0;  // over the cases run so far, for the summary line
long quiet_ticks_skipped = 0;  // event times a stale monitor without noise did not need, summed
double bound_ratio_min = std::numeric_limits<double>::infinity();  // least avg_jct_s / jct_lower_bound_s seen
long bounded_runs = 0;  // runs under the even split, whose bound was checked

int expect_every_preset_finishes(const testutil::RandomCase& c, int k,
                                 const std::function<void(const std::string&, const SimResult&)>& each = {}) {
  const Scenario& sc = c.scenario;
  SimOptions opt;
  opt.max_events = 1'000'000;
  int jobs_total = 0;
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE("case " + std::to_string(k) + ", " + name);
    SimResult r;
    EXPECT_NO_THROW(r = run_preset(name, sc, c.jobs, 1000 + static_cast<std::uint64_t>(k), opt));
    EXPECT_EQ(r.metrics.jobs_total, static_cast<int>(c.jobs.size()));
    EXPECT_EQ(r.metrics.jobs_completed, r.metrics.jobs_total);
    EXPECT_EQ(r.metrics.jobs_unfinished, 0);
    for (const JobRecord& j : r.jobs) EXPECT_TRUE(j.finished()) << "job " << j.id;
    // No scheduler beats the offline lower bound on the mean JCT (docs/model.md, "Lower bound on
    // the mean JCT"); up to the rounding of the two sums. Under the balanced layer split T_alone
    // is no bound (a balanced split can run faster than its even split): NaN.
    if (sc.compute.layer_partition == LayerPartition::kBalanced) {
      EXPECT_TRUE(std::isnan(r.metrics.jct_lower_bound_s));
    } else {
      EXPECT_GT(r.metrics.jct_lower_bound_s, 0.0);
      EXPECT_LE(r.metrics.jct_lower_bound_s, r.metrics.avg_jct_s * (1 + 1e-12));
      bound_ratio_min = std::min(bound_ratio_min, r.metrics.avg_jct_s / r.metrics.jct_lower_bound_s);
      ++bounded_runs;
    }
    jobs_total += r.metrics.jobs_completed;
    max_events_seen = std::max(max_events_seen, r.metrics.events);
    if (each) each(name, r);
    if (k % 10 == 0 && (sc.scheduler.view_noise_sigma > 0 || sc.scheduler.view_staleness_s > 0)) {  // a monitor that measures: same seed, same run
      const SimResult again = run_preset(name, sc, c.jobs, 1000 + static_cast<std::uint64_t>(k));
      expect_same_metrics(r.metrics, again.metrics);
      expect_same_jobs(r.jobs, again.jobs);
    }
    if (sc.scheduler.view_staleness_s > 0 && sc.scheduler.view_noise_sigma == 0) {
      // Its quiet ticks (the view equals the truth) are no events: the same run, fewer events.
      SimOptions every_tick = opt;
      every_tick.skip_quiet_monitor_ticks = false;
      const SimResult all = run_preset(name, sc, c.jobs, 1000 + static_cast<std::uint64_t>(k), every_tick);
      expect_same_metrics(r.metrics, all.metrics, "events");
      expect_same_jobs(r.jobs, all.jobs);
      EXPECT_LE(r.metrics.events, all.metrics.events);
      quiet_ticks_skipped += all.metrics.events - r.metrics.events;
    }
  }
  return jobs_total;
}

TEST(NoJobLeftBehind, EveryPresetFinishesEveryJobOfRandomScenarios) {
  constexpr int kCases = 500;
  ASSERT_GE(preset_names().size(), 8u);  // every preset of the table (test_presets pins the count)
  int noisy = 0, stale = 0, missing_links = 0, jobs_total = 0;
  for (int k = 0; k < kCases; ++k) {
    const testutil::RandomCase c = testutil::random_case(2026, static_cast<std::uint64_t>(k));
    const Scenario& sc = c.scenario;
    ASSERT_FALSE(c.jobs.empty()) << "case " << k;
    noisy += sc.scheduler.view_noise_sigma > 0;
    stale += sc.scheduler.view_staleness_s > 0;
    const int R = sc.topology.num_regions();
    for (int a = 0; a < R; ++a)
      for (int b = a + 1; b < R; ++b) missing_links += !sc.topology.connected(a, b);
    jobs_total += expect_every_preset_finishes(c, k);
    if (HasFailure()) break;  // one failing case is enough to read
  }
  // The sample covers what it claims to.
  EXPECT_GT(noisy, kCases / 3);
  EXPECT_GT(stale, kCases / 3);
  EXPECT_GT(missing_links, kCases);
  EXPECT_GT(quiet_ticks_skipped, 0);  // the comparison with every tick an event compared something
  std::cout << "[ property ] " << kCases << " scenarios x " << preset_names().size() << " presets, " << jobs_total << " jobs completed (" << noisy
            << " noisy, " << stale << " stale views; " << missing_links << " missing links; " << quiet_ticks_skipped
            << " quiet monitor ticks skipped, same runs; " << bounded_runs << " runs of the even split so far: least avg_jct_s / jct_lower_bound_s "
            << bound_ratio_min << ")\n";
}

// The same property where link capacities change in time (random_series_case): drops below
// jobs' stall-free demands, outages and recoveries at any time, held or wrapped. Before the
// relaxations were decided on the capacities in force, a drop held for ever stranded jobs.
TEST(NoJobLeftBehind, EveryPresetFinishesEveryJobWhenLinkCapacitiesChangeInTime) {
  constexpr int kCases = 300;
  int series = 0, outages = 0, held = 0, jobs_total = 0;
  for (int k = 0; k < kCases; ++k) {
    const testutil::RandomCase c = testutil::random_series_case(2027, static_cast<std::uint64_t>(k));
    ASSERT_FALSE(c.jobs.empty()) << "case " << k;
    for (const Link& l : c.scenario.topology.links)
      if (l.capacity_series) {
        ++series;
        const std::vector<double>& v = l.capacity_series->values();
        outages += std::find(v.begin(), v.end(), 0.0) != v.end();
        held += l.capacity_series->end() == SeriesEnd::kHold && v.back() < v.front();
      }
    jobs_total += expect_every_preset_finishes(c, k);
    if (HasFailure()) break;
  }
  EXPECT_GT(series, 2 * kCases);
  EXPECT_GT(outages, kCases / 2);
  EXPECT_GT(held, kCases / 4);  // drops that last for ever
  std::cout << "[ property ] " << kCases << " scenarios with capacity series x " << preset_names().size() << " presets, " << jobs_total
            << " jobs completed (" << series << " series, " << outages << " with outages, " << held
            << " held below their start; at most " << max_events_seen << " event times in a run)\n";
}

// The same property with data-parallel jobs (random_dp_case): every preset places each job's
// replicas as a gang, and every job completes, under all-reduce and DiLoCo synchronisation.
TEST(NoJobLeftBehind, EveryPresetFinishesEveryDataParallelJob) {
  constexpr int kCases = 200;
  int dp_jobs = 0, diloco = 0, hierarchical = 0, jobs_total = 0;
  for (int k = 0; k < kCases; ++k) {
    const testutil::RandomCase c = testutil::random_dp_case(2028, static_cast<std::uint64_t>(k));
    ASSERT_FALSE(c.jobs.empty()) << "case " << k;
    for (const Job& j : c.jobs) dp_jobs += j.data_parallel > 1;
    diloco += c.scenario.compute.dp_sync == DpSync::kDiLoCo;
    hierarchical += c.scenario.compute.allreduce == AllReduceKind::kHierarchical;
    jobs_total += expect_every_preset_finishes(c, k);
    if (HasFailure()) break;
  }
  EXPECT_GT(dp_jobs, kCases * 5);  // most cases have several
  EXPECT_GT(diloco, kCases / 4);
  EXPECT_GT(hierarchical, kCases / 4);
  std::cout << "[ property ] " << kCases << " scenarios with data parallelism x " << preset_names().size() << " presets, " << jobs_total
            << " jobs completed (" << dp_jobs << " of several replicas; " << diloco << " scenarios with DiLoCo, "
            << hierarchical << " hierarchical)\n";
}

// The same property with flexible jobs (random_flexible_case): every preset starts each
// data_parallel = 0 job as one of its variants (D·S = its slots), and every job completes; the
// sample has jobs that start with one replica and jobs that start with several.
TEST(NoJobLeftBehind, EveryPresetFinishesEveryFlexibleJob) {
  constexpr int kCases = 100;
  int flexible = 0, jobs_total = 0, ran_one = 0, ran_several = 0;
  for (int k = 0; k < kCases; ++k) {
    const testutil::RandomCase c = testutil::random_flexible_case(2029, static_cast<std::uint64_t>(k));
    ASSERT_FALSE(c.jobs.empty()) << "case " << k;
    for (const Job& j : c.jobs) flexible += j.data_parallel == 0;
    jobs_total += expect_every_preset_finishes(c, k, [&](const std::string& name, const SimResult& r) {
      for (const JobRecord& rec : r.jobs) {
        const Job& j = c.jobs[static_cast<size_t>(rec.id)];
        if (j.data_parallel != 0) continue;
        EXPECT_EQ(rec.data_parallel * rec.stages, j.stages) << name << ", job " << rec.id;
        EXPECT_EQ(rec.stage_region.size(), static_cast<size_t>(j.stages)) << name << ", job " << rec.id;
        (rec.data_parallel == 1 ? ran_one : ran_several) += 1;
      }
    });
    if (HasFailure()) break;
  }
  EXPECT_GT(flexible, kCases * 3);
  EXPECT_GT(ran_one, kCases);
  EXPECT_GT(ran_several, kCases);
  std::cout << "[ property ] " << kCases << " scenarios with flexible jobs x " << preset_names().size() << " presets, " << jobs_total
            << " jobs completed (" << flexible << " flexible; started with one replica " << ran_one
            << " times, with several " << ran_several << " times)\n";
}

}  // namespace
}  // namespace geopipe
