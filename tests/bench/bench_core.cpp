// Google Benchmark suite of the simulator core (docs/performance.md): the GPipe recurrence, the max-min
// solver, and whole scenarios by job count and preset. Run by scripts/bench.sh; never part of
// ctest's pass/fail. The pathfinder has its own binary (bench_pathfinder).
#include <benchmark/benchmark.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <map>
#include <string>
#include <vector>

#include "sweepfile/scenario_key.h"
#include "config/scenario_loader.h"
#include "model/rng.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "sim/maxmin.h"
#include "model/gpipe.h"

#ifndef GEOPIPE_SOURCE_DIR
#define GEOPIPE_SOURCE_DIR "."
#endif

namespace geopipe {
namespace {

// ---- GPipe recurrence, S stages x m micro-batches, a slow hop in the middle
void BM_GpipeRecurrence(benchmark::State& state) {
  const auto S = static_cast<size_t>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  std::vector<double> f(S, 0.01), b(S, 0.02), bw(S - 1, 1e10), lat(S - 1, 0.03);
  if (S > 2) bw[S / 2] = 1e8;
  PipelineInput in;
  in.micro_batches = m;
  in.fwd_s = f;
  in.bwd_s = b;
  in.hop_fwd_bytes_per_s = bw;
  in.hop_bwd_bytes_per_s = bw;
  in.hop_latency_s = lat;
  in.activation_bytes = 3e7;
  PipelineScratch sc;
  for (auto _ : state) benchmark::DoNotOptimize(gpipe_iteration_time(in, sc));
  state.SetComplexityN(static_cast<long>(S) * m);
}
BENCHMARK(BM_GpipeRecurrence)->ArgsProduct({{4, 16, 64}, {8, 64, 256}})->Complexity(benchmark::oN);

// ---- max-min water-filling of n capped flows on one link
void BM_MaxMin(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  Rng rng(42);
  std::vector<double> d(n), a(n);
  for (auto& x : d) x = rng.uniform(1.0, 100.0);
  std::vector<size_t> order;
  for (auto _ : state) benchmark::DoNotOptimize(maxmin_share(25.0 * static_cast<double>(n), d, a, order));
  state.SetComplexityN(static_cast<long>(n));
}
BENCHMARK(BM_MaxMin)->RangeMultiplier(10)->Range(10, 10000)->Complexity(benchmark::oNLogN);

// ---- one scenario end to end: the six-region base with N jobs (same arrival rate), one preset
const Scenario& base_scenario(long jobs) {
  static std::map<long, Scenario> cache;
  auto it = cache.find(jobs);
  if (it == cache.end()) {
    geopipe::config::Override o;
    o.path = "workload.num_jobs";
    o.value = std::to_string(jobs);
    it = cache.emplace(jobs, config::load_scenario_file(std::string(GEOPIPE_SOURCE_DIR) + "/sweeps/base/six-regions.toml", {o})).first;
  }
  return it->second;
}

/// Simulates seed 1 of `sc` with `preset` once per iteration; the last run's metrics.
ScenarioMetrics run_scenario(benchmark::State& state, const Scenario& sc, const std::string& preset) {
  const std::vector<Job> jobs = sc.jobs_for_seed(1);
  ScenarioMetrics last;
  for (auto _ : state) {
    auto sched = make_scheduler(preset, sc.scheduler);
    SimOptions opt;
    opt.record_jobs = false;
    last = simulate(sc, jobs, *sched, 1, opt).metrics;
  }
  state.counters["events"] = static_cast<double>(last.events);
  state.counters["sched_max_ms"] = last.sched_time_max_s * 1e3;
  state.counters["completed"] = last.jobs_completed;
  return last;
}

void BM_Scenario(benchmark::State& state, std::string preset) {
  const long n = state.range(0);
  run_scenario(state, base_scenario(n), preset);
  state.SetComplexityN(n);
}

const char* const kPresets[] = {"bace-pipe", "delay-first", "cost-first", "greedy-cost", "first-fit",
                                "bace-no-priority", "bace-no-pathfinder", "bace-no-costmin"};
const int kRegistered = [] {
  for (const char* p : kPresets)
    benchmark::RegisterBenchmark((std::string("BM_Scenario/") + p).c_str(), BM_Scenario, std::string(p))
        ->Arg(200)->Arg(2000)->Arg(20000)->Arg(100000)
        ->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(1);
  return 0;
}();

// ---- data parallelism: the six-region base whose gpt3-1.3b and llama2-7b jobs (half of them)
// have D replicas each (docs/model.md, "Data parallelism"): every preset places them as gangs,
// one placement search per replica, and times each replica's pipeline and each stage's ring.
// Compare BM_ScenarioDataParallel/<preset>/200/8 with .../200/1 (one run: docs/performance.md).
// D = 0: the same jobs flexible (docs/model.md, "Choosing D") on 8 times the least pipeline's
// slots (stage_multiplier = 8), the GPUs of D = 8: the scheduler places each variant D in
// {1, 2, 4, 8, ...} and chooses.
void BM_ScenarioDataParallel(benchmark::State& state, std::string preset) {
  const long n = state.range(0), D = state.range(1);
  std::vector<geopipe::config::Override> set(3);
  set[0].path = "workload.num_jobs";
  set[0].value = std::to_string(n);
  set[1].path = "workload.mix.gpt3-1.3b.data_parallel";
  set[1].value = std::to_string(D);
  set[2].path = "workload.mix.llama2-7b.data_parallel";
  set[2].value = std::to_string(D);
  if (D == 0)
    for (const char* m : {"gpt3-1.3b", "llama2-7b"}) {
      set.emplace_back();
      set.back().path = std::string("workload.mix.") + m + ".stage_multiplier";
      set.back().value = "8";
    }
  const Scenario sc = config::load_scenario_file(std::string(GEOPIPE_SOURCE_DIR) + "/sweeps/base/six-regions.toml", set);
  state.counters["searches"] = static_cast<double>(run_scenario(state, sc, preset).sched_searches);
}
const int kRegisteredDp = [] {
  for (const char* p : {"bace-pipe", "delay-first", "first-fit"})
    benchmark::RegisterBenchmark((std::string("BM_ScenarioDataParallel/") + p).c_str(), BM_ScenarioDataParallel,
                                 std::string(p))
        ->ArgsProduct({{200, 2000}, {1, 2, 8, 0}})
        ->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(1);
  return 0;
}();

}  // namespace
}  // namespace geopipe

// Content digest of sweep points (sweepfile/scenario_key.h): a point of the six-region base with
// two swept values, each drawn from `range(0)` distinct values (the keyer caches per distinct
// value, so a grid of a million points over two 1000-value axes costs what this measures).
static void BM_PointDigest(benchmark::State& state) {
  std::ifstream in(std::string(GEOPIPE_SOURCE_DIR) + "/sweeps/base/six-regions.toml");
  std::stringstream text;
  text << in.rdbuf();
  geopipe::config::PointKeyer keyer(text.str(), std::string(GEOPIPE_SOURCE_DIR) + "/sweeps/base/six-regions.toml", {});
  const auto distinct = static_cast<std::size_t>(state.range(0));
  std::vector<std::vector<geopipe::config::Override>> points;
  for (std::size_t i = 0; i < 4096; ++i) {
    geopipe::config::Override a, b;
    a.path = "network.bandwidth_scale";
    a.value = std::to_string(0.5 + static_cast<double>(i % distinct) * 1e-3);
    b.path = "workload.load_scale";
    b.value = std::to_string(1.0 + static_cast<double>((i * 7) % distinct) * 1e-3);
    points.push_back({a, b});
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(keyer.digest(points[i++ % points.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointDigest)->Arg(1000);

BENCHMARK_MAIN();
