// The workload generator: determinism, the mix, arrivals, stage counts (docs/model.md, "Jobs").
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "model/workload.h"
#include "scenario_builders.h"

namespace geopipe {
namespace {

using testutil::job;
using testutil::one_region;
using testutil::tiny;

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
  const JobProfile p1 = make_profile(job(1, 1, 4, 1), L, ComputeOptions{});
  const Topology roomy = one_region(1e12);
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 1.0}, L, roomy, ComputeOptions{}), 1);
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 2.5}, L, roomy, ComputeOptions{}), 3);   // ceil(1 · 2.5)
  EXPECT_EQ(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 100.0}, L, roomy, ComputeOptions{}), 10);  // capped at L
  const Topology tight = one_region(p1.memory_bytes[0] / 2);
  EXPECT_GE(generated_stages(ModelMixEntry{0, 1, 1, 1, 4, 1.0}, L, tight, ComputeOptions{}), 2);
}

}  // namespace
}  // namespace geopipe
