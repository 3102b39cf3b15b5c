// Data parallelism (docs/model.md, "Data parallelism"): the synchronisation's closed forms by
// hand, the per-stage ends the all-reduce starts from, and the engine's iteration time, DiLoCo
// clock, egress and gang placement of D-replica jobs end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "model/data_parallel.h"
#include "model/flexible_job.h"
#include "model/gpipe.h"
#include "model/pipeline_schedule.h"
#include "model/scenario.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "unit_common.h"

namespace geopipe {
namespace dp_tests {  // named: test_core is a unity build, and test_engine.cpp has helpers of these names
namespace {

using testutil::kInf;
using Placements = std::vector<std::vector<int>>;

TEST(DataParallel, RingAllReduceByHand) {
  // 2(n−1)/n · bytes/B + 2(n−1)·α: 4 members, 8 GB at 1 GB/s, 10 ms: 12 s + 60 ms.
  EXPECT_DOUBLE_EQ(ring_allreduce_s(4, 8e9, 1e9, 0.01), 12.0 + 0.06);
  EXPECT_DOUBLE_EQ(ring_allreduce_s(2, 8e9, 1e9, 0.0), 8.0);
  EXPECT_EQ(ring_allreduce_s(1, 8e9, 1e9, 0.01), 0.0);  // one member: nothing to reduce
  EXPECT_EQ(ring_allreduce_s(8, 8e9, kInf, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(ring_hop_bytes(4, 8e9), 12e9);
  EXPECT_EQ(ring_hop_bytes(1, 8e9), 0.0);
}

TEST(DataParallel, RingsVisitReplicasGroupedByRegion) {
  // Replicas in regions 2, 0, 2, 0: the ring visits 2, 2, 0, 0 and crosses each boundary once.
  const SyncRing ring = sync_ring({2, 0, 2, 0}, AllReduceKind::kRing);
  EXPECT_EQ(ring.members, 4);
  EXPECT_EQ(ring.intra_members, 0);
  ASSERT_EQ(ring.hops.size(), 4u);
  const std::vector<std::pair<int, int>> want = {{2, 2}, {2, 0}, {0, 0}, {0, 2}};
  for (size_t h = 0; h < 4; ++h) {
    EXPECT_EQ(ring.hops[h].from, want[h].first) << h;
    EXPECT_EQ(ring.hops[h].to, want[h].second) << h;
  }
  // Hierarchical: a ring of the 2 regions (2 -> 0 -> 2), 2 replicas inside each.
  const SyncRing hier = sync_ring({2, 0, 2, 0}, AllReduceKind::kHierarchical);
  EXPECT_EQ(hier.members, 2);
  EXPECT_EQ(hier.intra_members, 2);
  ASSERT_EQ(hier.hops.size(), 2u);
  EXPECT_EQ(hier.hops[0].from, 2);
  EXPECT_EQ(hier.hops[0].to, 0);
  EXPECT_EQ(hier.hops[1].from, 0);
  EXPECT_EQ(hier.hops[1].to, 2);
  // All in one region: a ring of intra hops; hierarchical has no cross ring at all.
  EXPECT_EQ(sync_ring({1, 1, 1}, AllReduceKind::kRing).hops.size(), 3u);
  const SyncRing one = sync_ring({1, 1, 1}, AllReduceKind::kHierarchical);
  EXPECT_EQ(one.members, 1);
  EXPECT_EQ(one.intra_members, 3);
  EXPECT_TRUE(one.hops.empty());
}

TEST(DataParallel, SyncTimeTakesTheSlowestHopAndTheLargestLatency) {
  // Ring of 4 over hops at 2, 1, 4, 8 GB/s with latencies 1, 5, 2, 0 ms: B = 1 GB/s, α = 5 ms.
  const SyncRing ring = sync_ring({0, 1, 2, 3}, AllReduceKind::kRing);
  const std::vector<double> bw = {2e9, 1e9, 4e9, 8e9}, lat = {1e-3, 5e-3, 2e-3, 0.0};
  EXPECT_DOUBLE_EQ(sync_time_s(ring, 4e9, bw, lat, 100e9, 1e-6), 1.5 * 4 + 6 * 5e-3);
  // Hierarchical, replicas {0, 0, 0, 1}: inside region 0 a ring of 3 at the intra values
  // (4/3 · 6 GB / 100 GB/s + 4 µs), across a ring of 2 over 0 -> 1 (3 GB/s, 2 ms) and 1 -> 0
  // (6 GB/s, 1 ms): 6 GB / 3 GB/s + 2 · 2 ms.
  const SyncRing hier = sync_ring({0, 0, 0, 1}, AllReduceKind::kHierarchical);
  const std::vector<double> hbw = {3e9, 6e9}, hlat = {2e-3, 1e-3};
  const double want = (4.0 / 3.0 * 6e9 / 100e9 + 4 * 1e-6) + (6e9 / 3e9 + 2 * 2e-3);
  EXPECT_NEAR(sync_time_s(hier, 6e9, hbw, hlat, 100e9, 1e-6), want, 1e-15 * want);
}

TEST(DataParallel, DilocoClockByHand) {
  // H = 4, T = 2 s, Y = 10 s: a cycle is 4 iterations (8 s) then a sync (10 s), 5 units.
  DilocoClock c;
  c.interval = 4;
  EXPECT_EQ(c.total_units(10), 2 * 5 + 2);  // 10 iterations: 2 syncs, 2 iterations after
  EXPECT_EQ(c.total_units(8), 2 * 5);       // the last sync follows the last iteration
  EXPECT_EQ(c.time_to(c.total_units(10), 2, 10), 10 * 2 + 2 * 10);
  EXPECT_EQ(c.time_to(4.5, 2, 10), 8 + 5);  // half-way through the first sync
  EXPECT_EQ(c.iterations_at(4.5), 4);
  EXPECT_EQ(c.syncs_at(4.5), 0.5);
  EXPECT_EQ(c.iterations_at(6), 5);
  EXPECT_EQ(c.syncs_at(6), 1);
  // advance() inverts time_to():
  EXPECT_DOUBLE_EQ(c.advance(1, 11, 2, 10), 4.5);  // 3 iterations (6 s) + half the sync (5 s)
  EXPECT_DOUBLE_EQ(c.advance(4.5, 5 + 18, 2, 10), 10);  // the sync's end, then a whole cycle
  EXPECT_DOUBLE_EQ(c.advance(4.5, 5 + 18 + 5, 2, 10), 12.5);  // ... then 2.5 iterations
  EXPECT_DOUBLE_EQ(c.advance(2, 0, 2, 10), 2);
}

TEST(DataParallel, StageEndsOfAPipelineByHand) {
  // GPipe, S = 2 equal stages (f, b = 2f), m micro-batches, free hops: stage 1's backwards run
  // from (m+1)f to (3m+1)f, stage 0's last ends at (3m+3)f = (m+S−1)(f+b), the iteration.
  const double f = 0.25;
  const int m = 4;
  const std::vector<double> fwd = {f, f}, bwd = {2 * f, 2 * f}, inf = {kInf}, zero = {0.0};
  std::vector<double> end(2, -1.0);
  PipelineInput in;
  in.micro_batches = m;
  in.fwd_s = fwd;
  in.bwd_s = bwd;
  in.hop_fwd_bytes_per_s = inf;
  in.hop_bwd_bytes_per_s = inf;
  in.hop_latency_s = zero;
  in.activation_bytes = 1;
  in.stage_end_s = end;
  for (auto kind : {PipelineScheduleKind::kGPipe, PipelineScheduleKind::kOneFOneB}) {
    std::fill(end.begin(), end.end(), -1.0);
    PipelineScratch sc;
    const double T = pipeline_schedule(kind).iteration_time(in, sc);
    EXPECT_DOUBLE_EQ(T, (3 * m + 3) * f);
    EXPECT_DOUBLE_EQ(end[0], (3 * m + 3) * f);
    EXPECT_DOUBLE_EQ(end[1], (3 * m + 1) * f);
  }
}

// --- the engine ---------------------------------------------------------------------------

using testutil::ScriptedScheduler;  // placements of D·S regions, replica by replica

/// R regions of `gpus` GPUs joined pairwise by links of B bytes/s and latency α; free and
/// instant intra-region hops.
Scenario mesh(int R, int gpus, double B, double alpha) {
  Scenario sc;
  sc.name = "dp";
  sc.compute.mfu = 0.5;
  sc.compute.recompute = Recompute::kNone;
  sc.llms = {LlmSpec{"tiny", 10, 1000, 5000, 100, 2}};
  Topology& t = sc.topology;
  t.gpu_types = {GpuType{"g", 100e12, 80e9, 500.0, 100.0}};
  for (int r = 0; r < R; ++r) {
    Region reg;
    reg.name = "r" + std::to_string(r);
    reg.gpu_count = gpus;
    reg.price = PriceProfile::flat(0.1);
    t.regions.push_back(reg);
  }
  t.reset_links();
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b)
      if (a != b) t.link(a, b) = Link{B, alpha, 0.0, {}};
  t.intra_bandwidth_bytes_per_s = kInf;
  t.intra_latency_s = 0;
  return sc;
}

Job dp_job(int S, int D, int m, long iters) {
  Job j;
  j.stages = S;
  j.data_parallel = D;
  j.micro_batches = m;
  j.iterations = iters;
  return j;
}

TEST(DataParallelEngine, FourReplicasAddExactlyOneRingAllReducePerIteration) {
  // S = 1, D = 4 replicas in 4 regions joined by equal links: every iteration ends with the
  // all-reduce of the whole model, 2(D−1)/D · P·bytes / B + 2(D−1)·α over D = 1's time.
  const double B = 1.25e9, alpha = 0.02;
  Scenario sc = mesh(4, 1, B, alpha);
  const long I = 100;
  ScriptedScheduler one(Placements{{0}});
  const SimResult r1 = simulate(sc, {dp_job(1, 1, 4, I)}, one, 1);
  ScriptedScheduler four(Placements{{0, 1, 2, 3}});
  const SimResult r4 = simulate(sc, {dp_job(1, 4, 4, I)}, four, 1);
  const double P = make_profile(dp_job(1, 4, 4, I), sc.llms[0], sc.compute).params[0];
  const double extra = 2.0 * 3 / 4 * P * 2 / B + 2 * 3 * alpha;
  ASSERT_EQ(r4.jobs.size(), 1u);
  EXPECT_NEAR(r4.jobs[0].first_iteration_s - r1.jobs[0].first_iteration_s, extra, 1e-12 * extra);
  const double jct1 = r1.jobs[0].finish_s - r1.jobs[0].start_s, jct4 = r4.jobs[0].finish_s - r4.jobs[0].start_s;
  EXPECT_NEAR(jct4 - jct1, I * extra, 1e-9 * I * extra);
  EXPECT_EQ(r4.jobs[0].stage_region, (std::vector<int>{0, 1, 2, 3}));
  // 4 GPUs for the whole run; the replicas' compute is 4 times one pipeline's.
  EXPECT_NEAR(r4.metrics.gpu_hours, 4 * jct4 / 3600, 1e-9 * jct4);
  // No activation crosses a region: cross_region_bytes counts activations only; the ring's 4
  // cross hops send 2(D−1)/D · 2P bytes each per iteration, and the all-reduce is the share
  // extra / T of the run (sync_fraction), all of its stall.
  EXPECT_EQ(r4.metrics.cross_region_bytes, 0.0);
  const double sync_bytes = I * 4 * (1.5 * P * 2);
  EXPECT_NEAR(r4.metrics.sync_bytes, sync_bytes, 1e-9 * sync_bytes);
  EXPECT_NEAR(r4.jobs[0].sync_bytes, sync_bytes, 1e-9 * sync_bytes);
  EXPECT_EQ(r4.jobs[0].data_parallel, 4);
  EXPECT_NEAR(r4.metrics.sync_fraction, extra / r4.jobs[0].first_iteration_s, 1e-12);
  EXPECT_NEAR(r4.metrics.stall_fraction, r4.metrics.sync_fraction, 1e-12);
  EXPECT_EQ(r1.metrics.sync_bytes, 0.0);
  EXPECT_EQ(r1.metrics.sync_fraction, 0.0);
  // 8 bytes per parameter double the transfer term.
  sc.compute.sync_bytes_per_param = 4;
  ScriptedScheduler four8(Placements{{0, 1, 2, 3}});
  const SimResult r8 = simulate(sc, {dp_job(1, 4, 4, I)}, four8, 1);
  const double extra8 = 2.0 * 3 / 4 * P * 4 / B + 2 * 3 * alpha;
  EXPECT_NEAR(r8.jobs[0].first_iteration_s - r1.jobs[0].first_iteration_s, extra8, 1e-12 * extra8);
}

TEST(DataParallelEngine, ReplicasInOneRegionUseTheIntraFabric) {
  // The same 4 replicas in one region: the ring's hops are intra-region, at 100 GB/s and 5 µs.
  Scenario sc = mesh(1, 4, 1e9, 0.0);
  sc.topology.intra_bandwidth_bytes_per_s = 100e9;
  sc.topology.intra_latency_s = 5e-6;
  ScriptedScheduler one(Placements{{0}}), four(Placements{{0, 0, 0, 0}});
  const SimResult r1 = simulate(sc, {dp_job(1, 1, 4, 10)}, one, 1);
  const SimResult r4 = simulate(sc, {dp_job(1, 4, 4, 10)}, four, 1);
  const double P = make_profile(dp_job(1, 4, 4, 10), sc.llms[0], sc.compute).params[0];
  const double extra = 1.5 * P * 2 / 100e9 + 6 * 5e-6;
  EXPECT_NEAR(r4.jobs[0].first_iteration_s - r1.jobs[0].first_iteration_s, extra, 1e-12 * extra);
}

TEST(DataParallelEngine, EachStageAllReducesAfterItsOwnLastBackward) {
  // S = 2, D = 2: replica 0 in region 0, replica 1 in region 1 (free pipelines inside each).
  // Stage i's all-reduce (2 members: bytes_i / B_i + 2α) starts when its replicas' last
  // backwards end; T = max over stages of (end_i + AR_i). Both stages' rings cross the same
  // two link directions, so each ring's flow gets half of each: B_i = B/2. The per-stage ends
  // come from the pipeline (tested by hand above).
  const double B = 2e9, alpha = 0.001;
  for (auto kind : {PipelineScheduleKind::kGPipe, PipelineScheduleKind::kOneFOneB}) {
    Scenario sc = mesh(2, 2, B, alpha);
    sc.compute.pipeline_schedule = kind;
    const Job job = dp_job(2, 2, 4, 10);
    ScriptedScheduler s(Placements{{0, 0, 1, 1}});
    const SimResult r = simulate(sc, {job}, s, 1);
    const JobProfile p = make_profile(job, sc.llms[0], sc.compute);
    const GpuType& g = sc.topology.gpu_types[0];
    const std::vector<double> fwd = {forward_time(p, 0, g, sc.compute), forward_time(p, 1, g, sc.compute)};
    const std::vector<double> bwd = {backward_time(fwd[0], p.bwd_per_fwd[0]), backward_time(fwd[1], p.bwd_per_fwd[1])};
    const std::vector<double> inf = {kInf}, zero = {0.0};
    std::vector<double> end(2);
    PipelineInput in;
    in.micro_batches = 4;
    in.fwd_s = fwd;
    in.bwd_s = bwd;
    in.hop_fwd_bytes_per_s = inf;
    in.hop_bwd_bytes_per_s = inf;
    in.hop_latency_s = zero;
    in.activation_bytes = p.activation_bytes;
    in.stage_end_s = end;
    PipelineScratch scratch;
    pipeline_schedule(kind).iteration_time(in, scratch);
    const double ar0 = p.params[0] * 2 / (B / 2) + 2 * alpha, ar1 = p.params[1] * 2 / (B / 2) + 2 * alpha;
    const double want = std::max(end[0] + ar0, end[1] + ar1);
    EXPECT_NEAR(r.jobs[0].first_iteration_s, want, 1e-12 * want);
    // Stage 1 (the LM head's) ends first but holds more parameters: which term wins depends on
    // the numbers; both must be below the total.
    EXPECT_LE(end[1] + ar1, r.jobs[0].first_iteration_s * (1 + 1e-12));
  }
}

TEST(DataParallelEngine, DilocoAddsOneWholeModelAllReducePerInterval) {
  // DiLoCo, H = 4, I = 10 iterations: ⌊I/H⌋ = 2 blocking all-reduces of the whole model.
  const double B = 1.25e9, alpha = 0.02;
  Scenario sc = mesh(4, 1, B, alpha);
  sc.compute.dp_sync = DpSync::kDiLoCo;
  sc.compute.diloco_interval = 4;
  sc.compute.sync_bytes_per_param = 1;  // int8 pseudo-gradients
  const long I = 10;
  ScriptedScheduler one(Placements{{0}}), four(Placements{{0, 1, 2, 3}});
  const SimResult r1 = simulate(sc, {dp_job(1, 1, 4, I)}, one, 1);
  const SimResult r4 = simulate(sc, {dp_job(1, 4, 4, I)}, four, 1);
  const double P = make_profile(dp_job(1, 4, 4, I), sc.llms[0], sc.compute).params[0];
  const double ar = 1.5 * P * 1 / B + 6 * alpha;
  const double jct1 = r1.jobs[0].finish_s - r1.jobs[0].start_s, jct4 = r4.jobs[0].finish_s - r4.jobs[0].start_s;
  EXPECT_NEAR(jct4 - jct1, 2 * ar, 1e-9 * jct4);
  // the two syncs are their share of the run: 2·ar / jct4; each sends 4 · 1.5·P bytes
  EXPECT_NEAR(r4.metrics.sync_fraction, 2 * ar / jct4, 1e-9);
  EXPECT_NEAR(r4.metrics.sync_bytes, 2 * 4 * 1.5 * P, 1e-9 * P);
  // H = 5 divides I: the last sync follows the last iteration, 2 again; H = 3: 3.
  for (auto [H, syncs] : {std::pair{5, 2}, std::pair{3, 3}, std::pair{11, 0}}) {
    sc.compute.diloco_interval = H;
    ScriptedScheduler f(Placements{{0, 1, 2, 3}});
    const SimResult r = simulate(sc, {dp_job(1, 4, 4, I)}, f, 1);
    EXPECT_NEAR(r.jobs[0].finish_s - r.jobs[0].start_s - jct1, syncs * ar, 1e-9 * jct4) << "H = " << H;
  }
}

TEST(DataParallelEngine, DilocoStaysExactWhenAnotherJobChangesItsShareMidCycle) {
  // A second job's replicas share the links for part of the run: the first job's progress is
  // settled at each change (fluid, the same arithmetic as without DP), and it still completes
  // every iteration and sync: its energy and egress add up to I iterations and ⌊I/H⌋ syncs.
  const double B = 1e9;
  Scenario sc = mesh(2, 2, B, 0.0);
  sc.compute.dp_sync = DpSync::kDiLoCo;
  sc.compute.diloco_interval = 3;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      if (a != b) sc.topology.link(a, b).egress_usd_per_byte = 0.05 / 1e9;
  std::vector<Job> jobs = {dp_job(1, 2, 4, 20), dp_job(1, 2, 4, 5)};
  jobs[1].id = 1;
  jobs[1].arrival_s = 0.5;
  ScriptedScheduler s(Placements{{0, 1}, {0, 1}});
  const SimResult r = simulate(sc, jobs, s, 1);
  ASSERT_EQ(r.metrics.jobs_completed, 2);
  const double P = make_profile(jobs[0], sc.llms[0], sc.compute).params[0];
  // Each sync: 2 cross hops (0 -> 1, 1 -> 0), each sending 2(D−1)/D · 2P = 2P bytes.
  const double per_sync = 2 * (2 * P) * 0.05 / 1e9;
  EXPECT_NEAR(r.jobs[0].egress_cost_usd, 6 * per_sync, 1e-9 * 6 * per_sync);  // ⌊20/3⌋ = 6
  EXPECT_NEAR(r.jobs[1].egress_cost_usd, 1 * per_sync, 1e-9 * per_sync);      // ⌊5/3⌋ = 1
}

TEST(DataParallelEngine, AllReduceEgressIsBilledPerRingHop) {
  // S = 1, D = 4 over 4 regions at $0.02/GB: each of the ring's 4 cross hops sends
  // 2(D−1)/D · P·2 bytes per iteration.
  Scenario sc = mesh(4, 1, 1e9, 0.0);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) sc.topology.link(a, b).egress_usd_per_byte = 0.02 / 1e9;
  const long I = 50;
  ScriptedScheduler four(Placements{{0, 1, 2, 3}});
  const SimResult r = simulate(sc, {dp_job(1, 4, 4, I)}, four, 1);
  const double P = make_profile(dp_job(1, 4, 4, I), sc.llms[0], sc.compute).params[0];
  const double want = I * 4 * (1.5 * P * 2) * 0.02 / 1e9;
  EXPECT_NEAR(r.jobs[0].egress_cost_usd, want, 1e-9 * want);
}

TEST(DataParallelEngine, EveryPresetPlacesAllReplicasOrNone) {
  // 3 regions of 2 GPUs; jobs of S = 2, D = 2 need 4 GPUs: at most one runs at a time, and each
  // runs with all 4 stages placed (a gang), never on more GPUs than a region has.
  Scenario sc = mesh(3, 2, 10e9, 0.001);
  std::vector<Job> jobs;
  for (int k = 0; k < 4; ++k) {
    Job j = dp_job(2, 2, 4, 50);
    j.id = k;
    j.arrival_s = k * 0.1;
    jobs.push_back(j);
  }
  for (const std::string& preset : preset_names()) {
    auto sched = make_scheduler(preset, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 1);
    EXPECT_EQ(r.metrics.jobs_completed, 4) << preset;
    for (const JobRecord& rec : r.jobs) {
      EXPECT_EQ(rec.stage_region.size(), 4u) << preset;
      std::vector<int> used(3, 0);
      for (int reg : rec.stage_region) ++used[static_cast<size_t>(reg)];
      for (int u : used) EXPECT_LE(u, 2) << preset;
    }
    // Two 4-GPU jobs never overlap on a 6-GPU cluster.
    for (size_t a = 0; a < r.jobs.size(); ++a)
      for (size_t b = a + 1; b < r.jobs.size(); ++b)
        EXPECT_TRUE(r.jobs[a].finish_s <= r.jobs[b].start_s || r.jobs[b].finish_s <= r.jobs[a].start_s) << preset;
  }
}

TEST(DataParallelEngine, BacePipeKeepsTheSynchronisationOffTheWan) {
  // Two regions of 2 GPUs, one 5e9 B/s link; a job of S = 2, D = 2. The rule per replica puts
  // each replica in a region of its own ({0, 0} and {1, 1}, no pipeline hop crosses), so both
  // stages' rings (1.2e8 bytes each) cross the link every iteration. bace-pipe and its ablations
  // weigh the synchronisation: the stacked gang {0, 1} + {0, 1} sends only activations
  // (2e5 bytes per micro-batch) across and all-reduces inside the regions, and runs faster.
  // The bandwidth-blind bace-no-pathfinder sees both gangs equally fast (a latency each) and
  // takes the stacked one for its egress ($0.02/GB: the rings' bytes against activations).
  Scenario sc = mesh(2, 2, 5e9, 0.001);
  sc.topology.link(0, 1).egress_usd_per_byte = sc.topology.link(1, 0).egress_usd_per_byte = 0.02 / 1e9;
  const std::vector<Job> jobs = {dp_job(2, 2, 4, 100)};
  auto jct = [&](const std::string& preset, std::vector<int>& regions) {
    auto sched = make_scheduler(preset, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 1);
    EXPECT_EQ(r.metrics.jobs_completed, 1) << preset;
    regions = r.jobs[0].stage_region;
    return r.jobs[0].finish_s - r.jobs[0].start_s;
  };
  std::vector<int> spread, stacked;
  const double per_replica = jct("delay-first", spread);
  EXPECT_EQ(spread, (std::vector<int>{0, 0, 1, 1}));
  for (const std::string preset : {"bace-pipe", "bace-no-costmin", "bace-no-pathfinder"}) {
    const double t = jct(preset, stacked);
    EXPECT_EQ(stacked, (std::vector<int>{0, 1, 0, 1})) << preset;
    EXPECT_LT(t, 0.5 * per_replica) << preset;
  }
}

// --- choosing D (data_parallel = 0, docs/model.md "Choosing D") ------------------------------

Job flexible_job(int slots, int m, long iters) {
  Job j = dp_job(slots, 0, m, iters);
  return j;
}

TEST(FlexibleJob, VariantsSplitTheSlotsAndTheGlobalBatchByHand) {
  const LlmSpec llm{"tiny", 10, 1000, 5000, 100, 2};
  // 8 slots, m = 4: D = 1 (S = 8, m = 4), 2 (4, 2), 4 (2, 1); D = 8 does not divide m.
  auto shape = [](const std::vector<Job>& vs) {
    std::vector<std::array<int, 3>> out;
    for (const Job& v : vs) out.push_back({v.data_parallel, v.stages, v.micro_batches});
    return out;
  };
  Job j = flexible_job(8, 4, 7);
  j.gpus_per_stage = 2;
  const std::vector<Job> vs = data_parallel_variants(j, llm);
  EXPECT_EQ(shape(vs), (std::vector<std::array<int, 3>>{{1, 8, 4}, {2, 4, 2}, {4, 2, 1}}));
  for (const Job& v : vs) {
    EXPECT_EQ(v.total_gpus(), j.total_gpus());  // 16 GPUs each
    EXPECT_EQ(v.data_parallel * v.micro_batches, 4);  // the global batch, D·(m/D)
    EXPECT_EQ(v.iterations, 7);
    EXPECT_EQ(v.gpus_per_stage, 2);
  }
  // 24 slots of a 10-layer model, m = 12: S <= 10 needs D >= 3; D in {3, 4, 6, 12}.
  EXPECT_EQ(shape(data_parallel_variants(flexible_job(24, 12, 1), llm)),
            (std::vector<std::array<int, 3>>{{3, 8, 4}, {4, 6, 3}, {6, 4, 2}, {12, 2, 1}}));
  EXPECT_TRUE(data_parallel_variants(flexible_job(11, 4, 1), llm).empty());
  // On GPUs of 1 MB no stage fits: no variant is left; the reference is the first one anyway.
  Scenario sc = mesh(1, 8, 1e9, 0);
  EXPECT_EQ(flexible_variants_that_fit(j, llm, sc.topology, sc.compute).size(), 3u);
  sc.topology.gpu_types[0].memory_bytes = 1e6;
  EXPECT_TRUE(flexible_variants_that_fit(j, llm, sc.topology, sc.compute).empty());
  EXPECT_EQ(reference_variant(j, llm, sc.topology, sc.compute).data_parallel, 1);
  EXPECT_THROW(reference_variant(flexible_job(11, 4, 1), llm, sc.topology, sc.compute), std::logic_error);
}

TEST(FlexibleJob, EveryPresetStartsItAsAVariantExactlyAsThatFixedJob) {
  // One region of 4 GPUs (free, instant intra fabric: synchronisation costs nothing), a
  // flexible job of 4 slots and m = 8: D = 1 (S = 4, m = 8), 2 (2, 4) or 4 (1, 2). Under GPipe
  // a replica takes (m/D + S − 1) stage times of its S-th of the model: 11/4, 5/2 and 2 whole-
  // model times, so D = 4 is the fastest (no bubble). The policies that estimate time take it;
  // the fill baselines the first variant that places, D = 1. Whatever it chooses, the job runs
  // bit for bit as the fixed job of that shape on the same placement.
  Scenario sc = mesh(1, 4, 1e9, 0.0);
  const long I = 50;
  const std::vector<Job> jobs = {flexible_job(4, 8, I)};
  for (const std::string& preset : preset_names()) {
    auto sched = make_scheduler(preset, sc.scheduler);
    const SimResult r = simulate(sc, jobs, *sched, 1);
    ASSERT_EQ(r.metrics.jobs_completed, 1) << preset;
    const JobRecord& rec = r.jobs[0];
    const int D = rec.data_parallel, S = rec.stages;
    EXPECT_EQ(D * S, 4) << preset;
    ASSERT_EQ(rec.stage_region.size(), 4u) << preset;
    const bool estimates = preset != "first-fit" && preset != "greedy-cost" && preset != "cost-first";
    EXPECT_EQ(D, estimates ? 4 : 1) << preset;
    ScriptedScheduler fixed(Placements{rec.stage_region});
    const SimResult f = simulate(sc, {dp_job(S, D, 8 / D, I)}, fixed, 1);
    EXPECT_EQ(f.jobs[0].finish_s, rec.finish_s) << preset;
    EXPECT_EQ(f.jobs[0].first_iteration_s, rec.first_iteration_s) << preset;
    EXPECT_EQ(f.metrics.total_energy_j, r.metrics.total_energy_j) << preset;
    EXPECT_EQ(f.metrics.total_cost_usd, r.metrics.total_cost_usd) << preset;
  }
  // The chosen D = 4 against the first variant: 2 against 11/4 whole-model times (the
  // optimizer step is 0 and every replica's single stage holds the whole model).
  auto time_of = [&](const std::string& preset) {
    auto sched = make_scheduler(preset, sc.scheduler);
    return simulate(sc, jobs, *sched, 1).jobs[0].first_iteration_s;
  };
  const JobProfile whole = make_profile(dp_job(1, 1, 1, 1), sc.llms[0], sc.compute);
  const double u = unit_time(whole, 0, sc.topology.gpu_types[0], sc.compute);
  EXPECT_NEAR(time_of("bace-pipe"), 2 * u, 1e-12 * u);
  EXPECT_GT(time_of("first-fit"), 2.5 * u);
}

TEST(FlexibleJob, BacePipeWaitsForAVariantWithinItsPatience) {
  // Two regions of 4 GPUs joined by a 10 MB/s link. Jobs A and B (3 stages each) take 3 GPUs of
  // each region; flexible job C (2 slots, m = 2) arrives with one GPU free in each: its one
  // pipeline (D = 1) would send activations over the link below their stall-free demand, and
  // its two replicas (D = 2, one stage each) fit only as one per region, whose all-reduce of the
  // whole model (2.4e8 bytes) takes 24 s per iteration over the link, against about a
  // millisecond of compute. bace-pipe waits (the idle cluster offers the job a variant
  // thousands of times faster, beyond its patience of 3) and starts C when A ends, inside one
  // region; at a patience of 1e9 it starts C at once as the spread gang.
  Scenario sc = mesh(2, 4, 1e7, 0.001);
  auto run = [&](const std::string& preset, double patience) {
    sc.scheduler.variant_patience = patience;
    std::vector<Job> jobs = {dp_job(3, 1, 4, 10000), dp_job(3, 1, 4, 20000), flexible_job(2, 2, 1000)};
    for (int k = 0; k < 3; ++k) jobs[static_cast<size_t>(k)].id = k;
    jobs[2].arrival_s = 0.5;
    auto sched = make_scheduler(preset, sc.scheduler);
    return simulate(sc, jobs, *sched, 1);
  };
  const SimResult patient = run("bace-pipe", 3.0), eager = run("bace-pipe", 1e9), delay = run("delay-first", 3.0);
  for (const SimResult* r : {&patient, &eager, &delay}) ASSERT_EQ(r->metrics.jobs_completed, 3);
  const JobRecord &a = patient.jobs[0], &c = patient.jobs[2];
  EXPECT_NE(a.stage_region.front(), patient.jobs[1].stage_region.front());  // A and B in the two regions
  EXPECT_EQ(c.start_s, a.finish_s);  // C waited for A's region
  EXPECT_TRUE(std::all_of(c.stage_region.begin(), c.stage_region.end(), [&](int r) { return r == c.stage_region.front(); }));
  EXPECT_EQ(c.sync_bytes, 0.0);  // nothing crossed the link
  // At a patience of 1e9 bace-pipe starts the spread gang at once: 26 s per iteration.
  const JobRecord& ce = eager.jobs[2];
  EXPECT_EQ(ce.start_s, 0.5);
  EXPECT_EQ(ce.data_parallel, 2);
  EXPECT_NE(ce.stage_region[0], ce.stage_region[1]);
  EXPECT_GT(ce.finish_s - ce.arrival_s, 100 * (c.finish_s - c.arrival_s));
  // delay-first starts at once too, as the variant it estimates fastest of those that fit:
  // one pipeline over the link (stalled, but far from the gang's all-reduce), still slower
  // than waiting.
  const JobRecord& cd = delay.jobs[2];
  EXPECT_EQ(cd.start_s, 0.5);
  EXPECT_EQ(cd.data_parallel, 1);
  EXPECT_NE(cd.stage_region[0], cd.stage_region[1]);
  EXPECT_GT(cd.finish_s - cd.arrival_s, 2 * (c.finish_s - c.arrival_s));
}

TEST(FlexibleJob, AStartWithoutAValidVariantIsASchedulerBug) {
  Scenario sc = mesh(1, 4, 1e9, 0.0);
  ScriptedScheduler no_variant(Placements{{0, 0, 0, 0}});
  EXPECT_THROW(simulate(sc, {flexible_job(4, 8, 5)}, no_variant, 1), std::logic_error);
}

}  // namespace
}  // namespace dp_tests
}  // namespace geopipe
