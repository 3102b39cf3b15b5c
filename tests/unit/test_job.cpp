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

TEST(Profile, ForwardTimeAndSpeed) {
  const GpuType g{"g", 100e12, 80e9, 500, 100};
  ComputeOptions opt;
  opt.mfu = 0.5;
  opt.tp_efficiency = 0.8;
  EXPECT_DOUBLE_EQ(stage_speed(g, 1, opt), 50e12);
  EXPECT_DOUBLE_EQ(stage_speed(g, 4, opt), 4 * 100e12 * 0.5 * 0.8);  // TP efficiency only for g > 1
  const JobProfile p = make_profile(job(2, 1, 4, 1), tiny(), ComputeOptions{});
  EXPECT_DOUBLE_EQ(forward_time(p, 0, g, opt), p.fwd_flops[0] / 50e12);
  // ideal iteration time = (m−1)·max(3f) + Σ 3f
  const double f0 = forward_time(p, 0, g, opt), f1 = forward_time(p, 1, g, opt);
  EXPECT_DOUBLE_EQ(ideal_iteration_time(p, g, opt), 3 * std::max(f0, f1) * 3 + 3 * (f0 + f1));
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
