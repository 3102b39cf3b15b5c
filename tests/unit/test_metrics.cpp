// The metric list (sim/metrics.h) and the accumulator's formulas (sim/metrics_accumulator.h)
// against hand-computed values; the per-job row (sim/job_row.h).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "model/scenario.h"
#include "sim/job_row.h"
#include "sim/metrics.h"
#include "sim/metrics_accumulator.h"

namespace geopipe {
namespace {

TEST(Metrics, ListIsTheStructInOrderWithUniqueUnitBearingNames) {
  const auto& defs = metric_defs();
  std::set<std::string> names;
  for (const MetricDef& d : defs) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_EQ(find_metric(d.name), &d);
    const std::string n = d.name, u = d.unit;
    // Units in names: a metric with a unit says it in its name's suffix.
    auto ends_with = [&](const std::string& suffix) {
      return n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (u == "s") {
      EXPECT_TRUE(ends_with("_s")) << n;
    } else if (u == "J") {
      EXPECT_TRUE(ends_with("_j")) << n;
    } else if (u == "USD") {
      EXPECT_TRUE(ends_with("_usd")) << n;
    } else if (u == "g") {
      EXPECT_TRUE(ends_with("_g")) << n;
    } else if (u == "bytes") {
      EXPECT_TRUE(ends_with("_bytes")) << n;
    } else if (u == "h") {
      EXPECT_TRUE(ends_with("_hours")) << n;
    }
    EXPECT_NE(std::string(d.doc), "") << n;
  }
  EXPECT_EQ(find_metric("no_such_metric"), nullptr);
  // for_each_metric visits the members in list order: give each a distinct value and read it
  // back through metric_fields.
  ScenarioMetrics m;
  int k = 0;
  for_each_metric(m, [&](const MetricDef&, auto& v) { v = static_cast<std::decay_t<decltype(v)>>(++k); });
  const auto fields = metric_fields(m);
  ASSERT_EQ(fields.size(), defs.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    EXPECT_STREQ(fields[i].name, defs[i].name);
    EXPECT_EQ(fields[i].value, static_cast<double>(i + 1)) << fields[i].name;
  }
  EXPECT_EQ(m.jobs_total, 1);
  EXPECT_EQ(m.value, static_cast<double>(defs.size()));  // the last column
  // Only the wall-clock measurements are not deterministic; only `value` is a test function's.
  for (const MetricDef& d : defs) {
    const std::string n = d.name;
    EXPECT_EQ(d.deterministic, n != "wall_s" && n != "sched_time_total_s" && n != "sched_time_max_s") << n;
    EXPECT_EQ(d.source, n == "value" ? MetricSource::kTestFunction : MetricSource::kSimulation) << n;
  }
  EXPECT_STREQ(metric_source_name(MetricSource::kSimulation), "simulation");
  EXPECT_STREQ(metric_source_name(MetricSource::kTestFunction), "test_function");
  EXPECT_FALSE(metric_leaves_out_unfinished_jobs("value"));  // no jobs
  EXPECT_TRUE(metric_leaves_out_unfinished_jobs("avg_jct_s"));
  EXPECT_FALSE(metric_leaves_out_unfinished_jobs("jobs_total"));
}

TEST(Metrics, DisplayUnits) {
  EXPECT_DOUBLE_EQ(display_value(*find_metric("avg_jct_s"), 7200.0).value, 2.0);
  EXPECT_STREQ(display_value(*find_metric("avg_jct_s"), 0).unit, "h");
  EXPECT_DOUBLE_EQ(display_value(*find_metric("total_energy_j"), 7.2e9).value, 2.0);
  EXPECT_STREQ(display_value(*find_metric("total_energy_j"), 0).unit, "MWh");
  EXPECT_DOUBLE_EQ(display_value(*find_metric("cross_region_bytes"), 3e12).value, 3.0);
  EXPECT_DOUBLE_EQ(display_value(*find_metric("sched_time_max_s"), 0.25).value, 250.0);
  EXPECT_STREQ(display_value(*find_metric("total_cost_usd"), 0).unit, "USD");
  EXPECT_DOUBLE_EQ(display_value(*find_metric("total_cost_usd"), 12.5).value, 12.5);
}

TEST(Metrics, PercentileIsLinearInterpolation) {
  EXPECT_DOUBLE_EQ(percentile({}, 50), 0.0);
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 95), 4.8);
  EXPECT_DOUBLE_EQ(percentile({7}, 99), 7.0);
}

Topology two_region_topology() {
  Topology t;
  Region a, b;
  a.name = "a";
  a.price = PriceProfile::flat(0.2);
  a.carbon_g_per_kwh = 400;
  b.name = "b";
  b.price = PriceProfile::flat(0.1);
  b.carbon_g_per_kwh = 0;
  t.regions = {a, b};
  t.reset_links();
  return t;
}

TEST(MetricsAccumulator, OneJobByHand) {
  const Topology topo = two_region_topology();
  MetricsAccumulator acc(topo);
  const std::vector<int> regions = {0, 1};
  const std::vector<double> power = {1000.0, 2000.0};
  JobRates r;
  r.iteration_s = 10;
  r.iteration_nocomm_s = 8;
  r.gpus = 4;
  r.busy_gpu_s_per_iteration = 30;
  r.cross_region_bytes_per_iteration = 1e9;
  r.power_regions = regions;
  r.power_w = power;
  std::vector<JobRecord> recs(2);
  recs[0].arrival_s = -50;
  recs[0].start_s = 0;
  recs[0].finish_s = 100;
  recs[1].arrival_s = 10;  // never started
  acc.job_ran(recs[0], r, 0.0, 40.0, 4.0);  // in two pieces: sums must add up
  acc.job_ran(recs[0], r, 40.0, 100.0, 6.0);
  acc.event();
  acc.event();
  acc.scheduler_call(0.5);
  acc.scheduler_call(0.25);
  // Energy: (1000 + 2000) W x 100 s. Cost: 1e5 J at 0.2 $/kWh + 2e5 J at 0.1 $/kWh.
  EXPECT_DOUBLE_EQ(recs[0].energy_j, 3e5);
  EXPECT_NEAR(recs[0].cost_usd(), 1e5 / 3.6e6 * 0.2 + 2e5 / 3.6e6 * 0.1, 1e-15);
  EXPECT_NEAR(recs[0].carbon_g, 1e5 / 3.6e6 * 400, 1e-12);
  EXPECT_DOUBLE_EQ(recs[0].cross_region_bytes, 1e10);
  const ScenarioMetrics m = acc.finish(recs, SearchEffort{5, 60, 1, 3}, 2.0);
  EXPECT_EQ(m.jobs_total, 2);
  EXPECT_EQ(m.jobs_completed, 1);
  EXPECT_EQ(m.jobs_unfinished, 1);
  EXPECT_DOUBLE_EQ(m.avg_jct_s, 150.0);  // 100 − (−50)
  EXPECT_DOUBLE_EQ(m.p99_jct_s, 150.0);
  EXPECT_DOUBLE_EQ(m.avg_queue_delay_s, 50.0);  // only the started job
  EXPECT_DOUBLE_EQ(m.makespan_s, 100.0);
  EXPECT_DOUBLE_EQ(m.total_energy_j, 3e5);
  EXPECT_DOUBLE_EQ(m.cross_region_bytes, 1e10);
  EXPECT_DOUBLE_EQ(m.gpu_hours, 400.0 / 3600.0);        // 4 GPUs x 100 s
  EXPECT_DOUBLE_EQ(m.gpu_utilization, 300.0 / 400.0);   // 10 iterations x 30 GPU-s
  EXPECT_DOUBLE_EQ(m.stall_fraction, 0.2);              // (10 − 8) / 10 of the run
  EXPECT_EQ(m.events, 2);
  EXPECT_EQ(m.sched_calls, 2);
  EXPECT_DOUBLE_EQ(m.sched_time_total_s, 0.75);
  EXPECT_DOUBLE_EQ(m.sched_time_max_s, 0.5);
  EXPECT_EQ(m.sched_searches, 5);
  EXPECT_EQ(m.sched_search_nodes, 60);
  EXPECT_EQ(m.sched_truncated_searches, 1);
  EXPECT_EQ(m.sched_partition_misses, 3);
  EXPECT_DOUBLE_EQ(m.wall_s, 2.0);
}

TEST(MetricsAccumulator, PerIterationRatesByHand) {
  // g·m·(f + b) with b = 2f: 2 GPUs x 4 micro-batches x 3 x 0.5 s; with b = 3f (full
  // recomputation) x 4 x 0.5 s.
  EXPECT_DOUBLE_EQ(gpu_busy_s_per_iteration(2, 4, 0.5, 2.0), 12.0);
  EXPECT_DOUBLE_EQ(gpu_busy_s_per_iteration(2, 4, 0.5, 3.0), 16.0);
  // 2·m·A: m activations forward and m gradients back.
  EXPECT_DOUBLE_EQ(hop_bytes_per_iteration(8, 1e6), 1.6e7);
}

// ---------------------------------------------------------------------------------------------
// Fairness (docs/model.md, "Fairness"): hand-computed cases.

/// A finished job record for the fairness metrics: arrival, first start, finish, GPUs, T_alone.
JobRecord fair_job(double arrival, double start, double finish, int gpus, double alone) {
  JobRecord r;
  r.arrival_s = arrival;
  r.start_s = start;
  r.finish_s = finish;
  r.gpus = gpus;
  r.alone_s = alone;
  return r;
}

/// finish() over `recs` as JobRecords and as JobTallies on `topo`: the metrics must be the same
/// bit for bit (the engine keeps either).
ScenarioMetrics finish_both(const Topology& topo, std::vector<JobRecord>& recs) {
  std::vector<JobTally> tallies;
  for (const JobRecord& r : recs) {
    JobTally t;
    t.arrival_s = r.arrival_s;
    t.start_s = r.start_s;
    t.finish_s = r.finish_s;
    t.gpus = r.gpus;
    t.alone_s = r.alone_s;
    tallies.push_back(t);
  }
  MetricsAccumulator a(topo), b(topo);
  const ScenarioMetrics m = a.finish(recs, SearchEffort{}, 0.0);
  const ScenarioMetrics n = b.finish(tallies, SearchEffort{}, 0.0);
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{{m.avg_ftf_rho, n.avg_ftf_rho},
                                                                  {m.max_ftf_rho, n.max_ftf_rho},
                                                                  {m.unfair_fraction, n.unfair_fraction},
                                                                  {m.jain_fairness, n.jain_fairness},
                                                                  {m.p99_queue_delay_s, n.p99_queue_delay_s},
                                                                  {m.avg_jct_s, n.avg_jct_s}})
    EXPECT_EQ(std::bit_cast<std::uint64_t>(x), std::bit_cast<std::uint64_t>(y));
  return m;
}

/// two_region_topology() with 8 GPUs in each region: G = 16.
Topology sixteen_gpus() {
  Topology t = two_region_topology();
  for (Region& r : t.regions) r.gpu_count = 8;
  return t;
}

TEST(Fairness, MeanJobsInSystemOfThreeOverlappingJobsByHand) {
  // A [0, 10], B [2, 6], C [4, 12]: 1 job on [0, 2), 2 on [2, 4), 3 on [4, 6), 2 on [6, 10), 1 on
  // [10, 12); I(0) = 0, I(2) = 2, I(4) = 6, I(6) = 12, I(10) = 20, I(12) = 22.
  // N̄_A = 20 / 10 = 2, N̄_B = (12 − 2) / 4 = 2.5, N̄_C = (22 − 6) / 8 = 2.
  const std::vector<double> a = {0, 2, 4}, f = {10, 6, 12};
  EXPECT_EQ(mean_jobs_in_system(a, f), (std::vector<double>{2.0, 2.5, 2.0}));
  // The same jobs listed in another order: the same N̄ per job.
  EXPECT_EQ(mean_jobs_in_system(std::vector<double>{4, 0, 2}, std::vector<double>{12, 10, 6}),
            (std::vector<double>{2.0, 2.0, 2.5}));
  // Ties: job 1 takes no time at t = 5, where job 2 arrives too: the count after every arrival
  // at 5 (jobs 0, 1, 2) = 3; job 2 [5, 8]: 2 jobs on [5, 8) → 2 (job 1's completion at 5 ends
  // nothing of its span); job 3 never finishes: 0, but it is in the system from 9 on.
  // Job 0 [0, 10]: 1 on [0, 5), 2 on [5, 8), 1 on [8, 9), 2 on [9, 10) → (5 + 6 + 1 + 2) / 10.
  EXPECT_EQ(mean_jobs_in_system(std::vector<double>{0, 5, 5, 9}, std::vector<double>{10, 5, 8, -1}),
            (std::vector<double>{1.4, 3.0, 2.0, 0.0}));
  EXPECT_TRUE(mean_jobs_in_system(std::vector<double>{}, std::vector<double>{}).empty());
}

TEST(Fairness, IsolatedJctTakesTheShareOnlyWhenItExceedsTheJob) {
  // G = 16: N̄·g/G = 2·4/16 = 0.5 < 1, the job runs as alone; 3·8/16 = 1.5, a 1/N̄ share is
  // smaller than the job.
  EXPECT_DOUBLE_EQ(isolated_jct_s(100.0, 2.0, 4, 16), 100.0);
  EXPECT_DOUBLE_EQ(isolated_jct_s(100.0, 3.0, 8, 16), 150.0);
  EXPECT_DOUBLE_EQ(isolated_jct_s(100.0, 2.0, 8, 16), 100.0);  // exactly its share
  // Through finish(): two jobs both in [0, 300], N̄ = 2. Job 0 holds 4 of 16 GPUs: factor
  // inactive, T_iso = 100, ρ = 3. Job 1 holds all 16: factor 2, T_iso = 200, ρ = 1.5.
  const Topology topo = sixteen_gpus();
  std::vector<JobRecord> recs = {fair_job(0, 0, 300, 4, 100), fair_job(0, 100, 300, 16, 100)};
  const ScenarioMetrics m = finish_both(topo, recs);
  EXPECT_EQ(recs[0].isolated_jct_s, 100.0);
  EXPECT_EQ(recs[0].ftf_rho, 3.0);
  EXPECT_EQ(recs[1].isolated_jct_s, 200.0);
  EXPECT_EQ(recs[1].ftf_rho, 1.5);
  EXPECT_EQ(m.avg_ftf_rho, 2.25);
  EXPECT_EQ(m.max_ftf_rho, 3.0);
  EXPECT_EQ(m.unfair_fraction, 1.0);
  // x = 1/3, 2/3: (1)² / (2·(1/9 + 4/9)) = 0.9
  EXPECT_DOUBLE_EQ(m.jain_fairness, 0.9);
}

TEST(Fairness, JainIndexOfKnownValues) {
  EXPECT_EQ(jain_index(std::vector<double>{1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(jain_index(std::vector<double>{1, 0.5}), 0.9);  // 1.5² / (2·1.25)
  EXPECT_DOUBLE_EQ(jain_index(std::vector<double>{1, 0, 0, 0}), 0.25);  // 1/n
  EXPECT_EQ(jain_index(std::vector<double>{}), 0.0);
  // Through finish(): ρ = 1 and 2 on disjoint intervals (N̄ = 1, factor inactive): x = 1, 0.5.
  const Topology topo = sixteen_gpus();
  std::vector<JobRecord> recs = {fair_job(0, 0, 100, 1, 100), fair_job(1000, 1000, 1200, 1, 100)};
  const ScenarioMetrics m = finish_both(topo, recs);
  EXPECT_EQ(recs[0].ftf_rho, 1.0);
  EXPECT_EQ(recs[1].ftf_rho, 2.0);
  EXPECT_DOUBLE_EQ(m.jain_fairness, 0.9);
  EXPECT_EQ(m.avg_ftf_rho, 1.5);
  EXPECT_EQ(m.unfair_fraction, 0.5);
}

TEST(Fairness, UnfairFractionCountsRhoAboveOnePointZeroFive) {
  // Disjoint jobs of T_alone = 100 on one GPU of 16 (T_iso = 100): ρ = 1.04, 1.05 (not above),
  // 1.0500001 (above), 2.
  const Topology topo = sixteen_gpus();
  std::vector<JobRecord> recs = {fair_job(0, 0, 104, 1, 100), fair_job(1000, 1000, 1105, 1, 100),
                                 fair_job(2000, 2000, 2105.00001, 1, 100), fair_job(3000, 3000, 3200, 1, 100)};
  const ScenarioMetrics m = finish_both(topo, recs);
  EXPECT_EQ(recs[1].ftf_rho, 1.05);
  EXPECT_GT(recs[2].ftf_rho, 1.05);
  EXPECT_LT(recs[2].ftf_rho, 1.0501);
  EXPECT_EQ(m.unfair_fraction, 0.5);
  EXPECT_EQ(m.max_ftf_rho, 2.0);
  // A job without T_alone (only records built by hand) is left out; one that did not finish too.
  recs.push_back(fair_job(4000, 4000, 4100, 1, 0));
  recs.push_back(fair_job(5000, -1, -1, 1, 100));
  const ScenarioMetrics m2 = finish_both(topo, recs);
  EXPECT_EQ(m2.unfair_fraction, 0.5);
  EXPECT_EQ(recs[4].ftf_rho, 0.0);
  EXPECT_EQ(recs[5].ftf_rho, 0.0);
  EXPECT_EQ(recs[5].isolated_jct_s, 0.0);
}

TEST(Fairness, P99QueueDelayInterpolatesLikeNumpy) {
  // Queue delays 40, 0, 30, 10, 20 (job order); sorted 0..40, numpy's 99th percentile: index
  // 0.99·4 = 3.96 → 30 + 0.96·10 = 39.6. A job never started has no delay.
  const Topology topo = sixteen_gpus();
  std::vector<JobRecord> recs;
  const double delay[] = {40, 0, 30, 10, 20};
  for (int k = 0; k < 5; ++k) recs.push_back(fair_job(1000.0 * k, 1000.0 * k + delay[k], 1000.0 * k + 500, 1, 100));
  recs.push_back(fair_job(9000, -1, -1, 1, 0));
  const ScenarioMetrics m = finish_both(topo, recs);
  EXPECT_DOUBLE_EQ(m.p99_queue_delay_s, 39.6);
  EXPECT_DOUBLE_EQ(m.avg_queue_delay_s, 20.0);
  // No job: every fairness metric 0.
  std::vector<JobRecord> none;
  const ScenarioMetrics z = finish_both(topo, none);
  EXPECT_EQ(z.p99_queue_delay_s, 0.0);
  EXPECT_EQ(z.avg_ftf_rho, 0.0);
  EXPECT_EQ(z.max_ftf_rho, 0.0);
  EXPECT_EQ(z.unfair_fraction, 0.0);
  EXPECT_EQ(z.jain_fairness, 0.0);
}

TEST(JobRow, FromRecordWithRegionBlocksAndEveryColumnNamedOnce) {
  Scenario sc;
  sc.llms = {LlmSpec{"m0", 4, 64, 100, 16, 2}, LlmSpec{"m1", 4, 64, 100, 16, 2}};
  sc.topology = two_region_topology();
  JobRecord rec;
  rec.id = 7;
  rec.model = 1;
  rec.stages = 4;
  rec.gpus_per_stage = 2;
  rec.stage_region = {1, 1, 0, 0};
  rec.arrival_s = 1;
  rec.start_s = 2;
  rec.finish_s = 3;
  rec.iterations = 4;
  rec.mean_iteration_s = 5;
  rec.first_iteration_s = 6;
  rec.energy_j = 8;
  rec.electricity_cost_usd = 9;
  rec.egress_cost_usd = 0.5;
  rec.layers = {10, 9, 9};
  rec.carbon_g = 10;
  rec.cross_region_bytes = 11;
  rec.data_parallel = 3;
  rec.sync_bytes = 12;
  rec.failures = 13;
  rec.preemptions = 17;
  rec.restarts = 14;
  rec.lost_gpu_hours = 15;
  rec.checkpoint_gpu_hours = 16;
  rec.isolated_jct_s = 18;
  rec.ftf_rho = 19;
  const JobRow row = job_row(sc, rec);
  EXPECT_EQ(row.job_id, 7);
  EXPECT_EQ(row.model, "m1");
  EXPECT_EQ(row.regions, "b;a");
  EXPECT_EQ(row.layers, "10;9;9");
  std::vector<std::string> names;
  std::vector<double> numbers;
  for_each_job_column(row, [&](const char* name, const auto& v) {
    names.emplace_back(name);
    if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::string>) numbers.push_back(static_cast<double>(v));
  });
  EXPECT_EQ(names, (std::vector<std::string>{"job_id", "model", "stages", "gpus_per_stage", "data_parallel", "regions",
                                             "layers", "arrival_s", "start_s", "finish_s", "iterations",
                                             "mean_iteration_s", "first_iteration_s", "energy_j", "cost_usd",
                                             "electricity_cost_usd", "egress_cost_usd", "carbon_g",
                                             "cross_region_bytes", "sync_bytes", "failures", "preemptions", "restarts",
                                             "lost_gpu_hours", "checkpoint_gpu_hours", "isolated_jct_s", "ftf_rho"}));
  EXPECT_EQ(numbers,
            (std::vector<double>{7, 4, 2, 3, 1, 2, 3, 4, 5, 6, 8, 9.5, 9, 0.5, 10, 11, 12, 13, 17, 14, 15, 16, 18, 19}));
  EXPECT_EQ(regions_text(sc, {}), "");
  EXPECT_EQ(regions_text(sc, {0, 1, 0}), "a;b;a");
  // D replicas of S stages (replica by replica): each replica's blocks, replicas joined by '|'
  EXPECT_EQ(regions_text(sc, {0, 1, 0, 0, 1, 1}, 3), "a;b;a|a;b");
  EXPECT_EQ(regions_text(sc, {0, 0, 0, 0}, 2), "a|a");
  EXPECT_EQ(regions_text(sc, {0, 1, 0}, 3), "a;b;a");
}

}  // namespace
}  // namespace geopipe
