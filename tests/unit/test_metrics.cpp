// The metric list (sim/metrics.h) and the accumulator's formulas (sim/metrics_accumulator.h)
// against hand-computed values; the per-job row (sim/job_row.h).
#include <gtest/gtest.h>

#include <cstdint>
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
                                             "lost_gpu_hours", "checkpoint_gpu_hours"}));
  EXPECT_EQ(numbers, (std::vector<double>{7, 4, 2, 3, 1, 2, 3, 4, 5, 6, 8, 9.5, 9, 0.5, 10, 11, 12, 13, 17, 14, 15, 16}));
  EXPECT_EQ(regions_text(sc, {}), "");
  EXPECT_EQ(regions_text(sc, {0, 1, 0}), "a;b;a");
  // D replicas of S stages (replica by replica): each replica's blocks, replicas joined by '|'
  EXPECT_EQ(regions_text(sc, {0, 1, 0, 0, 1, 1}, 3), "a;b;a|a;b");
  EXPECT_EQ(regions_text(sc, {0, 0, 0, 0}, 2), "a|a");
  EXPECT_EQ(regions_text(sc, {0, 1, 0}, 3), "a;b;a");
}

}  // namespace
}  // namespace geopipe
