// The event engine end to end on hand-computable scenarios (docs/model.md, "Network
// sharing" to "Events and metrics").
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "model/scenario.h"
#include "sim/engine.h"
#include "model/gpipe.h"
#include "sched/registry.h"
#include "sim/energy.h"
#include "sim/timeline.h"
#include "util/input_error.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

using testutil::ScriptedScheduler;

Scenario base(int regions, int gpus_each, double price, double pue) {
  Scenario sc;
  sc.name = "test";
  sc.compute.mfu = 0.5;
  sc.compute.recompute = Recompute::kNone;  // the hand computations below: b = 2f
  sc.llms = {LlmSpec{"tiny", 10, 1000, 5000, 100, 2}};
  Topology& t = sc.topology;
  t.gpu_types = {GpuType{"g", 100e12, 80e9, 500.0, 100.0}};
  for (int r = 0; r < regions; ++r) {
    Region reg;
    reg.name = "r" + std::to_string(r);
    reg.gpu_count = gpus_each;
    reg.price = PriceProfile::flat(price);
    reg.pue = pue;
    reg.carbon_g_per_kwh = 400;
    t.regions.push_back(reg);
  }
  t.reset_links();
  t.intra_bandwidth_bytes_per_s = kInf;
  t.intra_latency_s = 0;
  return sc;
}

Job make_job(int id, double arrival, int S, int m, long iters) {
  Job j;
  j.id = id;
  j.arrival_s = arrival;
  j.model = 0;
  j.stages = S;
  j.micro_batch_size = 1;
  j.micro_batches = m;
  j.iterations = iters;
  j.gpus_per_stage = 1;
  return j;
}

TEST(Engine, SchedulerSearchEffortBecomesMetrics) {
  const Scenario sc = base(1, 4, 0.1, 1.0);
  ScriptedScheduler s({{0, 0}}, SearchEffort{3, 40, 2, 1});
  const SimResult r = simulate(sc, {make_job(0, 0.0, 2, 4, 10)}, s, 1);
  EXPECT_EQ(r.metrics.jobs_completed, 1);
  EXPECT_EQ(r.metrics.sched_searches, 3);
  EXPECT_EQ(r.metrics.sched_search_nodes, 40);
  EXPECT_EQ(r.metrics.sched_truncated_searches, 2);
  EXPECT_EQ(r.metrics.sched_partition_misses, 1);
}

TEST(Engine, OneJobEnergyAndCostByHand) {
  Scenario sc = base(1, 4, 0.2, 1.5);
  const std::vector<Job> jobs = {make_job(0, 100.0, 2, 4, 1000)};
  ScriptedScheduler s({{0, 0}});
  const SimResult r = simulate(sc, jobs, s, 1);
  // Hand computation. Per micro-batch forward FLOP: 24·b·s·h²·(1 + s/6h) per layer, 5 layers
  // each, plus the LM head 2·b·s·h·V on stage 1; speed = 100 TFLOP/s · 0.5.
  const double b = 1, s_ = 100, h = 1000, V = 5000, speed = 50e12;
  const double layer = 24 * b * s_ * h * h * (1 + s_ / (6 * h));
  const double f0 = 5 * layer / speed, f1 = (5 * layer + 2 * b * s_ * h * V) / speed;
  const int m = 4;
  // Free communication, unequal stages: T = Σ 3f + (m−1)·max 3f.
  const double T = 3 * (f0 + f1) + (m - 1) * 3 * std::max(f0, f1);
  const double busy0 = m * 3 * f0, busy1 = m * 3 * f1;
  const double e_iter = 1.5 * (500 * busy0 + 100 * (T - busy0)) + 1.5 * (500 * busy1 + 100 * (T - busy1));
  const double energy = 1000 * e_iter;
  ASSERT_EQ(r.jobs.size(), 1u);
  const JobRecord& j = r.jobs[0];
  EXPECT_DOUBLE_EQ(j.start_s, 100.0);
  EXPECT_NEAR(j.finish_s, 100.0 + 1000 * T, 1e-9 * 1000 * T);
  EXPECT_NEAR(j.mean_iteration_s, T, 1e-12 * T);
  EXPECT_DOUBLE_EQ(j.first_iteration_s, T);
  EXPECT_NEAR(j.energy_j, energy, 1e-9 * energy);
  EXPECT_NEAR(j.cost_usd(), energy / 3.6e6 * 0.2, 1e-9 * energy / 3.6e6 * 0.2);
  EXPECT_NEAR(j.carbon_g, energy / 3.6e6 * 400, 1e-6);
  const ScenarioMetrics& mt = r.metrics;
  EXPECT_EQ(mt.jobs_completed, 1);
  EXPECT_NEAR(mt.avg_jct_s, 1000 * T, 1e-9 * 1000 * T);
  EXPECT_EQ(mt.avg_queue_delay_s, 0.0);
  EXPECT_NEAR(mt.total_energy_j, energy, 1e-9 * energy);
  EXPECT_NEAR(mt.gpu_hours, 2 * 1000 * T / 3600, 1e-9);
  EXPECT_NEAR(mt.gpu_utilization, (busy0 + busy1) / (2 * T), 1e-12);
  EXPECT_EQ(mt.cross_region_bytes, 0.0);
  EXPECT_NEAR(mt.stall_fraction, 0.0, 1e-12);
  EXPECT_NEAR(mt.makespan_s, 100 + 1000 * T, 1e-6);
}

// Fairness end to end (docs/model.md, "Fairness"): two identical 1-GPU jobs arrive together on
// a 1-GPU cluster. Job 0 runs [0, T], job 1 waits and runs [T, 2T]: JCTs T and 2T. N̄_0 = 2,
// N̄_1 = (2T + T) / 2T = 1.5; G = g = 1, so T_iso = 2·T_alone and 1.5·T_alone, with T_alone = T
// (alone on the cluster's only GPU type, no communication: the engine's run time is the ideal
// one): ρ = 0.5 and 4/3.
TEST(Engine, FairnessOfTwoJobsQueuedOnOneGpuByHand) {
  const Scenario sc = base(1, 1, 0.1, 1.0);
  const std::vector<Job> jobs = {make_job(0, 0.0, 1, 4, 1000), make_job(1, 0.0, 1, 4, 1000)};
  ScriptedScheduler s(std::vector<std::vector<int>>{{0}, {0}});
  const SimResult r = simulate(sc, jobs, s, 1);
  ASSERT_EQ(r.jobs.size(), 2u);
  const double T = r.jobs[0].finish_s;
  ASSERT_GT(T, 0.0);
  EXPECT_EQ(r.jobs[1].start_s, T);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 2 * T);
  for (const JobRecord& j : r.jobs) {
    EXPECT_EQ(j.gpus, 1);
    EXPECT_DOUBLE_EQ(j.alone_s, T);
  }
  EXPECT_DOUBLE_EQ(r.jobs[0].isolated_jct_s, 2 * T);
  EXPECT_DOUBLE_EQ(r.jobs[1].isolated_jct_s, 1.5 * T);
  EXPECT_DOUBLE_EQ(r.jobs[0].ftf_rho, 0.5);
  EXPECT_DOUBLE_EQ(r.jobs[1].ftf_rho, 4.0 / 3.0);
  const ScenarioMetrics& m = r.metrics;
  EXPECT_DOUBLE_EQ(m.avg_ftf_rho, (0.5 + 4.0 / 3.0) / 2);  // 11/12
  EXPECT_DOUBLE_EQ(m.max_ftf_rho, 4.0 / 3.0);
  EXPECT_EQ(m.unfair_fraction, 0.5);
  // x = 1/ρ = 2 and 0.75: 2.75² / (2·(4 + 0.5625)) = 0.8287...
  EXPECT_DOUBLE_EQ(m.jain_fairness, 2.75 * 2.75 / (2 * (4 + 0.5625)));
  EXPECT_DOUBLE_EQ(m.p99_queue_delay_s, 0.99 * T);  // delays 0 and T
  EXPECT_DOUBLE_EQ(m.avg_queue_delay_s, 0.5 * T);
  // Without job records (a JobTally per job): the same metrics bit for bit.
  SimOptions light;
  light.record_jobs = false;
  ScriptedScheduler s2(std::vector<std::vector<int>>{{0}, {0}});
  const SimResult q = simulate(sc, jobs, s2, 1, light);
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{{m.avg_ftf_rho, q.metrics.avg_ftf_rho},
                                                                  {m.max_ftf_rho, q.metrics.max_ftf_rho},
                                                                  {m.unfair_fraction, q.metrics.unfair_fraction},
                                                                  {m.jain_fairness, q.metrics.jain_fairness},
                                                                  {m.p99_queue_delay_s, q.metrics.p99_queue_delay_s}})
    EXPECT_EQ(x, y);
}

TEST(Engine, EgressIsBilledPerGbToTheSendingDirection) {
  // Two stages on r0 -> r1; the link bills $0.02/GB from r0 to r1 and $0.09/GB back.
  Scenario sc = base(2, 4, 0.2, 1.0);
  sc.topology.link(0, 1) = Link{1e12, 0.001, 0.02 / 1e9, {}};
  sc.topology.link(1, 0) = Link{1e12, 0.001, 0.09 / 1e9, {}};
  const long I = 1000;
  const int m = 4;
  ScriptedScheduler s({{0, 1}});
  const SimResult r = simulate(sc, {make_job(0, 0.0, 2, m, I)}, s, 1);
  ASSERT_EQ(r.jobs.size(), 1u);
  const JobRecord& j = r.jobs[0];
  // A = b·s·h·bytes = 1·100·1000·2 = 200,000 bytes per micro-batch and direction: per iteration
  // 4 activations (0.8 MB) to r1 at $0.02/GB and 4 gradients back at $0.09/GB.
  const double A = 200000.0;
  const double expected = I * (m * A / 1e9 * 0.02 + m * A / 1e9 * 0.09);  // $0.088
  EXPECT_NEAR(j.egress_cost_usd, expected, 1e-12 * expected);
  EXPECT_GT(j.electricity_cost_usd, 0.0);
  EXPECT_EQ(j.cost_usd(), j.electricity_cost_usd + j.egress_cost_usd);
  EXPECT_NEAR(j.cross_region_bytes, I * 2.0 * m * A, 1e-9);
  const ScenarioMetrics& mt = r.metrics;
  EXPECT_EQ(mt.egress_cost_usd, j.egress_cost_usd);
  EXPECT_EQ(mt.electricity_cost_usd, j.electricity_cost_usd);
  EXPECT_EQ(mt.total_cost_usd, j.electricity_cost_usd + j.egress_cost_usd);
  // The same run without prices: the same electricity, no egress, total = electricity.
  sc.topology.link(0, 1).egress_usd_per_byte = sc.topology.link(1, 0).egress_usd_per_byte = 0;
  ScriptedScheduler s2({{0, 1}});
  const SimResult free = simulate(sc, {make_job(0, 0.0, 2, m, I)}, s2, 1);
  EXPECT_EQ(free.jobs[0].electricity_cost_usd, j.electricity_cost_usd);
  EXPECT_EQ(free.metrics.egress_cost_usd, 0.0);
  EXPECT_EQ(free.metrics.total_cost_usd, free.metrics.electricity_cost_usd);
}

TEST(Engine, CostFollowsHourlyPriceAcrossMidnight) {
  Scenario sc = base(1, 4, 0.2, 1.0);
  std::array<double, 24> prices{};
  prices.fill(0.10);
  prices[0] = 0.40;  // expensive hour right after local midnight
  sc.topology.regions[0].price = PriceProfile::hourly(prices, 0.0);
  // One single-stage job running from 23:00 for exactly 2 hours: 1 h at 0.10, 1 h at 0.40.
  Job j = make_job(0, 23 * 3600.0, 1, 1, 1);
  const JobProfile p = make_profile(j, sc.llms[0], sc.compute);
  const double T = 3 * p.fwd_flops[0] / 50e12;  // one micro-batch: f + b
  j.iterations = static_cast<long>(std::llround(7200.0 / T));
  const double run = static_cast<double>(j.iterations) * T;
  ScriptedScheduler s(std::vector<std::vector<int>>{{0}});
  const SimResult r = simulate(sc, {j}, s, 1);
  const double power = 500.0;  // always busy: m·(f+b) = T
  const double first = std::min(run, 3600.0), second = run - first;
  EXPECT_NEAR(r.jobs[0].cost_usd(), power / 1000 * (first / 3600 * 0.10 + second / 3600 * 0.40), 1e-9);
  EXPECT_NEAR(r.jobs[0].energy_j, power * run, 1e-6);
}

/// Iteration time of a 2-stage, 4-micro-batch job with forward times f0, f1 over one hop of
/// bandwidth `bw` each way and 10 ms latency, by the schedule's recurrence.
double two_stage_iteration_s(PipelineScheduleKind kind, double f0, double f1, double bw, double activation_bytes) {
  std::vector<double> f = {f0, f1}, b = {2 * f0, 2 * f1}, B = {bw}, lat = {0.01};
  PipelineInput in;
  in.micro_batches = 4;
  in.fwd_s = f;
  in.bwd_s = b;
  in.hop_fwd_bytes_per_s = B;
  in.hop_bwd_bytes_per_s = B;
  in.hop_latency_s = lat;
  in.activation_bytes = activation_bytes;
  PipelineScratch scratch;
  return pipeline_schedule(kind).iteration_time(in, scratch);
}

/// Regions 0 and 1 joined by a link of `betas` times a 2-stage job's stall-free demand β per
/// direction (latency 10 ms), under pipeline schedule `kind`: the scenario, the job's profile,
/// its forward times and β.
struct LinkCase {
  Scenario sc = base(2, 4, 0.1, 1.0);
  JobProfile p;
  double f0 = 0, f1 = 0, beta = 0, C = 0;
  LinkCase(PipelineScheduleKind kind, double betas) {
    sc.compute.pipeline_schedule = kind;
    p = make_profile(make_job(0, 0, 2, 4, 1), sc.llms[0], sc.compute);
    f0 = p.fwd_flops[0] / 50e12;
    f1 = p.fwd_flops[1] / 50e12;
    beta = p.activation_bytes / std::min(f0, f1);
    C = betas * beta;
    sc.topology.link(0, 1) = Link{C, 0.01, 0, {}};
    sc.topology.link(1, 0) = Link{C, 0.01, 0, {}};
  }
};

// Regions 0 and 1 joined by a link of capacity C per direction, below each job's demand β; the
// engine times both jobs with the scenario's pipeline schedule.
/// Returns the iteration time of a job alone on the link.
double two_jobs_share_a_link(PipelineScheduleKind kind) {
  const LinkCase c(kind, 0.5);
  const Scenario& sc = c.sc;
  const JobProfile& p = c.p;
  const double f0 = c.f0, f1 = c.f1, C = c.C;
  auto T_at = [&](double bw) { return two_stage_iteration_s(kind, f0, f1, bw, p.activation_bytes); };
  const double T_alone = T_at(C), T_shared = T_at(C / 2);
  EXPECT_GT(T_shared, T_alone);
  // Job 0 starts at 0 alone; job 1 arrives at t1 and shares the link; job 0 then runs at
  // T_shared until it finishes; after that job 1 runs alone again.
  const long I = 1000;
  const double t1 = 300 * T_alone;  // job 0 has done exactly 300 iterations by then
  const std::vector<Job> jobs = {make_job(0, 0.0, 2, 4, I), make_job(1, t1, 2, 4, I)};
  ScriptedScheduler s({{0, 1}, {0, 1}});
  const SimResult r = simulate(sc, jobs, s, 1);
  const double fin0 = t1 + (I - 300) * T_shared;
  EXPECT_NEAR(r.jobs[0].finish_s, fin0, 1e-9 * fin0);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_iteration_s, T_alone);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_iteration_s, T_shared);
  // Job 1: (fin0 − t1)/T_shared iterations while sharing, the rest alone.
  const double done1 = (fin0 - t1) / T_shared;
  const double fin1 = fin0 + (I - done1) * T_alone;
  EXPECT_NEAR(r.jobs[1].finish_s, fin1, 1e-9 * fin1);
  // Cross-region bytes: 2·m·A per iteration per cross hop.
  EXPECT_NEAR(r.metrics.cross_region_bytes, 2.0 * I * 2 * 4 * p.activation_bytes, 1e-6 * r.metrics.cross_region_bytes);
  EXPECT_GT(r.metrics.stall_fraction, 0.0);
  return T_alone;
}

TEST(Engine, TwoJobsShareALinkMaxMinAndRecomputeOnChange) { two_jobs_share_a_link(PipelineScheduleKind::kGPipe); }

TEST(Engine, TheScenariosPipelineScheduleTimesEveryIteration) {
  const double t_1f1b = two_jobs_share_a_link(PipelineScheduleKind::kOneFOneB);
  // On this link-bound pipeline the two schedules differ, so the check above saw 1F1B's times.
  EXPECT_NE(t_1f1b, two_jobs_share_a_link(PipelineScheduleKind::kGPipe));
}

// Work-conserving transfers (docs/model.md, "Network sharing"): on a link of capacity C = 10β
// a job alone runs its transfers at C, not at its stall-free demand β; a second job on the
// link takes β and leaves each (C − 2β) / 2 more, so both run at C / 2; after it ends, the
// first runs at C again. 1F1B, whose forwards and backwards wait for each other's transfers.
TEST(Engine, TransfersUseWhatTheLinksReservationsLeave) {
  const LinkCase c(PipelineScheduleKind::kOneFOneB, 10);
  const Scenario& sc = c.sc;
  const JobProfile& p = c.p;
  const double f0 = c.f0, f1 = c.f1, beta = c.beta, C = c.C;
  auto T_at = [&](double bw) { return two_stage_iteration_s(PipelineScheduleKind::kOneFOneB, f0, f1, bw, p.activation_bytes); };
  const double T_alone = T_at(C), T_shared = T_at(C / 2), T_capped = T_at(beta);
  EXPECT_LT(T_alone, T_shared);
  EXPECT_LT(T_shared, T_capped);  // model version 3 ran both at β
  const long I = 1000;
  const double t1 = 300 * T_alone;
  const std::vector<Job> jobs = {make_job(0, 0.0, 2, 4, I), make_job(1, t1, 2, 4, I)};
  ScriptedScheduler s({{0, 1}, {0, 1}});
  const SimResult r = simulate(sc, jobs, s, 1);
  EXPECT_NEAR(r.jobs[0].first_iteration_s, T_alone, 1e-12 * T_alone);
  EXPECT_NEAR(r.jobs[1].first_iteration_s, T_shared, 1e-12 * T_shared);
  const double fin0 = t1 + (I - 300) * T_shared;
  EXPECT_NEAR(r.jobs[0].finish_s, fin0, 1e-9 * fin0);
  const double fin1 = fin0 + (I - (fin0 - t1) / T_shared) * T_alone;
  EXPECT_NEAR(r.jobs[1].finish_s, fin1, 1e-9 * fin1);
}

TEST(Engine, UnplaceableJobsFailTheRunLoudly) {
  Scenario sc = base(1, 2, 0.1, 1.0);
  // The scripted scheduler never finds room for a 4-GPU placement on a 2-GPU region: once the
  // first job is done, nothing runs, nothing will arrive and the exact view cannot change.
  const std::vector<Job> jobs = {make_job(0, 0.0, 1, 1, 10), make_job(1, 1.0, 4, 4, 10)};
  ScriptedScheduler s(std::vector<std::vector<int>>{{0}, {0, 0, 0, 0}});
  try {
    (void)simulate(sc, jobs, s, 1);
    FAIL() << "expected SimulationFailure";
  } catch (const SimulationFailure& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scheduler 'scripted' left 1 job waiting on an idle cluster at t = "), std::string::npos) << what;
    EXPECT_NE(what.find("the first is job 1"), std::string::npos) << what;
    EXPECT_NE(what.find("sees the network exactly"), std::string::npos) << what;
  }
}

// A waiting job under an hourly price profile costs one event per simulated hour: a job that
// runs ~1000 h behind another needs ~1000 events. With a budget below that the run stops with
// InputError (bounded work for any accepted input) instead of running on; at the budget it runs.
TEST(Engine, EventBudgetStopsAnAstronomicallyLongRun) {
  Scenario sc = base(1, 1, 0.1, 1.0);
  std::array<double, 24> prices{};
  prices.fill(0.10);
  prices[12] = 0.20;
  sc.topology.regions[0].price = PriceProfile::hourly(prices, 0.0);
  Job first = make_job(0, 0.0, 1, 1, 1);
  const double T = 3 * make_profile(first, sc.llms[0], sc.compute).fwd_flops[0] / 50e12;
  first.iterations = static_cast<long>(std::llround(1000 * 3600.0 / T));  // ~1000 h on the only GPU
  const std::vector<Job> jobs = {first, make_job(1, 1.0, 1, 1, 10)};     // waits all that time
  ScriptedScheduler s1(std::vector<std::vector<int>>{{0}, {0}});
  const SimResult full = simulate(sc, jobs, s1, 1);
  EXPECT_EQ(full.metrics.jobs_completed, 2);
  EXPECT_GT(full.metrics.events, 80);  // two price changes a day for ~42 days
  SimOptions tight;
  tight.max_events = static_cast<std::uint64_t>(full.metrics.events) - 1;
  ScriptedScheduler s2(std::vector<std::vector<int>>{{0}, {0}});
  try {
    (void)simulate(sc, jobs, s2, 1, tight);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than " + std::to_string(tight.max_events) + " event times"), std::string::npos)
        << e.what();
    // ... naming what produced them: the hour boundaries while job 1 waited
    EXPECT_NE(std::string(e.what()).find("% of them were price steps"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a flat price or a coarser price series"), std::string::npos) << e.what();
  }
  SimOptions exact;
  exact.max_events = static_cast<std::uint64_t>(full.metrics.events);
  ScriptedScheduler s3(std::vector<std::vector<int>>{{0}, {0}});
  EXPECT_EQ(simulate(sc, jobs, s3, 1, exact).metrics.jobs_completed, 2);
}

// A job that waits 3.5 days behind another under a stale monitor of the shortest period
// (kMinMonitorPeriodS, 1 ms): 3·10^8 ticks. Without noise each tick after the first measures
// the unchanged truth, so none is an event (SimOptions::skip_quiet_monitor_ticks) and the run
// takes a handful of event times; with every tick an event the budget is exhausted, and the
// error names the monitor and its period; so it does with noise, where every tick redraws.
TEST(Engine, QuietMonitorTicksAreNoEventsAndTheBudgetErrorNamesTheMonitor) {
  Scenario sc = base(1, 1, 0.1, 1.0);
  sc.scheduler.view_staleness_s = kMinMonitorPeriodS;
  Job first = make_job(0, 0.0, 1, 1, 1);
  const double T = 3 * make_profile(first, sc.llms[0], sc.compute).fwd_flops[0] / 50e12;
  first.iterations = static_cast<long>(std::llround(3.5 * 86400.0 / T));  // 3.5 days on the only GPU
  const std::vector<Job> jobs = {first, make_job(1, 1.0, 1, 1, 10)};        // waits all that time
  ScriptedScheduler s1(std::vector<std::vector<int>>{{0}, {0}});
  const SimResult quiet = simulate(sc, jobs, s1, 1);
  EXPECT_EQ(quiet.metrics.jobs_completed, 2);
  EXPECT_LE(quiet.metrics.events, 6);  // arrivals, completions, the ticks right after them
  EXPECT_GT(quiet.jobs[1].start_s, 3.4 * 86400.0);
  const auto budget_error = [&](double sigma, bool skip) -> std::string {
    Scenario s = sc;
    s.scheduler.view_noise_sigma = sigma;
    SimOptions opt;
    opt.max_events = 100'000;
    opt.skip_quiet_monitor_ticks = skip;
    ScriptedScheduler sched(std::vector<std::vector<int>>{{0}, {0}});
    try {
      (void)simulate(s, jobs, sched, 1, opt);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  for (const auto& [sigma, skip] : {std::pair{0.0, false}, std::pair{0.1, true}}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    const std::string what = budget_error(sigma, skip);
    EXPECT_NE(what.find("more than 100000 event times"), std::string::npos) << what;
    EXPECT_NE(what.find("100 % of them were ticks of the scheduler's bandwidth monitor while jobs waited (every "
                        "0.001 s, scheduler.view_staleness_s)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("a longer scheduler.view_staleness_s"), std::string::npos) << what;
  }
}

// The timeline recorder (sim/timeline.h) on a hand-built run: regions 0 and 1 joined by a link
// of 1.5 β per direction, two 2-stage jobs placed 0 -> 1. Alone a job's flows get their demand
// β; together the two share the link, 0.75 β each, so the allocated total follows
// β, 1.5 β, β, 0 as job 1 starts, job 0 finishes and job 1 finishes.
TEST(Engine, TimelineFollowsJobsGpusAndTheMaxMinSplit) {
  Scenario sc = base(2, 4, 0.1, 1.0);
  const std::vector<Job> jobs = {make_job(0, 0.0, 2, 4, 10000), make_job(1, 10.0, 2, 4, 10000)};
  const JobProfile p = make_profile(jobs[0], sc.llms[0], sc.compute);
  const double f0 = forward_time(p, 0, sc.topology.gpu_types[0], sc.compute);
  const double f1 = forward_time(p, 1, sc.topology.gpu_types[0], sc.compute);
  const double beta = stall_free_demand_bytes_per_s(p.activation_bytes, f0, f1);
  const double C = 1.5 * beta;
  sc.topology.link(0, 1) = Link{C, 0.01, 0, {}};
  sc.topology.link(1, 0) = Link{C, 0.01, 0, {}};
  ScriptedScheduler plain({{0, 1}, {0, 1}});
  const SimResult without = simulate(sc, jobs, plain, 1);
  EXPECT_FALSE(without.timeline.has_value());
  SimOptions opt;
  opt.record_timeline = true;
  ScriptedScheduler s({{0, 1}, {0, 1}});
  const SimResult r = simulate(sc, jobs, s, 1, opt);
  ASSERT_TRUE(r.timeline.has_value());
  // Recording changes no result.
  const auto with_fields = metric_fields(r.metrics), without_fields = metric_fields(without.metrics);
  ASSERT_EQ(with_fields.size(), metric_defs().size());
  for (std::size_t k = 0; k < with_fields.size(); ++k) {
    if (metric_defs()[k].deterministic) {
      EXPECT_EQ(with_fields[k].value, without_fields[k].value) << metric_defs()[k].name;
    }
  }
  const Timeline& tl = *r.timeline;
  const double s1 = r.jobs[1].start_s, fin0 = r.jobs[0].finish_s, fin1 = r.jobs[1].finish_s;
  ASSERT_EQ(s1, 10.0);
  ASSERT_LT(s1, fin0);
  ASSERT_LT(fin0, fin1);
  EXPECT_EQ(tl.end_s, fin1);
  EXPECT_EQ(tl.end_s, r.metrics.makespan_s);

  // One slice per (job, region), in start order; job 1 runs beside job 0, so on lane 1.
  ASSERT_EQ(tl.slices.size(), 4u);
  const int want_job[] = {0, 0, 1, 1}, want_region[] = {0, 1, 0, 1}, want_lane[] = {0, 0, 1, 1};
  for (std::size_t k = 0; k < 4; ++k) {
    const TimelineSlice& sl = tl.slices[k];
    EXPECT_EQ(sl.job, want_job[k]);
    EXPECT_EQ(sl.region, want_region[k]);
    EXPECT_EQ(sl.lane, want_lane[k]);
    EXPECT_EQ(sl.stages, 1);
    EXPECT_EQ(sl.start_s, r.jobs[static_cast<std::size_t>(sl.job)].start_s);
    EXPECT_EQ(sl.finish_s, r.jobs[static_cast<std::size_t>(sl.job)].finish_s);
  }
  EXPECT_EQ(tl.lanes, (std::vector<int>{2, 2}));

  // Link counters: both directions, at t = 0 and at every change of the allocated total.
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<TimelineLinkSample> l;
    for (const TimelineLinkSample& x : tl.links)
      if (x.from == dir && x.to == 1 - dir) l.push_back(x);
    ASSERT_EQ(l.size(), 4u) << "direction " << dir;
    const double want_t[] = {0.0, s1, fin0, fin1}, want_alloc[] = {beta, C, beta, 0.0};
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(l[k].t_s, want_t[k]);
      EXPECT_NEAR(l[k].allocated_bytes_per_s, want_alloc[k], 1e-12 * C) << k;
      EXPECT_LE(l[k].allocated_bytes_per_s, C);
    }
  }
  // Busy GPUs: 1, 2, 1, 0 in each region (one stage of one GPU per job and region).
  for (int reg = 0; reg < 2; ++reg) {
    std::vector<std::pair<double, int>> b;
    for (const TimelineBusySample& x : tl.busy)
      if (x.region == reg) b.emplace_back(x.t_s, x.busy_gpus);
    EXPECT_EQ(b, (std::vector<std::pair<double, int>>{{0.0, 1}, {s1, 2}, {fin0, 1}, {fin1, 0}})) << "region " << reg;
  }
  // Nobody waited; flat prices: one sample each, at 0.
  ASSERT_EQ(tl.queue.size(), 1u);
  EXPECT_EQ(tl.queue[0].waiting, 0);
  ASSERT_EQ(tl.prices.size(), 2u);
  EXPECT_EQ(tl.prices[0].usd_per_kwh, 0.1);
  EXPECT_FALSE(tl.prices_truncated);
  // Every counter's samples are in time order.
  for (std::size_t k = 1; k < tl.busy.size(); ++k)
    if (tl.busy[k].region == tl.busy[k - 1].region) {
      EXPECT_LE(tl.busy[k - 1].t_s, tl.busy[k].t_s);
    }
}

// The recorder alone: lanes are reused from the time they are freed, a region used by several
// stages of one job is one slice, a change at the time of a counter's last sample replaces it,
// an unchanged value adds nothing, waiting jobs are counted, and hourly prices give one sample
// per change up to the end.
TEST(Engine, TimelineRecorderLanesCountersAndPrices) {
  Scenario sc = base(2, 8, 0.1, 1.0);
  std::array<double, 24> prices{};
  prices.fill(0.10);
  prices[1] = 0.30;  // 01:00-02:00 local = UTC
  sc.topology.regions[1].price = PriceProfile::hourly(prices, 0.0);
  TimelineRecorder rec(sc.topology, 3);
  const std::vector<double> residual = {kInf, 0.0, 0.0, kInf};  // no links: ignored
  rec.job_started(0.0, 0, std::vector<int>{0, 0, 1});
  rec.sample(0.0, std::vector<int>{6, 7}, residual, residual, 2);
  rec.job_started(10.0, 1, std::vector<int>{0});
  rec.sample(10.0, std::vector<int>{5, 7}, residual, residual, 1);
  rec.sample(20.0, std::vector<int>{5, 7}, residual, residual, 1);  // nothing changed
  rec.job_finished(30.0, 0);
  rec.job_started(30.0, 2, std::vector<int>{1, 0});
  rec.sample(30.0, std::vector<int>{6, 7}, residual, residual, 0);
  rec.job_finished(9000.0, 1);
  rec.job_finished(9000.0, 2);
  rec.sample(9000.0, std::vector<int>{8, 8}, residual, residual, 0);
  const Timeline tl = rec.finish(9000.0);
  ASSERT_EQ(tl.slices.size(), 5u);
  EXPECT_EQ(tl.slices[0].stages, 2);  // job 0: stages 0 and 1 on region 0
  EXPECT_EQ(tl.slices[1].region, 1);
  EXPECT_EQ(tl.slices[2].lane, 1);    // job 1 on region 0 beside job 0
  EXPECT_EQ(tl.slices[3].region, 1);  // job 2 (regions 1, 0) takes the lanes job 0 left at 30 s
  EXPECT_EQ(tl.slices[3].lane, 0);
  EXPECT_EQ(tl.slices[4].region, 0);
  EXPECT_EQ(tl.slices[4].lane, 0);
  EXPECT_EQ(tl.slices[4].finish_s, 9000.0);
  EXPECT_EQ(tl.lanes, (std::vector<int>{2, 1}));
  std::vector<std::pair<double, int>> busy0;
  for (const TimelineBusySample& x : tl.busy)
    if (x.region == 0) busy0.emplace_back(x.t_s, x.busy_gpus);
  EXPECT_EQ(busy0, (std::vector<std::pair<double, int>>{{0.0, 2}, {10.0, 3}, {30.0, 2}, {9000.0, 0}}));
  std::vector<std::pair<double, int>> queue;
  for (const TimelineQueueSample& x : tl.queue) queue.emplace_back(x.t_s, x.waiting);
  EXPECT_EQ(queue, (std::vector<std::pair<double, int>>{{0.0, 2}, {10.0, 1}, {30.0, 0}}));
  EXPECT_TRUE(tl.links.empty());
  std::vector<std::tuple<double, int, double>> pr;
  for (const TimelinePriceSample& x : tl.prices) pr.emplace_back(x.t_s, x.region, x.usd_per_kwh);
  EXPECT_EQ(pr, (std::vector<std::tuple<double, int, double>>{{0.0, 0, 0.1}, {0.0, 1, 0.1}, {3600.0, 1, 0.3}, {7200.0, 1, 0.1}}));
}

// ---- Time-varying links and prices (docs/model.md, "Time series") ----

/// Two-region scenario whose link a <-> b carries one job's stall-free demand β when up; the
/// job profile and its T(bw) at a hop bandwidth bw.
struct SeriesCase {
  Scenario sc = base(2, 4, 0.1, 1.0);
  JobProfile p;
  double beta = 0;
  double f0 = 0, f1 = 0;
  SeriesCase() {
    p = make_profile(make_job(0, 0, 2, 4, 1), sc.llms[0], sc.compute);
    f0 = p.fwd_flops[0] / 50e12;
    f1 = p.fwd_flops[1] / 50e12;
    beta = p.activation_bytes / std::min(f0, f1);
  }
  double T(double bw) const { return two_stage_iteration_s(PipelineScheduleKind::kGPipe, f0, f1, bw, p.activation_bytes); }
  void link_series(std::vector<double> t, std::vector<double> cap, SeriesEnd end = SeriesEnd::kHold) {
    auto s = std::make_shared<const StepSeries>(std::move(t), std::move(cap), end, true);
    for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 0}}) {
      Link& l = sc.topology.link(a, b);
      l.capacity_bytes_per_s = s->max_value();
      l.latency_s = 0.01;
      l.capacity_series = s;
    }
  }
};

// Two jobs share the link (β/2 each) until its capacity drops from β to β/2 (β/4 each); job 0
// finishes, then job 1 runs alone on the dropped link (β/2).
TEST(EngineSeries, TwoJobsAcrossABandwidthDropByHand) {
  SeriesCase c;
  const double Ta = c.T(c.beta / 2), Tb = c.T(c.beta / 4);
  const double t_drop = 100 * Ta;  // both jobs have done exactly 100 iterations by then
  c.link_series({0.0, t_drop}, {c.beta, c.beta / 2});
  const long I = 400;
  ScriptedScheduler s({{0, 1}, {0, 1}});
  const SimResult r = simulate(c.sc, {make_job(0, 0.0, 2, 4, I), make_job(1, 0.0, 2, 4, 2 * I)}, s, 1);
  const double fin0 = t_drop + (I - 100) * Tb;
  EXPECT_NEAR(r.jobs[0].finish_s, fin0, 1e-9 * fin0);
  const double done1 = 100 + (fin0 - t_drop) / Tb;
  const double fin1 = fin0 + (2 * I - done1) * Ta;  // alone on β/2: T(β/2) again
  EXPECT_NEAR(r.jobs[1].finish_s, fin1, 1e-9 * fin1);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_iteration_s, Ta);
}

// An outage stops a cross-region job (no progress, idle power) and not a same-region one; when
// the link returns the job resumes where it was.
TEST(EngineSeries, AnOutageStopsTheJobsOverTheLinkByHand) {
  SeriesCase c;
  const double T1 = c.T(c.beta);
  const double t_down = 50 * T1, t_up = t_down + 1234.5;
  c.link_series({0.0, t_down, t_up}, {c.beta, 0.0, c.beta});
  const long I = 200;
  ScriptedScheduler s({{0, 1}, {0, 0}});
  const SimResult r = simulate(c.sc, {make_job(0, 0.0, 2, 4, I), make_job(1, 0.0, 2, 4, I)}, s, 1);
  const double fin0 = I * T1 + (t_up - t_down);
  EXPECT_NEAR(r.jobs[0].finish_s, fin0, 1e-9 * fin0);
  // Job 1 (both stages in region 0, free intra-region hops) never sees the outage.
  const SimResult alone = simulate(c.sc, {make_job(0, 0.0, 2, 4, I)}, *std::make_unique<ScriptedScheduler>(
                                                                            std::vector<std::vector<int>>{{0, 0}}), 1);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, alone.jobs[0].finish_s);
  // Energy of job 0: its running power for I·T1 seconds, idle power during the outage.
  const GpuType& g = c.sc.topology.gpu_types[0];
  double run_w = 0;
  for (double f : {c.f0, c.f1}) run_w += stage_power_w(1, 1.0, g, stage_busy_per_iteration_s(4, f, 2.0), T1);
  const double idle_w = 2 * stage_power_w(1, 1.0, g, 0.0, 1.0);
  const double e = run_w * I * T1 + idle_w * (t_up - t_down);
  EXPECT_NEAR(r.jobs[0].energy_j, e, 1e-9 * e);
  EXPECT_TRUE(std::isfinite(r.metrics.stall_fraction));
  EXPECT_GT(r.metrics.stall_fraction, 0.0);
  EXPECT_TRUE(std::isfinite(r.jobs[0].mean_iteration_s));
}

// A job placed on a link that is down when it starts waits for it without NaN: its first
// iteration time is +inf, its finish is the outage's end plus its run.
TEST(EngineSeries, AJobStartedDuringAnOutageStartsWhenTheLinkReturns) {
  SeriesCase c;
  const double T1 = c.T(c.beta);
  c.link_series({0.0, 10.0, 500.0}, {c.beta, 0.0, c.beta});
  ScriptedScheduler s({{0, 1}});
  const SimResult r = simulate(c.sc, {make_job(0, 20.0, 2, 4, 100)}, s, 1);
  EXPECT_EQ(r.jobs[0].start_s, 20.0);
  EXPECT_EQ(r.jobs[0].first_iteration_s, kInf);
  EXPECT_NEAR(r.jobs[0].finish_s, 500.0 + 100 * T1, 1e-9 * (500.0 + 100 * T1));
}

// A capacity series that is constant (one step, or equal steps) is the constant capacity: the
// same run bit for bit, events included.
TEST(EngineSeries, AConstantSeriesIsNoSeriesBitForBit) {
  const std::vector<Job> jobs = {make_job(0, 0.0, 2, 4, 300), make_job(1, 5.0, 2, 4, 500), make_job(2, 9.0, 2, 4, 100)};
  SeriesCase plain;
  const double C = 0.75 * plain.beta;
  for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 0}}) plain.sc.topology.link(a, b) = Link{C, 0.01, 0, {}};
  ScriptedScheduler s0({{0, 1}, {0, 1}, {1, 0}});
  const SimResult r0 = simulate(plain.sc, jobs, s0, 1);
  for (const std::vector<double>& times : {std::vector<double>{0.0}, std::vector<double>{0.0, 100.0, 2000.0}}) {
    SeriesCase c;
    c.link_series(times, std::vector<double>(times.size(), C), SeriesEnd::kWrap);
    ScriptedScheduler s1({{0, 1}, {0, 1}, {1, 0}});
    const SimResult r1 = simulate(c.sc, jobs, s1, 1);
    EXPECT_EQ(r1.metrics.events, r0.metrics.events);
    EXPECT_EQ(r1.metrics.sched_calls, r0.metrics.sched_calls);
    EXPECT_EQ(r1.metrics.avg_jct_s, r0.metrics.avg_jct_s);
    EXPECT_EQ(r1.metrics.total_cost_usd, r0.metrics.total_cost_usd);
    EXPECT_EQ(r1.metrics.total_energy_j, r0.metrics.total_energy_j);
    EXPECT_EQ(r1.metrics.stall_fraction, r0.metrics.stall_fraction);
    for (size_t j = 0; j < jobs.size(); ++j) {
      EXPECT_EQ(r1.jobs[j].finish_s, r0.jobs[j].finish_s);
      EXPECT_EQ(r1.jobs[j].energy_j, r0.jobs[j].energy_j);
    }
  }
}

// A region's price as a wrapped 24-step hourly series is its 24-hour profile: the same run bit
// for bit (price boundaries call the scheduler at the same times, cost integrates alike).
TEST(EngineSeries, APriceSeriesIsTheEquivalentProfileBitForBit) {
  std::array<double, 24> hourly{};
  std::vector<double> t, v;
  for (int h = 0; h < 24; ++h) {
    hourly[static_cast<size_t>(h)] = 0.05 + 0.01 * ((h * 7) % 13);
    t.push_back(3600.0 * h);
    v.push_back(hourly[static_cast<size_t>(h)]);
  }
  // One region, 2 GPUs: three 2-stage jobs queue, run over several hours.
  auto run = [&](bool series) {
    Scenario sc = base(1, 2, 0.1, 1.2);
    sc.topology.regions[0].price = series ? PriceProfile::series(std::make_shared<const StepSeries>(t, v, SeriesEnd::kWrap))
                                          : PriceProfile::hourly(hourly, 0.0);
    ScriptedScheduler s({{0, 0}, {0, 0}, {0, 0}});
    return simulate(sc, {make_job(0, 0.0, 2, 4, 10000000), make_job(1, 100.0, 2, 4, 15000000), make_job(2, 4000.0, 2, 4, 4500000)}, s, 1);
  };
  const SimResult a = run(false), b = run(true);
  ASSERT_GT(a.jobs[2].finish_s, 86400.0);  // the run crosses a day of price changes, then wraps
  EXPECT_EQ(b.metrics.events, a.metrics.events);
  EXPECT_EQ(b.metrics.sched_calls, a.metrics.sched_calls);
  EXPECT_EQ(b.metrics.total_cost_usd, a.metrics.total_cost_usd);
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(b.jobs[j].electricity_cost_usd, a.jobs[j].electricity_cost_usd);
}

// sim.series_end = "error": a run that passes a series' end fails with InputError.
TEST(EngineSeries, PassingTheEndOfAnErrorSeriesFailsTheRun) {
  SeriesCase c;
  c.link_series({0.0, 100.0}, {c.beta, c.beta / 2}, SeriesEnd::kError);  // covers [0, 200)
  ScriptedScheduler s({{0, 1}});
  EXPECT_THROW(simulate(c.sc, {make_job(0, 0.0, 2, 4, 100000)}, s, 1), InputError);
  ScriptedScheduler s2({{0, 1}});
  EXPECT_NO_THROW(simulate(c.sc, {make_job(0, 0.0, 2, 4, 1)}, s2, 1));
  // A constant series ends too: its equal steps merge into one, its end stays at 200 s.
  c.link_series({0.0, 100.0}, {c.beta, c.beta}, SeriesEnd::kError);
  ScriptedScheduler s3({{0, 1}});
  EXPECT_THROW(simulate(c.sc, {make_job(0, 0.0, 2, 4, 100000)}, s3, 1), InputError);
}

// A carbon series integrates over its steps: 100 g/kWh for the first hour, 300 after; a job
// drawing constant power P from 0 to T > 3600 emits P·(100·3600 + 300·(T − 3600)) / 3.6e6 g.
TEST(EngineSeries, CarbonSeriesIntegratesOverItsSteps) {
  Scenario sc = base(1, 2, 0.1, 1.0);
  sc.topology.regions[0].carbon_series =
      std::make_shared<const StepSeries>(std::vector<double>{0.0, 3600.0}, std::vector<double>{100.0, 300.0}, SeriesEnd::kHold);
  ScriptedScheduler s({{0, 0}});
  const SimResult r = simulate(sc, {make_job(0, 0.0, 2, 4, 3000000)}, s, 1);
  const double T = r.jobs[0].finish_s;
  ASSERT_GT(T, 3600.0);
  const double P = r.jobs[0].energy_j / T;
  const double want = P * (100.0 * 3600.0 + 300.0 * (T - 3600.0)) / 3.6e6;
  EXPECT_NEAR(r.jobs[0].carbon_g, want, 1e-9 * want);
}

// A job that only a link which is down could carry waits (bace-pipe's failure cache remembers
// the failed shape), and starts when the link comes back: the rise starts a new epoch, so the
// cached failure expires. Two 1-GPU regions, a 2-stage job: it must span the link.
TEST(EngineSeries, ACapacityRiseExpiresCachedFailures) {
  SeriesCase c;
  c.sc.topology.regions[0].gpu_count = 1;
  c.sc.topology.regions[1].gpu_count = 1;
  const double t_up = 5000.0;
  c.link_series({0.0, 10.0, t_up}, {c.beta, 0.0, c.beta});
  for (const char* preset : {"bace-pipe", "delay-first", "bace-no-costmin"}) {
    auto sched = make_scheduler(preset, c.sc.scheduler);
    const SimResult r = simulate(c.sc, {make_job(0, 20.0, 2, 4, 100), make_job(1, 30.0, 2, 4, 100)}, *sched, 1);
    // The bandwidth-aware searches see a share of 0 over the down link and wait for it.
    EXPECT_EQ(r.jobs[0].start_s, t_up) << preset;
    EXPECT_GT(r.jobs[1].start_s, t_up) << preset;
    EXPECT_EQ(r.metrics.jobs_completed, 2) << preset;
  }
}

// Every step that changes a capacity calls the scheduler while a job waits, with a new epoch
// and a new capacity version: a fall too, since it may relax a search policy's constraints
// (sched/search_policies.cpp) and so turn a cached failure into a placement. A scheduler that
// never places records what it is shown; the run then fails, naming it.
class RecordingScheduler final : public Scheduler {
 public:
  struct Call {
    double t_s;
    long epoch, capacity_version;
    double capacity_ab;
  };
  std::string_view name() const override { return "recording"; }
  void schedule(const SchedContext&, const WaitingQueue&, ClusterView& view, std::vector<Decision>&) override {
    calls.push_back({view.now_s, view.epoch, view.capacity_version, view.capacity_bw(0, 1)});
  }
  std::vector<Call> calls;
};

TEST(EngineSeries, EveryCapacityChangeStartsANewEpoch) {
  SeriesCase c;
  // Falls at 100 and 300 s, rises at 200 and 400 s; an equal step at 250 s is merged away.
  c.link_series({0.0, 100.0, 200.0, 250.0, 300.0, 400.0}, {c.beta, c.beta / 2, c.beta, c.beta, 0.0, c.beta});
  RecordingScheduler s;
  EXPECT_THROW((void)simulate(c.sc, {make_job(0, 0.0, 2, 4, 100)}, s, 1), SimulationFailure);
  const std::vector<double> t = {0.0, 100.0, 200.0, 300.0, 400.0}, cap = {c.beta, c.beta / 2, c.beta, 0.0, c.beta};
  ASSERT_EQ(s.calls.size(), t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_EQ(s.calls[k].t_s, t[k]);
    EXPECT_EQ(s.calls[k].capacity_ab, cap[k]);
    if (k == 0) continue;
    EXPECT_GT(s.calls[k].epoch, s.calls[k - 1].epoch) << "at " << t[k] << " s";
    EXPECT_GT(s.calls[k].capacity_version, s.calls[k - 1].capacity_version) << "at " << t[k] << " s";
  }
}

}  // namespace
}  // namespace geopipe

namespace geopipe {
namespace {

// The engine keeps a profile for each waiting and running job only (memory follows them, not
// the scenario): the profile a scheduler sees is make_profile's, bit for bit, whichever other
// job of the same shape held its slot before; a job that has not arrived or has finished has
// none, and asking for it is a logic error (not a silently reused slot).
class ProfileCheckingScheduler final : public Scheduler {
 public:
  ProfileCheckingScheduler(const Scenario& sc, const std::vector<Job>& jobs) : sc_(sc), jobs_(jobs) {}
  std::string_view name() const override { return "profile-checking"; }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    for (int j : queue) {
      const JobProfile want = make_profile(jobs_[static_cast<size_t>(j)], sc_.llms[0], sc_.compute);
      const JobProfile& got = ctx.profile(j);
      EXPECT_EQ(got.iterations, want.iterations) << j;
      EXPECT_EQ(got.stages, want.stages) << j;
      EXPECT_EQ(got.layers, want.layers) << j;
      EXPECT_EQ(got.fwd_flops, want.fwd_flops) << j;
      EXPECT_EQ(got.memory_bytes, want.memory_bytes) << j;
      ++checked;
    }
    for (int done : finished_) {
      EXPECT_THROW((void)ctx.profile(done), std::logic_error) << done;
      ++refused;
    }
    if (queue.empty()) return;
    const int j = *queue.begin();
    Placement p{std::vector<int>(static_cast<size_t>(ctx.job(j).stages), 0)};
    if (p.gpus_per_region(view.regions(), 1)[0] > view.free_gpus[0]) return;
    view.commit(ctx.profile(j), p);
    out.push_back({j, p});
    started_.push_back(j);
    // Jobs run one at a time on region 0: every earlier start has finished by the next call.
    finished_.assign(started_.begin(), started_.end() - 1);
  }
  int checked = 0, refused = 0;

 private:
  const Scenario& sc_;
  const std::vector<Job>& jobs_;
  std::vector<int> started_, finished_;
};

TEST(Engine, ProfilesExistForWaitingAndRunningJobsOnly) {
  Scenario sc = base(1, 4, 0.1, 1.0);
  // Two shapes (2 and 4 stages) with different iterations; all 4 GPUs per job, one at a time.
  std::vector<Job> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(make_job(i, 10.0 * i, i % 2 ? 4 : 2, 4, 50 + 7 * i));
  for (Job& j : jobs) j.gpus_per_stage = j.stages == 2 ? 2 : 1;
  ProfileCheckingScheduler s(sc, jobs);
  const SimResult r = simulate(sc, jobs, s, 1);
  EXPECT_EQ(r.metrics.jobs_completed, 8);
  EXPECT_GE(s.checked, 8);
  EXPECT_GE(s.refused, 1);
}

}  // namespace
}  // namespace geopipe
