// The pathfinder's tight bounds change no decision (sched/pathfinder.h, SearchSpec::Bounds):
// the plain DFS with kTight and with kReference (the original search's bounds only) must make
// the same placements the incumbent in the same order, so that results, `incumbents` (which
// feed sched_partition_misses) and est_iteration_s are bit-identical, while kTight visits far
// fewer nodes. Checked on the shipped six-region bases (loaded from sweeps/base/) with random
// busy views and every search the schedulers run, and on deep synthetic instances (up to 7
// regions x 64 stages, searched with the plain DFS asked for: since model version 3 kAuto runs
// the set search there from 16 stages, whose sets the plain DFS searches with the same bounds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "model/job.h"
#include "model/rng.h"
#include "model/workload.h"
#include "sched/pathfinder.h"
#include "sim/view.h"

namespace geopipe {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Tally {
  long searches = 0, found = 0, several_incumbents = 0;
  long nodes_tight = 0, nodes_reference = 0;
};

/// Runs `s` with both bounds and expects identical outcomes; returns the reference result.
SearchResult compare(const JobProfile& p, const ClusterView& v, SearchSpec s, Pathfinder& tight, Pathfinder& reference,
                     Tally& t) {
  s.strategy = SearchSpec::Strategy::kPlain;
  s.keep_incumbents = true;
  s.bounds = SearchSpec::Bounds::kTight;
  const SearchResult a = tight.search(p, v, s);
  s.bounds = SearchSpec::Bounds::kReference;
  const SearchResult b = reference.search(p, v, s);
  ++t.searches;
  t.found += b.found;
  t.several_incumbents += b.incumbents.size() >= 2;
  t.nodes_tight += a.nodes;
  t.nodes_reference += b.nodes;
  EXPECT_EQ(a.found, b.found);
  EXPECT_FALSE(a.truncated);
  EXPECT_FALSE(b.truncated);
  EXPECT_EQ(a.placement.stage_region, b.placement.stage_region);
  EXPECT_TRUE(same_bits(a.objective, b.objective)) << a.objective << " vs " << b.objective;
  EXPECT_TRUE(same_bits(a.est_iteration_s, b.est_iteration_s)) << a.est_iteration_s << " vs " << b.est_iteration_s;
  EXPECT_EQ(a.incumbents.size(), b.incumbents.size());
  for (size_t k = 0; k < std::min(a.incumbents.size(), b.incumbents.size()); ++k)
    EXPECT_EQ(a.incumbents[k].stage_region, b.incumbents[k].stage_region) << "incumbent " << k;
  return b;
}

/// The searches the schedulers run: the fastest placement (stall-free with the expected
/// bandwidth as bace-pipe, not stall-free as delay-first, bandwidth-blind as
/// bace-no-pathfinder), then the cheapest within 1, 1.1 and 1.5 times its time.
void all_searches(const JobProfile& p, const ClusterView& v, int max_blocks, Pathfinder& tight, Pathfinder& reference,
                  Tally& t) {
  const struct {
    bool stall_free;
    BandwidthModel bw;
  } cases[3] = {{true, BandwidthModel::kExpected}, {false, BandwidthModel::kExpected}, {false, BandwidthModel::kBlind}};
  for (const auto& c : cases) {
    SearchSpec s;
    s.max_blocks = max_blocks;
    s.stall_free = c.stall_free;
    s.bandwidth = c.bw;
    const SearchResult fastest = compare(p, v, s, tight, reference, t);
    if (::testing::Test::HasFailure() || !fastest.found) continue;
    for (double eps : {0.0, 0.1, 0.5}) {
      SearchSpec cs = s;
      cs.objective = SearchSpec::Objective::kMinCost;
      cs.time_cap_s = fastest.est_iteration_s * (1.0 + eps) * (1.0 + 1e-12);
      compare(p, v, cs, tight, reference, t);
    }
  }
}

/// A busy view of `topo`: random free GPUs, random residuals and flows on 60 % of the links.
ClusterView busy_view(const Topology& topo, const ComputeOptions& compute, Rng& rng) {
  ClusterView v = idle_view(topo, compute, rng.uniform(0.0, 3 * 86400.0));
  const int R = topo.num_regions();
  v.total_free = 0;
  for (int r = 0; r < R; ++r) {
    const auto k = static_cast<size_t>(r);
    v.free_gpus[k] = static_cast<int>(rng.below(static_cast<std::uint64_t>(topo.regions[k].gpu_count) + 1));
    v.total_free += v.free_gpus[k];
  }
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b)
      if (a != b && topo.connected(a, b) && rng.uniform() < 0.6) {
        const auto k = static_cast<size_t>(a * R + b);
        v.residual[k] = topo.link(a, b).capacity_bytes_per_s * rng.uniform();
        v.flows[k] = 1 + static_cast<int>(rng.below(4));
      }
  return v;
}

void report(const char* what, const Tally& t) {
  std::cout << "[ bounds ] " << what << ": " << t.searches << " searches (" << t.found << " found, "
            << t.several_incumbents << " with 2+ incumbents), nodes " << t.nodes_tight << " tight vs "
            << t.nodes_reference << " reference\n";
}

// The shipped bases, GPipe with the even split and 1F1B with the balanced split (whose runs
// record the incumbents), every shape of their workload mix and deeper pipelines of the same
// models, on random busy views.
TEST(PathfinderBounds, TightBoundsKeepEveryIncumbentOnTheShippedBases) {
  Tally t;
  Pathfinder tight, reference;
  for (const char* base : {"six-regions.toml", "cloud-six-regions.toml"})
    for (bool f1b : {false, true}) {
      Scenario sc = config::load_scenario_file(std::string(GEOPIPE_SOURCE_DIR) + "/sweeps/base/" + base);
      if (f1b) {
        sc.compute.pipeline_schedule = PipelineScheduleKind::kOneFOneB;
        sc.compute.layer_partition = LayerPartition::kBalanced;
      }
      std::vector<Job> shapes;
      for (const ModelMixEntry& e : sc.workload.mix) {
        const LlmSpec& llm = sc.llms[static_cast<size_t>(e.model)];
        for (int stages : {generated_stages(e, llm, sc.topology, sc.compute), 16, 32}) {
          if (stages <= 0 || stages > llm.layers) continue;
          Job j;
          j.model = e.model;
          j.stages = stages;
          j.gpus_per_stage = e.gpus_per_stage;
          j.micro_batch_size = e.micro_batch_size;
          j.micro_batches = e.micro_batches;
          j.iterations = 1000;
          shapes.push_back(j);
        }
      }
      Rng rng(derive_seed(f1b ? 2 : 1, base));
      for (int it = 0; it < 250; ++it) {
        const ClusterView v = busy_view(sc.topology, sc.compute, rng);
        const Job& j = shapes[rng.below(shapes.size())];
        const JobProfile p = make_profile(j, sc.llms[static_cast<size_t>(j.model)], sc.compute);
        SCOPED_TRACE(std::string(base) + (f1b ? " 1f1b" : "") + " view " + std::to_string(it) + " S=" + std::to_string(j.stages));
        for (int max_blocks : {4, 2, 6}) all_searches(p, v, max_blocks, tight, reference, t);
        if (HasFailure()) return;
      }
    }
  report("shipped bases", t);
  EXPECT_GE(t.found, t.searches / 2);
  EXPECT_GE(t.several_incumbents, 100);  // the incumbent lists compared are not trivial
  EXPECT_LT(t.nodes_tight, t.nodes_reference);
}

// Deep pipelines on up to 7 regions of two GPU types, with random capacities (sometimes too
// small for three blocks), latencies, bandwidths, loads and egress prices.
TEST(PathfinderBounds, TightBoundsKeepEveryIncumbentOnDeepInstances) {
  Tally t;
  Pathfinder tight, reference;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    Rng rng(derive_seed(seed, "pathfinder-bounds"));
    const int R = 3 + static_cast<int>(rng.below(5)), S = 8 << rng.below(4);
    Topology topo;
    topo.gpu_types = {GpuType{"fast", 989e12, 80e9, 700, 100}, GpuType{"slow", 312e12, 80e9, 400, 60}};
    for (int r = 0; r < R; ++r) {
      Region reg;
      reg.name = "r" + std::to_string(r);
      reg.gpu_type = static_cast<int>(rng.below(2));
      reg.gpu_count = std::max(1, S / (2 + static_cast<int>(rng.below(4))) + static_cast<int>(rng.below(4)));
      reg.price = PriceProfile::flat(rng.uniform(0.05, 0.3));
      reg.pue = rng.uniform(1.05, 1.4);
      topo.regions.push_back(reg);
    }
    topo.reset_links();
    for (int a = 0; a < R; ++a)
      for (int b = a + 1; b < R; ++b) {
        if (rng.uniform() < 0.1) continue;
        const double bw = rng.uniform(10.0, 400.0) * 1e9 / 8, lat = rng.uniform(0.01, 0.12);
        const double egress = rng.uniform() < 0.5 ? rng.uniform(0.0, 0.1) / 1e9 : 0.0;
        topo.link(a, b) = Link{bw, lat, egress, {}};
        topo.link(b, a) = Link{bw * (rng.uniform() < 0.2 ? 0.5 : 1.0), lat, egress, {}};
      }
    ComputeOptions compute;
    if (seed % 2 == 0) {
      compute.pipeline_schedule = PipelineScheduleKind::kOneFOneB;
      compute.layer_partition = LayerPartition::kBalanced;
    }
    const LlmSpec llm{"deep", 128, 2048, 32000, 2048, 2};
    Job j;
    j.stages = S;
    j.micro_batches = seed % 3 == 0 ? 4 : 16;
    j.iterations = 1000;
    const JobProfile p = make_profile(j, llm, compute);
    const ClusterView v = busy_view(topo, compute, rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + " R=" + std::to_string(R) + " S=" + std::to_string(S));
    for (int max_blocks : {4, 3}) all_searches(p, v, max_blocks, tight, reference, t);
    if (HasFailure()) return;
  }
  report("deep instances", t);
  EXPECT_GE(t.found, t.searches / 3);
  EXPECT_GE(t.several_incumbents, 150);
  EXPECT_LT(3 * t.nodes_tight, 2 * t.nodes_reference);  // the point of the tight bounds
}

}  // namespace
}  // namespace geopipe
