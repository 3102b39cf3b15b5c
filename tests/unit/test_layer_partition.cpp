// Layer partitions (docs/model.md, "Layer partitions"): the balanced split against brute-force
// enumeration of every split, and its use by the engine and the estimates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "model/gpipe.h"
#include "model/job.h"
#include "model/rng.h"
#include "sched/estimate.h"
#include "sched/pathfinder.h"
#include <numeric>

#include "sched_testing.h"
#include "sim/engine.h"
#include "sim/view.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using schedtest::make_gpu;
using schedtest::make_job;
using schedtest::make_scenario;
using schedtest::set_link;

using testutil::kInf;

/// Stage i's time with l layers, from the model's formulas written out here: f + b with
/// f = (l·φ + head)/v and b = 2f, plus the layers' forward l·φ/v again under full
/// recomputation; v = g · peak · efficiency (sim.mfu, else the type's curve at the width) · tp.
double stage_time(const JobProfile& p, int i, int l, const GpuType& gpu, const ComputeOptions& opt) {
  const double flops = l * p.layer_flops + (i == p.stages - 1 ? p.head_flops : 0.0);
  const double curve = gpu.mfu_max * p.hidden / (p.hidden + gpu.mfu_half_hidden);
  const double eff = opt.mfu                 ? *opt.mfu
                     : gpu.mfu_attention == 0 ? curve
                                              : (6 * p.hidden + p.seq_len) / (6 * p.hidden / curve + p.seq_len / gpu.mfu_attention);
  const double v = p.gpus_per_stage * gpu.peak_flops * eff * (p.gpus_per_stage > 1 ? opt.tp_efficiency : 1.0);
  const double f = flops / v;
  return f + 2 * f + (opt.recompute == Recompute::kFull ? l * p.layer_flops / v : 0.0);
}
bool stage_fits(const JobProfile& p, int i, int l, const GpuType& gpu) {
  const double params = l * p.layer_params + (i == 0 ? p.embedding_params : 0.0) +
                        (i == p.stages - 1 ? p.head_params : 0.0);
  const double kept = p.recompute ? 1.0 : 17.0;  // elements of b·s·h a stashed micro-batch keeps per layer
  const double mem = 16.0 * params + p.stashed[static_cast<size_t>(i)] * kept * p.micro_batch_size * p.seq_len *
                                         p.hidden * l * p.bytes_per_elem;
  return mem <= p.gpus_per_stage * gpu.memory_bytes;
}

/// The least bottleneck over every split (l_i >= 1, Σ = L, each stage fitting), or inf.
double brute_bottleneck(const JobProfile& p, const std::vector<const GpuType*>& gpus, const ComputeOptions& opt) {
  double best = kInf;
  std::vector<int> l(static_cast<size_t>(p.stages));
  std::function<void(int, int, double)> rec = [&](int i, int left, double mx) {
    if (mx >= best) return;
    if (i == p.stages - 1) {
      if (left < 1 || !stage_fits(p, i, left, *gpus[static_cast<size_t>(i)])) return;
      best = std::min(best, std::max(mx, stage_time(p, i, left, *gpus[static_cast<size_t>(i)], opt)));
      return;
    }
    for (int x = 1; x <= left - (p.stages - 1 - i); ++x) {
      if (!stage_fits(p, i, x, *gpus[static_cast<size_t>(i)])) break;
      rec(i + 1, left - x, std::max(mx, stage_time(p, i, x, *gpus[static_cast<size_t>(i)], opt)));
    }
  };
  rec(0, p.total_layers, 0.0);
  return best;
}

TEST(LayerPartition, BalancedIsTheLeastBottleneckOfEverySplit) {
  Rng rng(424242);
  std::vector<GpuType> types = {make_gpu("fast", 900, 8, 700, 100),
                                make_gpu("mid", 300, 8, 400, 60),
                                make_gpu("slow-small", 120, 3, 300, 50)};
  types[1].mfu_max = 0.6;  // an efficiency curve (used where the case does not set sim.mfu)
  types[1].mfu_half_hidden = 1500;
  types[0].mfu_attention = 0.3;  // and an attention efficiency of its own
  int infeasible = 0, uneven = 0;
  for (int n = 0; n < 1500; ++n) {
    const int L = 2 + static_cast<int>(rng.below(13));
    const LlmSpec llm{"m", L, 1024 + 512 * static_cast<int>(rng.below(4)), 8000 + 4000 * static_cast<int>(rng.below(8)),
                      512 * (1 + static_cast<int>(rng.below(4))), 2};
    Job j;
    j.stages = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(L, 5))));
    j.micro_batches = 1 + static_cast<int>(rng.below(16));
    j.micro_batch_size = 1 + static_cast<int>(rng.below(8));
    j.gpus_per_stage = 1;
    ComputeOptions opt;
    opt.pipeline_schedule = rng.below(2) ? PipelineScheduleKind::kOneFOneB : PipelineScheduleKind::kGPipe;
    opt.recompute = rng.below(2) ? Recompute::kFull : Recompute::kNone;
    if (rng.below(2)) opt.mfu = 0.4;  // else each type's curve (the test types': 0.4, or a curve below)
    const JobProfile p = make_profile(j, llm, opt);
    std::vector<const GpuType*> gpus;
    for (int i = 0; i < j.stages; ++i) gpus.push_back(&types[rng.below(types.size())]);
    const std::vector<int> l = balanced_layers(p, gpus, opt);
    const double brute = brute_bottleneck(p, gpus, opt);
    SCOPED_TRACE("case " + std::to_string(n) + " L=" + std::to_string(L) + " S=" + std::to_string(j.stages));
    if (brute == kInf) {
      EXPECT_TRUE(l.empty());
      ++infeasible;
      continue;
    }
    ASSERT_EQ(l.size(), static_cast<size_t>(j.stages));
    int sum = 0;
    double mx = 0;
    for (int i = 0; i < j.stages; ++i) {
      const auto k = static_cast<size_t>(i);
      EXPECT_GE(l[k], 1);
      EXPECT_TRUE(stage_fits(p, i, l[k], *gpus[k]));
      sum += l[k];
      mx = std::max(mx, stage_time(p, i, l[k], *gpus[k], opt));
    }
    EXPECT_EQ(sum, L);
    EXPECT_DOUBLE_EQ(mx, brute);
    // with_layers recomputes the profile exactly as make_profile does
    const JobProfile q = with_layers(p, l);
    for (int i = 0; i < j.stages; ++i) {
      const auto k = static_cast<size_t>(i);
      EXPECT_DOUBLE_EQ(unit_time(q, i, *gpus[k], opt), stage_time(p, i, l[k], *gpus[k], opt));
      EXPECT_EQ(q.stage_fits(i, *gpus[k]), true);
    }
    if (l != p.layers) ++uneven;
  }
  EXPECT_GT(infeasible, 20);
  EXPECT_GT(uneven, 300);
}

TEST(LayerPartition, EvenIsMakeProfileAndAMixedPipelineIsBalancedByHand) {
  // 12 layers, no LM head worth counting (V tiny), on an H100-like stage (3x) and an A100-like
  // one: the bottleneck is least with 9 layers on the fast stage and 3 on the slow one.
  const LlmSpec llm{"m", 12, 1024, 8, 512, 2};
  Job j;
  j.stages = 2;
  j.micro_batches = 4;
  ComputeOptions opt;
  const JobProfile p = make_profile(j, llm, opt);
  EXPECT_EQ(p.layers, (std::vector<int>{6, 6}));
  const GpuType fast = make_gpu("fast", 900, 80, 700, 100), slow = make_gpu("slow", 300, 80, 400, 60);
  const std::vector<const GpuType*> gpus = {&fast, &slow};
  opt.layer_partition = LayerPartition::kEven;
  EXPECT_EQ(placed_profile(p, gpus, opt).layers, p.layers);
  opt.layer_partition = LayerPartition::kBalanced;
  EXPECT_EQ(balanced_layers(p, gpus, opt), (std::vector<int>{9, 3}));
  const std::vector<const GpuType*> swapped = {&slow, &fast};
  EXPECT_EQ(balanced_layers(p, swapped, opt), (std::vector<int>{3, 9}));
}

TEST(LayerPartition, TheEngineAndTheEstimatesRunTheBalancedSplit) {
  // Two regions, fast (900 TFLOP/s) and slow (300), one job of 2 stages across them.
  Scenario sc = make_scenario({make_gpu("fast", 900, 80, 700, 100), make_gpu("slow", 300, 80, 400, 60)},
                                        {{"f", 0, 1, 0.1}, {"s", 1, 1, 0.1}}, {LlmSpec{"m", 12, 1024, 8, 512, 2}});
  set_link(sc.topology, 0, 1, 1e15, 0.0);
  Job job = make_job(0.0, 0, 2, 1, 4, 100, 1);
  sc.compute.layer_partition = LayerPartition::kBalanced;
  const JobProfile p = testutil::profile_of(sc, job);
  const JobProfile q = with_layers(p, {9, 3});
  const ClusterView v = idle_view(sc.topology, sc.compute);
  // the estimate of the placement is the balanced profile's
  ComputeOptions even_opt = sc.compute;
  even_opt.layer_partition = LayerPartition::kEven;
  ClusterView ve = idle_view(sc.topology, even_opt);
  EXPECT_DOUBLE_EQ(estimate_iteration_s(p, Placement{{0, 1}}, v, BandwidthModel::kBlind),
                   estimate_iteration_s(q, Placement{{0, 1}}, ve, BandwidthModel::kBlind));
  EXPECT_LT(estimate_iteration_s(p, Placement{{0, 1}}, v, BandwidthModel::kBlind),
            estimate_iteration_s(p, Placement{{0, 1}}, ve, BandwidthModel::kBlind));
  // the engine runs it (one GPU per region: the job spans both), and records its layers; the
  // iteration time is the balanced profile's, its hop's transfers running at the link's capacity
  // (the flow is alone on it: its allocation β = A / min f plus the rest) in both directions
  const SimResult r = schedtest::run_preset("first-fit", sc, {job});
  ASSERT_EQ(r.jobs.size(), 1u);
  ASSERT_EQ(r.jobs[0].stage_region, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.jobs[0].layers, (std::vector<int>{9, 3}));
  const std::vector<double> f = {forward_time(q, 0, sc.topology.gpu_types[0], sc.compute),
                                 forward_time(q, 1, sc.topology.gpu_types[1], sc.compute)};
  const std::vector<double> b = {backward_time(f[0], q.bwd_per_fwd[0]), backward_time(f[1], q.bwd_per_fwd[1])};
  const std::vector<double> beta = {1e15}, lat = {0.0};
  PipelineInput in;
  in.micro_batches = 4;
  in.fwd_s = f;
  in.bwd_s = b;
  in.hop_fwd_bytes_per_s = beta;
  in.hop_bwd_bytes_per_s = beta;
  in.hop_latency_s = lat;
  in.activation_bytes = q.activation_bytes;
  EXPECT_NEAR(r.jobs[0].first_iteration_s, gpipe_iteration_time(in), 1e-12 * r.jobs[0].first_iteration_s);
}

/// Every placement of contiguous blocks on distinct, linked regions (at most `max_blocks`, each
/// within its region's GPUs) whose balanced split fits: the placements a balanced-aware search
/// would consider.
void balanced_placements(const JobProfile& p, const ClusterView& v, int max_blocks,
                         const std::function<void(const Placement&)>& visit) {
  const Topology& topo = *v.topo;
  const int R = v.regions(), S = p.stages, g = p.gpus_per_stage;
  std::vector<int> stack, used(static_cast<size_t>(R), 0);
  std::function<void(int, int, int)> rec = [&](int i, int last, int blocks) {
    if (i == S) {
      std::vector<const GpuType*> gpus;
      for (int r : stack) gpus.push_back(&topo.gpu_of(r));
      if (!balanced_layers(p, gpus, *v.compute).empty()) visit(Placement{stack});
      return;
    }
    if (blocks == max_blocks) return;
    for (int r = 0; r < R; ++r) {
      if (used[static_cast<size_t>(r)] || (last >= 0 && !topo.connected(last, r))) continue;
      used[static_cast<size_t>(r)] = 1;
      for (int L = 1; L <= std::min(v.free_gpus[static_cast<size_t>(r)] / g, S - i); ++L) {
        stack.resize(static_cast<size_t>(i));
        stack.resize(static_cast<size_t>(i + L), r);
        rec(i + L, r, blocks + 1);
      }
      stack.resize(static_cast<size_t>(i));
      used[static_cast<size_t>(r)] = 0;
    }
  };
  rec(0, -1, 0);
}

// The pathfinder ranks placements by their even-split estimate (docs/model.md, "Layer
// partitions"): how far its choice is from the placement with the least balanced estimate,
// measured on random small instances (mixed fast/slow regions, the fast GPUs' memory tight
// enough that the split decides what fits; bandwidth-blind fastest search).
// The figures printed here are the ones docs/model.md quotes; the assertions guard them.
TEST(LayerPartition, PathfinderUnderBalancedAgainstEveryPlacement) {
  Rng rng(97531);
  int runs = 0, optimal = 0, missed_only_balanced = 0, flagged = 0;
  double worst = 1.0, sum_ratio = 0;
  for (int n = 0; n < 400; ++n) {
    const int R = 3 + static_cast<int>(rng.below(2));
    std::vector<testutil::RegionSpec> regs;
    for (int r = 0; r < R; ++r)
      regs.push_back({"r" + std::to_string(r), static_cast<int>(rng.below(2)), 1 + static_cast<int>(rng.below(4)), 0.1});
    Scenario sc = make_scenario({make_gpu("fast", 900, 2, 700, 100), make_gpu("slow", 300, 40, 400, 60)}, regs,
                                {LlmSpec{"m", 8 + static_cast<int>(rng.below(17)), 1024, 32000, 512, 2}});
    for (int a = 0; a < R; ++a)
      for (int b = a + 1; b < R; ++b)
        if (rng.uniform() < 0.8) set_link(sc.topology, a, b, 1e8 * std::pow(10.0, rng.uniform(0.0, 3.0)), rng.uniform(0.0, 0.05));
    sc.compute.layer_partition = LayerPartition::kBalanced;
    const Job job = make_job(0.0, 0, 2 + static_cast<int>(rng.below(4)), 1, 1 + static_cast<int>(rng.below(8)), 100, 1);
    const JobProfile p = testutil::profile_of(sc, job);
    const ClusterView v = idle_view(sc.topology, sc.compute);
    SearchSpec s;
    s.objective = SearchSpec::Objective::kMinTime;
    s.max_blocks = 3;
    s.stall_free = false;
    s.bandwidth = BandwidthModel::kBlind;
    s.keep_incumbents = true;
    Pathfinder pf;
    const SearchResult res = pf.search(p, v, s);
    if (res.found) {
      ASSERT_FALSE(res.incumbents.empty());
      EXPECT_EQ(res.incumbents.back().stage_region, res.placement.stage_region);
      // The even split: the search's ranking is the real one, nothing is ever flagged.
      ClusterView even_view = v;
      ComputeOptions even = sc.compute;
      even.layer_partition = LayerPartition::kEven;
      even_view.compute = &even;
      EXPECT_FALSE(balanced_split_beats(p, even_view, s, res));
    }
    double best = kInf;
    balanced_placements(p, v, s.max_blocks, [&](const Placement& pl) {
      best = std::min(best, estimate_iteration_s(p, pl, v, BandwidthModel::kBlind));
    });
    if (!res.found) {
      if (best < kInf) ++missed_only_balanced;  // fits only with a balanced split
      continue;
    }
    ASSERT_LT(best, kInf);
    const double got = estimate_iteration_s(p, res.placement, v, BandwidthModel::kBlind);
    EXPECT_GE(got, best * (1 - 1e-12));  // the brute force sees every placement the search can return
    ++runs;
    const double ratio = got / best;
    sum_ratio += ratio;
    worst = std::max(worst, ratio);
    if (ratio <= 1 + 1e-12) ++optimal;
    // The run-time counter (sched_partition_misses) flags a search only where a better
    // placement exists: it never flags an optimal choice.
    const bool beaten = balanced_split_beats(p, v, s, res);
    if (beaten) {
      EXPECT_GT(ratio, 1 + 1e-12);
    }
    flagged += beaten;
  }
  std::cout << "[ balanced ] pathfinder placement has the least balanced estimate in " << optimal << " of " << runs
            << " instances; mean ratio " << sum_ratio / runs << ", worst " << worst << "; " << missed_only_balanced
            << " instances fit only with a balanced split; sched_partition_misses flags " << flagged << " of the "
            << runs - optimal << " non-optimal ones\n";
  // Measured (docs/model.md quotes it): the least balanced estimate in 370 of 380 instances, mean
  // ratio 1.048, worst 14x (a placement the even split's memory check excludes while a balanced
  // split fits it), and 4 instances where only a balanced split fits at all; of the 10
  // non-optimal choices the run-time counter flags 1 (the others' better placements are ones
  // the search never reached).
  EXPECT_GT(runs, 300);
  EXPECT_GE(optimal, runs * 9 / 10);
  EXPECT_GT(missed_only_balanced, 0);  // the instances reach the case the bound names
  EXPECT_GT(flagged, 0);               // and the counter's case (1 of the 10 when measured)
}

}  // namespace
}  // namespace geopipe
