// Job profiles, memory feasibility, the workload generator and the PRNG (docs/model.md,
// "Jobs" and "Randomness").
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "model/job.h"
#include "model/llm.h"
#include "model/rng.h"
#include "model/trace.h"
#include "util/input_error.h"
#include "model/workload.h"

namespace geopipe {
namespace {

LlmSpec tiny() { return LlmSpec{"tiny", 10, 1000, 5000, 100, 2}; }

Job job(int S, int b, int m, int g) {
  Job j;
  j.stages = S;
  j.micro_batch_size = b;
  j.micro_batches = m;
  j.gpus_per_stage = g;
  j.iterations = 10;
  return j;
}

TEST(Profile, LayerSplitAndFlops) {
  const LlmSpec L = tiny();
  const JobProfile p = make_profile(job(4, 2, 3, 1), L);
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
  const JobProfile p = make_profile(job(2, 1, 4, 1), tiny());
  EXPECT_DOUBLE_EQ(forward_time(p, 0, g, opt), p.fwd_flops[0] / 50e12);
  // ideal iteration time = (m−1)·max(3f) + Σ 3f
  const double f0 = forward_time(p, 0, g, opt), f1 = forward_time(p, 1, g, opt);
  EXPECT_DOUBLE_EQ(ideal_iteration_time(p, g, opt), 3 * std::max(f0, f1) * 3 + 3 * (f0 + f1));
}

TEST(Memory, FeasibilityEdges) {
  const JobProfile p = make_profile(job(2, 1, 4, 2), tiny());
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
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, 1e12), 1);
  // Exactly the 2-stage requirement: 2 stages.
  const JobProfile p2 = make_profile(job(2, 1, 4, 1), L);
  const double need2 = std::max(p2.memory_bytes[0], p2.memory_bytes[1]);
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, need2), 2);
  // Two GPUs per stage halve the per-GPU need.
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 2, need2 / 2), 2);
  // Nothing fits even at one layer per stage: 0.
  EXPECT_EQ(min_feasible_stages(L, 1, 4, 1, 1000.0), 0);
}

TEST(Rng, DeterministicAndInRange) {
  Rng a(123), b(123), c(124);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  EXPECT_NE(a.next_u64(), c.next_u64());
  Rng r(7);
  double mean = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    mean += u;
  }
  EXPECT_NEAR(mean / 100000, 0.5, 0.01);
  for (int i = 0; i < 10000; ++i) {
    const double x = r.bounded_pareto(1.1, 0.5, 72.0);
    ASSERT_GE(x, 0.5 * (1 - 1e-12));
    ASSERT_LE(x, 72.0 * (1 + 1e-12));
    ASSERT_LT(r.below(7), 7u);
  }
  // Golden values: a seed means the same stream on every platform and build.
  Rng g(0);
  EXPECT_EQ(g.next_u64(), 11091344671253066420ULL);
  EXPECT_EQ(g.next_u64(), 13793997310169335082ULL);
  EXPECT_EQ(derive_seed(1, "workload"), derive_seed(1, "workload"));
  EXPECT_NE(derive_seed(1, "workload"), derive_seed(1, "view-noise"));
}

TEST(Rng, ExponentialMean) {
  Rng r(99);
  double s = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) s += r.exponential(4.0);
  EXPECT_NEAR(s / n, 0.25, 0.005);
}

Topology one_region(double mem) {
  Topology t;
  t.gpu_types = {GpuType{"g", 100e12, mem, 500, 100}};
  Region r;
  r.name = "r";
  r.gpu_count = 64;
  r.price = PriceProfile::flat(0.1);
  t.regions = {r};
  t.reset_links();
  return t;
}

TEST(Workload, GeneratorIsDeterministicAndFollowsTheMix) {
  const std::vector<LlmSpec> llms = {tiny(), LlmSpec{"big", 20, 2000, 5000, 100, 2}};
  const Topology topo = one_region(80e9);
  WorkloadOptions w;
  w.num_jobs = 500;
  w.arrival_rate_per_hour = 10;
  w.mix = {ModelMixEntry{0, 3.0, 1, 1, 4, 1.0}, ModelMixEntry{1, 1.0, 2, 1, 8, 2.0}};
  ComputeOptions opt;
  const auto a = generate_workload(w, llms, topo, topo.gpu_types[0], opt, 5);
  const auto b = generate_workload(w, llms, topo, topo.gpu_types[0], opt, 5);
  const auto c = generate_workload(w, llms, topo, topo.gpu_types[0], opt, 6);
  ASSERT_EQ(a.size(), 500u);
  int big = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, static_cast<int>(i));
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].iterations, b[i].iterations);
    if (i) {
      EXPECT_GE(a[i].arrival_s, a[i - 1].arrival_s);
    }
    EXPECT_GE(a[i].iterations, 1);
    big += a[i].model == 1;
    if (a[i].model == 1) {
      EXPECT_EQ(a[i].gpus_per_stage, 2);
    }
  }
  EXPECT_NEAR(big / 500.0, 0.25, 0.06);
  EXPECT_NE(a[10].arrival_s, c[10].arrival_s);
  // Mean inter-arrival ≈ 1/rate (6 min); load_scale doubles the rate.
  EXPECT_NEAR(a.back().arrival_s / 500, 360.0, 40.0);
  w.load_scale = 2.0;
  const auto d = generate_workload(w, llms, topo, topo.gpu_types[0], opt, 5);
  EXPECT_NEAR(d.back().arrival_s, a.back().arrival_s / 2, 1e-6 * a.back().arrival_s);
  EXPECT_EQ(d[7].model, a[7].model) << "load changes arrivals, not the jobs";
  EXPECT_EQ(d[7].iterations, a[7].iterations);
}

TEST(Workload, StageCountFromMemoryAndMultiplier) {
  const LlmSpec L = tiny();
  const JobProfile p1 = make_profile(job(1, 1, 4, 1), L);
  const Topology roomy = one_region(1e12);
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 1.0}, L, roomy), 1);
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 2.5}, L, roomy), 3);   // ceil(1 · 2.5)
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 100.0}, L, roomy), 10);  // capped at L
  const Topology tight = one_region(p1.memory_bytes[0] / 2);
  EXPECT_GE(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 1.0}, L, tight), 2);
}

TEST(Trace, ParsesAndReportsErrorsWithLocation) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  const auto jobs = parse_trace_csv(
      "# comment\nmodel,arrival_s,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n"
      "tiny,100,2,1,1,4,50\ntiny, 5 ,0,1,1,4,7\n",
      "t.csv", llms, topo);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].arrival_s, 5.0);  // sorted by arrival, ids renumbered
  EXPECT_EQ(jobs[0].id, 0);
  EXPECT_EQ(jobs[0].stages, 1);       // 0 = smallest feasible
  EXPECT_EQ(jobs[1].iterations, 50);
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,tiny,2,1,x,4,5\n",
                    "t.csv", llms, topo);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2:12: micro_batch_size: 'x' is not a number");
  }
  EXPECT_THROW(parse_trace_csv("arrival_s,model\n", "t.csv", llms, topo), InputError);
  EXPECT_THROW(parse_trace_csv("", "t.csv", llms, topo), InputError);
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,huge,2,1,1,4,5\n",
                    "t.csv", llms, topo);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2:3: unknown model 'huge'");
  }
}

}  // namespace
}  // namespace geopipe
