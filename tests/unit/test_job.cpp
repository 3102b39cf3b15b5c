// Job profiles: layer split, FLOP, forward time and speed, memory feasibility (docs/model.md,
// "Jobs").
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "scenario_builders.h"

namespace geopipe {
namespace {

using testutil::job;
using testutil::one_region;
using testutil::tiny;

TEST(Profile, LayerSplitAndFlops) {
  const LlmSpec L = tiny();
  const JobProfile p = make_profile(job(4, 2, 3, 1), L, ComputeOptions{});
  // 10 layers over 4 stages: 3, 3, 2, 2 (earlier stages take the remainder).
  EXPECT_EQ(p.layers, (std::vector<int>{3, 3, 2, 2}));
  const double b = 2, s = 100, h = 1000, V = 5000;
  const double per_layer = 24 * b * s * h * h * (1 + s / (6 * h));
  EXPECT_DOUBLE_EQ(p.fwd_flops[0], 3 * per_layer);
  EXPECT_DOUBLE_EQ(p.fwd_flops[2], 2 * per_layer);
  EXPECT_DOUBLE_EQ(p.fwd_flops[3], 2 * per_layer + 2 * b * s * h * V);  // LM head on the last stage
  EXPECT_DOUBLE_EQ(p.activation_bytes, b * s * h * 2);
  // Parameters: 12h² per layer, embedding on the first stage, LM head on the last.
  EXPECT_DOUBLE_EQ(p.params[0], 3 * 12 * h * h + V * h);
  EXPECT_DOUBLE_EQ(p.params[1], 3 * 12 * h * h);
  EXPECT_DOUBLE_EQ(p.params[3], 2 * 12 * h * h + V * h);
  // Memory: 16·params + m·b·s·h·l·bytes.
  EXPECT_DOUBLE_EQ(p.memory_bytes[1], 16 * p.params[1] + 3 * b * s * h * 3 * 2);
}

TEST(Profile, ClassificationHeadHasNoLmHeadButKeepsTheInputEmbedding) {
  // DT-FM's benchmarks: the input embedding (V·h) on the first stage, a classification head of
  // two classes (taken as nothing) on the last.
  LlmSpec L = tiny();
  L.head = Head::kClassification;
  const JobProfile p = make_profile(job(4, 2, 3, 1), L, ComputeOptions{});
  const double b = 2, s = 100, h = 1000, V = 5000;
  const double per_layer = 24 * b * s * h * h * (1 + s / (6 * h));
  EXPECT_DOUBLE_EQ(p.fwd_flops[3], 2 * per_layer);  // no 2bshV on the last stage
  EXPECT_DOUBLE_EQ(p.params[0], 3 * 12 * h * h + V * h);
  EXPECT_DOUBLE_EQ(p.params[3], 2 * 12 * h * h);
  EXPECT_DOUBLE_EQ(p.bwd_per_fwd[3], 3.0);  // full recomputation: every forward FLOP is a layer's
  EXPECT_DOUBLE_EQ(L.total_params(), 10 * 12 * h * h + V * h);
  EXPECT_DOUBLE_EQ(tiny().total_params(), 10 * 12 * h * h + 2 * V * h);
  // The stages without the head are the LM-head job's, bit for bit.
  const JobProfile q = make_profile(job(4, 2, 3, 1), tiny(), ComputeOptions{});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p.fwd_flops[static_cast<size_t>(i)], q.fwd_flops[static_cast<size_t>(i)]);
    EXPECT_EQ(p.memory_bytes[static_cast<size_t>(i)], q.memory_bytes[static_cast<size_t>(i)]);
  }
}

TEST(Profile, ForwardTimeAndSpeed) {
  const GpuType g{"g", 100e12, 80e9, 500, 100};
  ComputeOptions opt;
  opt.mfu = 0.5;
  opt.tp_efficiency = 0.8;
  opt.recompute = Recompute::kNone;
  const JobProfile p = make_profile(job(2, 1, 4, 1), tiny(), opt);
  EXPECT_DOUBLE_EQ(stage_speed(p, g, opt), 50e12);
  const JobProfile p4 = make_profile(job(2, 1, 4, 4), tiny(), opt);
  EXPECT_DOUBLE_EQ(stage_speed(p4, g, opt), 4 * 100e12 * 0.5 * 0.8);  // TP efficiency only for g > 1
  EXPECT_DOUBLE_EQ(forward_time(p, 0, g, opt), p.fwd_flops[0] / 50e12);
  // ideal iteration time = (m−1)·max(3f) + Σ 3f
  const double f0 = forward_time(p, 0, g, opt), f1 = forward_time(p, 1, g, opt);
  EXPECT_DOUBLE_EQ(ideal_iteration_time(p, g, opt), 3 * std::max(f0, f1) * 3 + 3 * (f0 + f1));
}

TEST(Profile, RecomputationRunsTheLayersForwardAgainButNotTheHead) {
  // tiny: 10 layers, h = 1000, s = 100, V = 5000; 2 stages of 5 layers, b = 1.
  const double s = 100, h = 1000, V = 5000, b = 1;
  const double layer = 24 * b * s * h * h * (1 + s / (6 * h)), head = 2 * b * s * h * V;
  ComputeOptions opt;
  opt.mfu = 0.5;
  const GpuType g{"g", 100e12, 80e9, 500, 100};
  const JobProfile full = make_profile(job(2, 1, 4, 1), tiny(), opt);  // the default: full
  EXPECT_EQ(ComputeOptions{}.recompute, Recompute::kFull);
  // stage 0: b = 2f + f = 3f exactly; stage 1 (LM head): b = 2f + 5·layer/v
  EXPECT_EQ(full.bwd_per_fwd[0], 3.0);
  EXPECT_DOUBLE_EQ(full.bwd_per_fwd[1], 2.0 + 5 * layer / (5 * layer + head));
  const double v = 50e12, f0 = 5 * layer / v, f1 = (5 * layer + head) / v;
  const double u0 = f0 + 3 * f0, u1 = f1 + 2 * f1 + 5 * layer / v;  // by hand
  EXPECT_DOUBLE_EQ(unit_time(full, 0, g, opt), u0);
  EXPECT_DOUBLE_EQ(unit_time(full, 1, g, opt), u1);
  // GPipe without communication: (m−1)·max u + Σ u with m = 4
  EXPECT_DOUBLE_EQ(ideal_iteration_time(full, g, opt), 3 * std::max(u0, u1) + u0 + u1);
  // Equal stages of the (m + S − 1)(f + b) case: 4 stages without a head (V = 1, head ~ 0 is
  // not 0, so use a model whose head is the stage of interest only on the last stage): the
  // first three stages are equal, b = 3f each.
  // Memory: full recomputation keeps the layer input (1 element of b·s·h per layer), none 17.
  opt.recompute = Recompute::kNone;
  const JobProfile none = make_profile(job(2, 1, 4, 1), tiny(), opt);
  EXPECT_EQ(none.bwd_per_fwd[0], 2.0);
  EXPECT_EQ(none.bwd_per_fwd[1], 2.0);
  // stage 0 stashes m = 4 micro-batches (GPipe), 5 layers, 2 bytes per element
  EXPECT_DOUBLE_EQ(full.memory_bytes[0], 16 * full.params[0] + 4 * b * s * h * 5 * 2);
  EXPECT_DOUBLE_EQ(none.memory_bytes[0], 16 * none.params[0] + 4 * 17 * b * s * h * 5 * 2);
}

TEST(Profile, EfficiencyCurveOfAGpuType) {
  // mfu(h) = mfu_max · h / (h + h0): at h = h0 half of mfu_max, a constant without h0.
  GpuType g{"g", 100e12, 80e9, 500, 100};
  g.mfu_max = 0.6;
  g.mfu_half_hidden = 1000;
  const ComputeOptions calibrated;
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, 1000, 2048, calibrated), 0.3);
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, 3000, 2048, calibrated), 0.6 * 3000 / 4000);  // 0.45
  g.mfu_half_hidden = 0;
  for (double h : {1.0, 768.0, 12288.0}) EXPECT_EQ(gpu_efficiency(g, h, 2048, calibrated), 0.6) << h;
  // sim.mfu overrides the curve of every type
  ComputeOptions fixed;
  fixed.mfu = 0.35;
  g.mfu_half_hidden = 1000;
  EXPECT_EQ(gpu_efficiency(g, 1000, 2048, fixed), 0.35);
  // the speed of a stage uses the job's width: tiny has h = 1000, so half of 0.6 of 100 TFLOP/s
  const JobProfile p = make_profile(job(2, 1, 4, 1), tiny(), calibrated);
  EXPECT_DOUBLE_EQ(stage_speed(p, g, calibrated), 30e12);
  EXPECT_DOUBLE_EQ(stage_speed(p, g, fixed), 35e12);
  // a custom GPU type of a scenario defaults to the former constant 0.4
  EXPECT_EQ(GpuType{}.mfu_max, 0.4);
  EXPECT_EQ(GpuType{}.mfu_half_hidden, 0.0);
  EXPECT_EQ(GpuType{}.mfu_attention, 0.0);
}

TEST(Profile, AttentionEfficiencyIsAFlopWeightedHarmonicMean) {
  // h = 1000, s = 3000: per token a layer has 24·h² = 2.4e7 matrix-product FLOP and 4·s·h =
  // 1.2e7 attention FLOP. At 0.5 and 0.25: time ∝ 2.4e7 / 0.5 + 1.2e7 / 0.25 = 9.6e7, so the
  // efficiency is 3.6e7 / 9.6e7 = 0.375 = (6h + s) / (6h / 0.5 + s / 0.25) = 9000 / 24000.
  GpuType g{"g", 100e12, 80e9, 500, 100};
  g.mfu_max = 0.5;
  g.mfu_attention = 0.25;
  const ComputeOptions calibrated;
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, 1000, 3000, calibrated), 0.375);
  // with the width curve: m(1000) = 0.5 · 1000 / 2000 = 0.25, then (6000 + 3000) / (6000 / 0.25 + 3000 / 0.25)
  g.mfu_half_hidden = 1000;
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, 1000, 3000, calibrated), 0.25);
  // no attention efficiency of its own: the curve, whatever the sequence
  g.mfu_attention = 0;
  EXPECT_EQ(gpu_efficiency(g, 1000, 3000, calibrated), gpu_efficiency(g, 1000, 128, calibrated));
  // sim.mfu overrides both
  ComputeOptions fixed;
  fixed.mfu = 0.35;
  g.mfu_attention = 0.25;
  EXPECT_EQ(gpu_efficiency(g, 1000, 3000, fixed), 0.35);
  // a stage's speed uses the job's sequence: tiny has h = 1000, s = 100 (see tiny()):
  // (6000 + 100) / (6000 / 0.25 + 100 / 0.25) = 0.25
  const JobProfile p = make_profile(job(2, 1, 4, 1), tiny(), calibrated);
  EXPECT_DOUBLE_EQ(stage_speed(p, g, calibrated), 100e12 * 0.25);
}

TEST(Memory, FeasibilityEdges) {
  const JobProfile p = make_profile(job(2, 1, 4, 2), tiny(), ComputeOptions{});
  GpuType g{"g", 1e14, 0, 1, 1};
  // Exactly at capacity fits (<=); one byte less per GPU of total does not.
  g.memory_bytes = p.memory_bytes[0] / 2;  // g = 2 GPUs per stage
  EXPECT_TRUE(p.stage_fits(0, g));
  g.memory_bytes = std::nextafter(p.memory_bytes[0] / 2, 0.0);
  EXPECT_FALSE(p.stage_fits(0, g));
}

TEST(Memory, MinFeasibleStages) {
  const LlmSpec L = tiny();
  // Enough memory for everything: 1 stage.
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, 1e12, ComputeOptions{}), 1);
  // Exactly the 2-stage requirement: 2 stages.
  const JobProfile p2 = make_profile(job(2, 1, 4, 1), L, ComputeOptions{});
  const double need2 = std::max(p2.memory_bytes[0], p2.memory_bytes[1]);
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, need2, ComputeOptions{}), 2);
  // Two GPUs per stage halve the per-GPU need.
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 2, need2 / 2, ComputeOptions{}), 2);
  // Nothing fits even at one layer per stage: 0.
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, 1000.0, ComputeOptions{}), 0);
}

}  // namespace
}  // namespace geopipe
