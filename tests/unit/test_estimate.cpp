// The schedulers' estimates (sched/estimate.h) and the view's expected share (sim/view.h),
// against hand-computed values: T_est = (m−1)·max(max u, max c) + Σu + Σ(c + 2λ) with
// u = 3f and c = A/B_fwd + A/B_bwd, and the estimated cost of a placement.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "scenario_builders.h"
#include "sched/estimate.h"
#include "model/gpipe.h"
#include "sim/view.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

/// Two regions of one GPU type (100 TFLOP/s; mfu 0.5 -> 50 TFLOP/s achieved), 500/100 W,
/// flat 0.1 $/kWh; a 2e9 B/s link with 30 ms latency each way.
Scenario two_regions() {
  Scenario sc = testutil::make_scenario({testutil::make_gpu("g")}, {{"a", 0, 8, 0.1}, {"b", 0, 8, 0.1}});
  sc.compute.mfu = 0.5;
  testutil::set_link(sc.topology, 0, 1, 2e9, 0.030);
  return sc;
}

/// Two stages with forward FLOP 1e12 and 2e12 (f = 0.02 s and 0.04 s at 50 TFLOP/s), four
/// micro-batches, activations of 1e9 bytes, 1000 iterations.
JobProfile two_stage_profile(double flops0 = 1e12, double flops1 = 2e12) {
  JobProfile p;
  p.stages = 2;
  p.micro_batches = 4;
  p.gpus_per_stage = 1;
  p.iterations = 1000;
  p.layers = {1, 1};
  p.fwd_flops = {flops0, flops1};
  p.bwd_per_fwd = {2.0, 2.0};  // b = 2f
  p.hidden = 1;
  p.params = {1, 1};
  p.memory_bytes = {1, 1};
  p.activation_bytes = 1e9;
  return p;
}

TEST(Estimate, SameRegionHopUsesTheIntraRegionBandwidth) {
  const Scenario sc = two_regions();
  const ClusterView v = idle_view(sc.topology, sc.compute);
  // u = 0.06, 0.12; c = 2·1e9/12.5e9 = 0.16 (the max); Σ = 0.18 + 0.16 + 2·1e-5.
  const double T = estimate_iteration_s(two_stage_profile(), Placement{{0, 0}}, v, BandwidthModel::kExpected);
  EXPECT_NEAR(T, 3 * 0.16 + 0.34002, 1e-12);
}

TEST(Estimate, CrossRegionHopBlindAndExpected) {
  const Scenario sc = two_regions();
  ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = two_stage_profile();
  const Placement pl{{0, 1}};
  // Blind: c = 0, only the round trip 2 x 30 ms: (m−1)·0.12 + 0.18 + 0.06.
  EXPECT_NEAR(estimate_iteration_s(p, pl, v, BandwidthModel::kBlind), 0.6, 1e-12);
  // Expected: β = 1e9/0.02 = 5e10 > capacity, so the share is the whole 2e9 B/s each way:
  // c = 2 x 0.5 s = 1.0 (the max): 3 x 1.0 + 0.18 + 1.0 + 0.06.
  EXPECT_NEAR(estimate_iteration_s(p, pl, v, BandwidthModel::kExpected), 4.24, 1e-12);
  // One flow already on each direction and 0.5e9 left: the fair share 2e9/2 is larger than
  // the residual, so a new flow expects 1e9 B/s: c = 2.0.
  for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 0}}) {
    v.residual[static_cast<size_t>(a * 2 + b)] = 0.5e9;
    v.flows[static_cast<size_t>(a * 2 + b)] = 1;
  }
  EXPECT_DOUBLE_EQ(v.expected_share(0, 1, 5e10), 1e9);
  EXPECT_DOUBLE_EQ(v.expected_share(0, 1, 0.25e9), 0.25e9);  // capped by the demand
  EXPECT_NEAR(estimate_iteration_s(p, pl, v, BandwidthModel::kExpected), 3 * 2.0 + 0.18 + 2.0 + 0.06, 1e-12);
}

TEST(Estimate, ExactForEqualStagesWithFreeCommunication) {
  Scenario sc = two_regions();
  sc.topology.intra_bandwidth_bytes_per_s = kInf;
  sc.topology.intra_latency_s = 0;
  const ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = two_stage_profile(1e12, 1e12);  // u = 0.06 on both stages
  const double T = estimate_iteration_s(p, Placement{{0, 0}}, v, BandwidthModel::kExpected);
  EXPECT_NEAR(T, (4 + 2 - 1) * 0.06, 1e-12);  // (m + S − 1)(f + b)
  const std::vector<double> f = {0.02, 0.02}, b = {0.04, 0.04}, inf = {kInf}, zero = {0.0};
  PipelineInput in;
  in.micro_batches = 4;
  in.fwd_s = f;
  in.bwd_s = b;
  in.hop_fwd_bytes_per_s = inf;
  in.hop_bwd_bytes_per_s = inf;
  in.hop_latency_s = zero;
  in.activation_bytes = 1e9;
  EXPECT_NEAR(gpipe_iteration_time(in), T, 1e-12);
}

TEST(Estimate, CostOfAPlacementByHand) {
  const Scenario sc = two_regions();
  const ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = two_stage_profile();
  // At T = 1 s: stage 0 busy 4 x 0.06 = 0.24 s -> 500·0.24 + 100·0.76 = 196 J; stage 1 busy
  // 0.48 s -> 240 + 52 = 292 J. 1000 iterations of 488 J at 0.1 $/kWh.
  EXPECT_NEAR(estimate_cost_usd(p, Placement{{0, 1}}, 1.0, v), 488e3 / 3.6e6 * 0.1, 1e-15);
  // At T = 0.3 s stage 1 (busy 0.48 s) is busy the whole iteration: 150 J; stage 0: 120 + 6.
  EXPECT_NEAR(estimate_cost_usd(p, Placement{{0, 0}}, 0.3, v), 276e3 / 3.6e6 * 0.1, 1e-15);
}

TEST(Estimate, EgressOfAPlacementByHand) {
  // The placement above with a → b billed $0.02/GB and b → a $0.05/GB: each iteration sends 4
  // activations of 1 GB a → b and 4 gradients back: 1000 × (4 × 0.02 + 4 × 0.05) = $280 on top
  // of the electricity; the same-region placement pays none.
  Scenario sc = two_regions();
  sc.topology.link(0, 1).egress_usd_per_byte = 0.02 / 1e9;
  sc.topology.link(1, 0).egress_usd_per_byte = 0.05 / 1e9;
  const ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = two_stage_profile();
  EXPECT_NEAR(estimate_cost_usd(p, Placement{{0, 1}}, 1.0, v), 488e3 / 3.6e6 * 0.1 + 280.0, 1e-12);
  EXPECT_NEAR(estimate_cost_usd(p, Placement{{0, 0}}, 0.3, v), 276e3 / 3.6e6 * 0.1, 1e-15);
  EXPECT_NEAR(estimate_cost_usd(p, Placement{{1, 0}}, 1.0, v), 488e3 / 3.6e6 * 0.1 + 280.0, 1e-12);
}

// --- gangs of D replicas (docs/model.md, "Data parallelism") ------------------

/// One stage of forward FLOP 1e12 (f = 0.02 s, u = 0.06 s), four micro-batches, D replicas of
/// P parameters each, 1000 iterations.
JobProfile one_stage_replicas(int D, double P) {
  JobProfile p = two_stage_profile();
  p.stages = 1;
  p.data_parallel = D;
  p.layers = {2};
  p.fwd_flops = {1e12};
  p.bwd_per_fwd = {2.0};
  p.params = {P};
  p.memory_bytes = {1};
  return p;
}

TEST(Estimate, AGangOfOneReplicaIsTheSingleEstimateBitForBit) {
  Scenario sc = two_regions();
  sc.topology.link(0, 1).egress_usd_per_byte = 0.02 / 1e9;
  ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = two_stage_profile();
  v.residual[1] = 0.5e9;
  v.flows[1] = 1;
  for (const Placement& pl : {Placement{{0, 1}}, Placement{{1, 0}}, Placement{{0, 0}}})
    for (BandwidthModel bw : {BandwidthModel::kBlind, BandwidthModel::kExpected}) {
      const double t = estimate_iteration_s(p, pl, v, bw);
      EXPECT_EQ(estimate_gang_iteration_s(p, pl, v, bw), t);
      EXPECT_EQ(estimate_gang_cost_usd(p, pl, t, v), estimate_cost_usd(p, pl, t, v));
    }
}

TEST(Estimate, TwoReplicasOfOneStageAddTheirRingAllReduce) {
  Scenario sc = two_regions();
  ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = one_stage_replicas(2, 1e9);  // 2e9 bytes to all-reduce
  const Placement gang{{0, 1}};
  // T_pipe = (m−1)·0.06 + 0.06 = 0.24; the ring of 2 sends 2(2−1)/2 · 2e9 bytes over each
  // direction at 2e9 B/s, and pays 2(2−1) latencies of 30 ms: 1.0 + 0.06.
  EXPECT_NEAR(estimate_gang_iteration_s(p, gang, v, BandwidthModel::kExpected), 0.24 + 1.06, 1e-12);
  EXPECT_NEAR(estimate_gang_iteration_s(p, gang, v, BandwidthModel::kBlind), 0.24 + 0.06, 1e-12);
  // Both replicas in region 0: the intra fabric, 2e9 / 12.5e9 + 2·1e-5.
  EXPECT_NEAR(estimate_gang_iteration_s(p, Placement{{0, 0}}, v, BandwidthModel::kExpected), 0.24 + 0.16 + 2e-5, 1e-12);
  // DiLoCo every 10 iterations: a tenth of the all-reduce per iteration.
  sc.compute.dp_sync = DpSync::kDiLoCo;
  sc.compute.diloco_interval = 10;
  EXPECT_NEAR(estimate_gang_iteration_s(p, gang, v, BandwidthModel::kExpected), 0.24 + 0.106, 1e-12);
  sc.compute.dp_sync = DpSync::kAllReduce;
  // A flow already on 0 -> 1 with 0.5e9 B/s left: the ring's hop expects max(0.5e9, 2e9/2):
  // 2 s + 0.06 over the slowest hop.
  v.residual[1] = 0.5e9;
  v.flows[1] = 1;
  EXPECT_NEAR(estimate_gang_iteration_s(p, gang, v, BandwidthModel::kExpected), 0.24 + 2.06, 1e-12);
}

TEST(Estimate, StackedReplicasShareTheirHopsAndSyncInsideRegions) {
  const Scenario sc = two_regions();
  const ClusterView v = idle_view(sc.topology, sc.compute);
  JobProfile p = two_stage_profile();
  p.data_parallel = 2;
  // Both replicas on {0, 1}: two flows of β = 5e10 on each direction expect 2e9 / 2 each, so
  // c = 2 × 1e9/1e9 = 2.0 (the max): 3 × 2.0 + 0.18 + 2.0 + 0.06 = 8.24; each stage's two
  // replicas all-reduce 2 bytes inside their region: 2/12.5e9 + 2·1e-5.
  EXPECT_NEAR(estimate_gang_iteration_s(p, Placement{{0, 1, 0, 1}}, v, BandwidthModel::kExpected),
              8.24 + 2 / 12.5e9 + 2e-5, 1e-12);
  // Spread, {0, 0} and {1, 1}: no cross hop in a pipeline (0.34002 each, as the same-region
  // test above), and both stages' rings cross the link in both directions, two flows each way
  // (2e9 / 2 each): 2 bytes at 1e9 B/s + 2 × 30 ms.
  EXPECT_NEAR(estimate_gang_iteration_s(p, Placement{{0, 0, 1, 1}}, v, BandwidthModel::kExpected),
              3 * 0.16 + 0.34002 + 2 / 1e9 + 0.06, 1e-12);
}

TEST(Estimate, AGangPaysItsSynchronisationEgress) {
  Scenario sc = two_regions();
  sc.topology.link(0, 1).egress_usd_per_byte = 0.02 / 1e9;
  sc.topology.link(1, 0).egress_usd_per_byte = 0.05 / 1e9;
  const ClusterView v = idle_view(sc.topology, sc.compute);
  const JobProfile p = one_stage_replicas(2, 1e9);
  // At T = 1 s each replica's stage is busy 4 × 0.06 = 0.24 s: 500·0.24 + 100·0.76 = 196 J per
  // iteration. Each all-reduce sends 2(2−1)/2 · 2e9 bytes each way: 2 × (0.02 + 0.05) = $0.14.
  const double energy = 2 * 1000 * 196 / 3.6e6 * 0.1;
  EXPECT_NEAR(estimate_gang_cost_usd(p, Placement{{0, 1}}, 1.0, v), energy + 1000 * 0.14, 1e-9);
  EXPECT_NEAR(estimate_gang_cost_usd(p, Placement{{0, 0}}, 1.0, v), energy, 1e-12);
  // DiLoCo every 3 iterations: ⌊1000/3⌋ = 333 synchronisations.
  sc.compute.dp_sync = DpSync::kDiLoCo;
  sc.compute.diloco_interval = 3;
  EXPECT_NEAR(estimate_gang_cost_usd(p, Placement{{0, 1}}, 1.0, v), energy + 333 * 0.14, 1e-9);
}

TEST(Estimate, StallFreeDemandOfAHop) {
  const Scenario sc = two_regions();
  const JobProfile p = two_stage_profile();
  // β = A / min(f_0, f_1) = 1e9 / 0.02.
  EXPECT_DOUBLE_EQ(hop_demand_bytes_per_s(p, 0, 0, 1, sc.topology, sc.compute), 5e10);
  EXPECT_DOUBLE_EQ(stall_free_demand_bytes_per_s(1e9, 0.04, 0.02), 5e10);
}

}  // namespace
}  // namespace geopipe
