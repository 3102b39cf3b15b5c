// Tests of ScenarioFactory (src/sweepfile/loader.h): fixed and point overrides, concurrent use,
// relative paths.
#include <gtest/gtest.h>

#include "sweep_testing.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;
using namespace geopipe::sweep_testing;

TEST(SweepFactory, AppliesFixedAndPointOverrides) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[sweep.set]
"workload.num_jobs" = 9

[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0, 2.0]
)"));
  const Scenario base = load_scenario_file(kBase);
  ScenarioFactory f(s);
  const Scenario half = f.make(0);
  const Scenario same = f.make(1);
  const Scenario twice = f.make(2);
  const int a = region(base, "a"), b = region(base, "b");
  const double cap = base.topology.link(a, b).capacity_bytes_per_s;
  ASSERT_GT(cap, 0);
  EXPECT_DOUBLE_EQ(half.topology.link(a, b).capacity_bytes_per_s, cap / 2);
  EXPECT_DOUBLE_EQ(half.topology.link(b, a).capacity_bytes_per_s, cap / 2);
  EXPECT_DOUBLE_EQ(same.topology.link(a, b).capacity_bytes_per_s, cap);
  EXPECT_DOUBLE_EQ(twice.topology.link(a, b).capacity_bytes_per_s, cap * 2);
  EXPECT_EQ(half.workload.num_jobs, 9);
  EXPECT_EQ(base.workload.num_jobs, 20);
  EXPECT_EQ(half.source_path, kBase);
  // Everything else is the base.
  EXPECT_EQ(fingerprint(same), fingerprint(load_scenario_file(kBase, {parse_override("workload.num_jobs=9")})));
  EXPECT_THROW((void)f.make(3), std::out_of_range);
}

TEST(SweepFactory, ConcurrentMakeGivesIdenticalScenarios) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0, 2.0]
[[axis]]
param = "cluster.region.a.gpus"
values = [2, 8]
[[axis]]
param = "scheduler.preset"
values = ["cost-first", "bace-pipe"]
)",
                                                "[\"bace-pipe\"]", "2"));
  const ScenarioFactory f(s);
  std::vector<std::string> serial;
  for (std::size_t i = 0; i < s.num_points(); ++i) serial.push_back(fingerprint(f.make(i)));
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep)
        for (std::size_t k = 0; k < s.num_points(); ++k) {
          const std::size_t i = (k + t) % s.num_points();  // different order per thread
          if (rep == 0) got[t].resize(s.num_points());
          got[t][i] = fingerprint(f.make(i));
        }
    });
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < 4; ++t) EXPECT_EQ(got[t], serial) << "thread " << t;
  // Different points really differ.
  EXPECT_NE(serial[0], serial[1]);
}

TEST(SweepFactory, MakeTimeSixRegions) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[sweep.set]
"workload.num_jobs" = 100
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1, 2]
[[axis]]
param = "workload.load_scale"
values = [1, 2]
)",
                                                "[\"bace-pipe\"]", "1", kSixRegions));
  ScenarioFactory f(s);
  const int n = 200;
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t regions = 0;
  for (int i = 0; i < n; ++i) regions += f.make(static_cast<std::size_t>(i) % s.num_points()).topology.regions.size();
  const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
  EXPECT_EQ(regions, static_cast<std::size_t>(n) * 6);
  std::printf("ScenarioFactory::make on six-regions: %.1f us per call\n", per * 1e6);
  RecordProperty("make_us", std::to_string(per * 1e6));
}

TEST(SweepFactory, RelativeBaseAndRelativeTrace) {
  const SweepSpec s = load_sweep_file(kSweeps + "/good/relative-base.toml");
  EXPECT_EQ(fs::path(s.base_path).lexically_normal(), fs::path(kSweeps + "/base/two-regions.toml").lexically_normal());
  EXPECT_EQ(s.schedulers, (std::vector<std::string>{"bace-pipe", "first-fit"}));
  EXPECT_EQ(s.num_scenarios(), 2u * 2u * 2u);

  // workload.trace in the base is relative to the base file, not to the sweep file.
  const SweepSpec t = load_sweep_file(kSweeps + "/good/trace.toml");
  ScenarioFactory f(t);
  const Scenario sc = f.make(1);
  EXPECT_EQ(sc.trace_jobs.size(), 2u);
  EXPECT_EQ(sc.topology.total_gpus(), 8);
  EXPECT_EQ(t.seeds, (std::vector<std::uint64_t>{3}));
}

// ============================================================================================
// Errors not covered by the bad files
// ============================================================================================
