// Google Benchmark: pathfinder search time by regions × stages (docs/performance.md).
// Run with scripts/bench.sh or ./build/tests/bench/bench_pathfinder. Not part of ctest.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "model/job.h"
#include "model/rng.h"
#include "sched/estimate.h"
#include "sched/pathfinder.h"
#include "sched/placement_policy.h"
#include "sim/scheduler_api.h"
#include "sim/view.h"

namespace geopipe {
namespace {

struct Instance {
  Topology topo;
  ComputeOptions compute;
  JobProfile profile;
  ClusterView view;
};

// R regions alternating H100/A100-like GPUs, each with enough free GPUs that a job of S
// stages needs about 3 regions; full mesh with bandwidths 10–400 Gbit/s and latencies 10–120 ms;
// some links already loaded. A model of 128 layers (h = 2048) cut into S stages, so every
// stage fits one 80 GB GPU for S >= 4.
Instance make_instance(int R, int S, std::uint64_t variant = 0) {
  Instance in;
  Rng rng(1234 + static_cast<std::uint64_t>(R * 100 + S) + variant * 1'000'003);
  in.topo.gpu_types = {GpuType{"fast", 989e12, 80e9, 700, 100}, GpuType{"slow", 312e12, 80e9, 400, 60}};
  for (int r = 0; r < R; ++r) {
    Region reg;
    reg.name = "r" + std::to_string(r);
    reg.gpu_type = r % 2;
    reg.gpu_count = std::max(2, (S + 2) / 3 + static_cast<int>(rng.below(4)));
    reg.price = PriceProfile::flat(rng.uniform(0.05, 0.3));
    reg.pue = 1.1;
    in.topo.regions.push_back(reg);
  }
  in.topo.reset_links();
  for (int a = 0; a < R; ++a)
    for (int b = a + 1; b < R; ++b) {
      const double bw = rng.uniform(10.0, 400.0) * 1e9 / 8;  // a fast WAN, so deep pipelines can be stall-free
      const double lat = rng.uniform(0.01, 0.12);
      in.topo.link(a, b) = Link{bw, lat, 0, {}};
      in.topo.link(b, a) = Link{bw, lat, 0, {}};
    }
  const LlmSpec llm{"deep", 128, 2048, 32000, 2048, 2};
  Job j;
  j.stages = S;
  j.micro_batches = 16;
  j.iterations = 1000;
  in.profile = make_profile(j, llm, ComputeOptions{});
  in.view = idle_view(in.topo, in.compute);
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b)
      if (a != b && rng.uniform() < 0.3) in.view.residual[static_cast<size_t>(a * R + b)] *= rng.uniform(0.0, 0.5);
  return in;
}

void BM_PathfinderCostMin(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  Instance in = make_instance(R, S);
  in.view.topo = &in.topo;
  in.view.compute = &in.compute;
  Pathfinder pf;
  long nodes = 0, found = 0, truncated = 0;
  for (auto _ : state) {
    SearchSpec s;  // stall-free, ≤ 3 switches
    SearchResult fast = pf.search(in.profile, in.view, s);
    if (fast.found) {
      s.objective = SearchSpec::Objective::kMinCost;
      s.time_cap_s = fast.est_iteration_s * 1.1;
      SearchResult cheap = pf.search(in.profile, in.view, s);
      nodes += cheap.nodes;
      truncated += cheap.truncated;
    }
    nodes += fast.nodes;
    found += fast.found;
    truncated += fast.truncated;
    benchmark::DoNotOptimize(fast);
  }
  state.counters["nodes"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
  state.counters["found"] = benchmark::Counter(static_cast<double>(found), benchmark::Counter::kAvgIterations);
  state.counters["truncated"] = benchmark::Counter(static_cast<double>(truncated), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PathfinderCostMin)
    ->ArgsProduct({{6, 16, 32, 64}, {4, 16, 64}})
    ->Unit(benchmark::kMicrosecond);

// One bace-pipe decision under the model options (docs/model.md, "Layer partitions", "Pipeline
// schedules"): third argument 0 = GPipe with the even split (the default), 1 = 1F1B with the
// balanced split. The profile is built under the schedule (1F1B stashes less, so stages fit
// differently), both searches run, and the chosen placement is estimated with the split it
// would run with (for balanced: the greedy split of its GPU types).
void BM_DecisionModel(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  Instance in = make_instance(R, S);
  if (state.range(2) != 0) {
    in.compute.pipeline_schedule = PipelineScheduleKind::kOneFOneB;
    in.compute.layer_partition = LayerPartition::kBalanced;
    const LlmSpec llm{"deep", 128, 2048, 32000, 2048, 2};
    Job j;
    j.stages = S;
    j.micro_batches = 16;
    j.iterations = 1000;
    in.profile = make_profile(j, llm, in.compute);
  }
  in.view.topo = &in.topo;
  in.view.compute = &in.compute;
  Pathfinder pf;
  long nodes = 0, found = 0;
  double est = 0;
  for (auto _ : state) {
    SearchSpec s;
    SearchResult fast = pf.search(in.profile, in.view, s);
    if (fast.found) {
      s.objective = SearchSpec::Objective::kMinCost;
      s.time_cap_s = fast.est_iteration_s * 1.1;
      SearchResult cheap = pf.search(in.profile, in.view, s);
      nodes += cheap.nodes;
      if (cheap.found) est += estimate_iteration_s(in.profile, cheap.placement, in.view, BandwidthModel::kExpected);
    }
    nodes += fast.nodes;
    found += fast.found;
    benchmark::DoNotOptimize(fast);
  }
  state.counters["nodes"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
  state.counters["found"] = benchmark::Counter(static_cast<double>(found), benchmark::Counter::kAvgIterations);
  state.counters["est_s"] = benchmark::Counter(est, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_DecisionModel)
    ->ArgsProduct({{6, 16, 32, 64}, {4, 16, 64}, {0, 1}})
    ->ArgNames({"R", "S", "1f1b_balanced"})
    ->Unit(benchmark::kMicrosecond);

// The two halves of a decision separately: the fastest stall-free search, and the cost-min
// search given the fastest's time cap.
void BM_PathfinderPart(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  const bool cost_part = state.range(2) != 0;
  Instance in = make_instance(R, S);
  in.view.topo = &in.topo;
  in.view.compute = &in.compute;
  Pathfinder pf;
  SearchSpec s;
  const SearchResult fast = pf.search(in.profile, in.view, s);
  if (cost_part) {
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fast.est_iteration_s * 1.1;
  }
  long nodes = 0;
  for (auto _ : state) {
    SearchResult r = pf.search(in.profile, in.view, s);
    nodes += r.nodes; state.counters["obj"] = r.objective;
    benchmark::DoNotOptimize(r);
  }
  state.counters["nodes"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PathfinderPart)
    ->ArgsProduct({{6, 16, 32, 64}, {16, 64}, {0, 1}})
    ->ArgNames({"R", "S", "cost"})
    ->Unit(benchmark::kMicrosecond);

// The worst case for symmetry: every region identical (type, price, capacity, links). Third
// argument 1: the plain DFS instead of kAuto (which searches region sets and keeps one order of
// twin regions), for comparison.
void BM_PathfinderTwins(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  const bool plain = state.range(2) != 0;
  Instance in = make_instance(R, S);
  for (int r = 0; r < R; ++r) {
    Region& reg = in.topo.regions[static_cast<size_t>(r)];
    reg.gpu_type = 0;
    reg.price = PriceProfile::flat(0.2);
    reg.gpu_count = (S + 2) / 3 + 1;
  }
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b)
      if (a != b) in.topo.link(a, b) = Link{100e9 / 8, 0.03, 0, {}};
  in.view = idle_view(in.topo, in.compute);
  Pathfinder pf;
  long nodes = 0;
  for (auto _ : state) {
    SearchSpec s;
    if (plain) s.strategy = SearchSpec::Strategy::kPlain;
    SearchResult fast = pf.search(in.profile, in.view, s);
    s.objective = SearchSpec::Objective::kMinCost;
    s.time_cap_s = fast.est_iteration_s * 1.1;
    SearchResult cheap = pf.search(in.profile, in.view, s);
    nodes += fast.nodes + cheap.nodes;
    benchmark::DoNotOptimize(cheap);
  }
  state.counters["nodes"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PathfinderTwins)->ArgsProduct({{16, 32}, {16, 64}, {0, 1}})->Unit(benchmark::kMicrosecond);

// One decision (fastest + cost-min) by strategy, over 16 random instances of each size (the
// time is that of all 16; `nodes` is per decision): third argument 0 = kAuto, 1 = kRegionSets,
// 2 = kPlain. The evidence for kAuto's choice below 8 regions (docs/performance.md, "The
// strategy below 8 regions").
void BM_DecisionStrategy(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  const auto strat = state.range(2) == 0 ? SearchSpec::Strategy::kAuto
                     : state.range(2) == 1 ? SearchSpec::Strategy::kRegionSets : SearchSpec::Strategy::kPlain;
  std::vector<Instance> ins;
  for (std::uint64_t v = 0; v < 16; ++v) ins.push_back(make_instance(R, S, v));
  for (auto& in : ins) {
    in.view.topo = &in.topo;
    in.view.compute = &in.compute;
  }
  Pathfinder pf;
  long nodes = 0, n = 0;
  for (auto _ : state) {
    for (auto& in : ins) {
      SearchSpec s;
      s.strategy = strat;
      SearchResult fast = pf.search(in.profile, in.view, s);
      if (fast.found) {
        s.objective = SearchSpec::Objective::kMinCost;
        s.time_cap_s = fast.est_iteration_s * 1.1;
        nodes += pf.search(in.profile, in.view, s).nodes;
      }
      nodes += fast.nodes;
      ++n;
    }
  }
  state.counters["nodes"] = benchmark::Counter(static_cast<double>(nodes) / static_cast<double>(std::max(n, 1L)));
  state.SetItemsProcessed(n);
}
BENCHMARK(BM_DecisionStrategy)
    ->ArgsProduct({{2, 3, 4, 5, 6, 7, 8}, {4, 8, 16, 32, 64}, {0, 1, 2}})
    ->ArgNames({"R", "S", "strategy"})
    ->Unit(benchmark::kMicrosecond);

// One bace-pipe decision for a job of D data-parallel replicas
// (docs/model.md, "Data parallelism"): the regions hold D times the instance's GPUs; third argument D,
// fourth 0 = the sync-aware gang search (one candidate per divisor q of D, σ(D) group searches,
// each fastest + cost-min), 1 = the rule per replica it replaces (D searches, each fastest +
// cost-min). `est_s` is the chosen gang's estimate (estimate_gang_iteration_s), `found` whether
// a gang was found.
void BM_PathfinderGang(benchmark::State& state) {
  const int R = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
  const int D = static_cast<int>(state.range(2));
  const bool per_replica = state.range(3) != 0;
  Instance in = make_instance(R, S);
  for (Region& reg : in.topo.regions) reg.gpu_count *= D;
  const LlmSpec llm{"deep", 128, 2048, 32000, 2048, 2};
  std::vector<Job> jobs(1);
  jobs[0].stages = S;
  jobs[0].data_parallel = D;
  jobs[0].micro_batches = 16;
  jobs[0].iterations = 1000;
  const std::vector<JobProfile> profiles = {make_profile(jobs[0], llm, in.compute)};
  const std::vector<int> shapes = {0};
  SchedContext ctx;
  ctx.topo = &in.topo;
  ctx.compute = &in.compute;
  ctx.jobs = &jobs;
  ctx.profiles = &profiles;
  ctx.shapes = &shapes;
  ctx.num_shapes = 1;
  ClusterView view = idle_view(in.topo, in.compute);
  for (size_t k = 0; k < view.residual.size(); ++k) view.residual[k] = std::min(view.residual[k], in.view.residual[k]);
  auto policy = make_pathfinder_costmin(SchedulerParams{});
  long found = 0;
  double est = 0;
  for (auto _ : state) {
    const Placement pl = per_replica ? policy->PlacementPolicy::place_gang(ctx, 0, view) : policy->place_gang(ctx, 0, view);
    if (!pl.empty()) {
      ++found;
      est += estimate_gang_iteration_s(profiles[0], pl, view, BandwidthModel::kExpected);
    }
    benchmark::DoNotOptimize(pl);
  }
  state.counters["found"] = benchmark::Counter(static_cast<double>(found), benchmark::Counter::kAvgIterations);
  state.counters["est_s"] = benchmark::Counter(est / static_cast<double>(std::max(found, 1L)));
  state.counters["searches"] = benchmark::Counter(static_cast<double>(policy->effort().searches), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_PathfinderGang)
    ->ArgsProduct({{6, 16, 64}, {4, 16}, {2, 8}, {0, 1}})
    ->ArgNames({"R", "S", "D", "per_replica"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace geopipe

BENCHMARK_MAIN();
