// Random accepted scenarios for the property tests of the engine and the schedulers
// (test_no_job_left_behind.cpp): random topologies (2..9 regions, up to three GPU types of
// different speed and memory, missing links, asymmetric link directions, flat and hourly
// prices), a random model catalogue and job stream, and random scheduler parameters (view
// noise and staleness, switch limits, ε, priority weights). "Accepted" as the config loader
// accepts a scenario: every job fits the idle cluster (sched/feasibility.h); a drawn job that
// does not is drawn again. Everything is drawn from one xoshiro stream, so a case number names
// the same scenario on every machine.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/flexible_job.h"
#include "model/rng.h"
#include "model/step_series.h"
#include "scenario_builders.h"
#include "sched/feasibility.h"

namespace geopipe::testutil {

struct RandomCase {
  Scenario scenario;
  std::vector<Job> jobs;
};

/// Log-uniform in [lo, hi].
inline double log_uniform(Rng& rng, double lo, double hi) { return lo * std::exp(rng.uniform() * std::log(hi / lo)); }

/// The scenario of case `k` of the stream `seed` (see the header comment).
inline RandomCase random_case(std::uint64_t seed, std::uint64_t k) {
  Rng rng(derive_seed(seed ^ (k * 0x9E3779B97F4A7C15ULL), "random-case"));
  const int n_types = 1 + static_cast<int>(rng.below(3));
  std::vector<GpuType> gpus;
  for (int t = 0; t < n_types; ++t)
    gpus.push_back(make_gpu("gpu" + std::to_string(t), rng.uniform(80.0, 400.0), t == 0 ? 80.0 : (rng.below(2) ? 40.0 : 80.0),
                            rng.uniform(300.0, 700.0), rng.uniform(50.0, 120.0)));
  const double capacity_scale = log_uniform(rng, 0.5, 2.0);
  const int R = 2 + static_cast<int>(rng.below(8));  // 2..9: the set search from 8 regions up too
  std::vector<RegionSpec> regions;
  for (int r = 0; r < R; ++r) {
    const int count = std::max(1, static_cast<int>(std::lround((2 + static_cast<int>(rng.below(15))) * capacity_scale)));
    regions.push_back({"r" + std::to_string(r), static_cast<int>(rng.below(static_cast<std::uint64_t>(n_types))), count,
                       rng.uniform(0.03, 0.40), rng.uniform(1.05, 1.6)});
  }
  std::vector<LlmSpec> llms;
  const int n_models = 1 + static_cast<int>(rng.below(3));
  for (int m = 0; m < n_models; ++m) {
    const int hidden = 1024 << rng.below(3);  // 1024, 2048, 4096
    llms.push_back(tiny_llm("m" + std::to_string(m), 4 + static_cast<int>(rng.below(21)), hidden,
                            1000 + static_cast<int>(rng.below(31000)), 512 << rng.below(3)));
  }
  Scenario sc = make_scenario(gpus, regions, llms);
  for (int r = 0; r < R; ++r)
    if (rng.below(4) == 0) {  // a quarter of the regions price by the hour
      std::array<double, 24> h{};
      for (double& p : h) p = rng.uniform(0.03, 0.40);
      sc.topology.regions[static_cast<size_t>(r)].price = PriceProfile::hourly(h, static_cast<double>(rng.below(24)) - 11.0);
    }
  const double bw_scale = log_uniform(rng, 0.25, 4.0);
  const double p_link = rng.uniform(0.4, 1.0);
  for (int a = 0; a < R; ++a)
    for (int b = a + 1; b < R; ++b) {
      if (rng.uniform() >= p_link) continue;  // not linked
      const double lat = rng.uniform(0.001, 0.150);
      set_link_dir(sc.topology, a, b, bw_scale * log_uniform(rng, 1e7, 2e10), lat);
      set_link_dir(sc.topology, b, a, bw_scale * log_uniform(rng, 1e7, 2e10), lat);  // asymmetric
    }
  sc.bandwidth_scale = bw_scale;
  sc.capacity_scale = capacity_scale;

  SchedulerParams& s = sc.scheduler;
  s.max_region_switches = static_cast<int>(rng.below(5));
  s.epsilon = rng.uniform(0.0, 0.5);
  s.priority_network_weight = rng.uniform(0.0, 4.0);
  switch (rng.below(4)) {  // exact, noisy, stale, both
    case 1: s.view_noise_sigma = rng.uniform(0.0, 0.5); break;
    case 2: s.view_staleness_s = rng.uniform(0.0, 3600.0); break;
    case 3:
      s.view_noise_sigma = rng.uniform(0.0, 0.5);
      s.view_staleness_s = rng.uniform(0.0, 3600.0);
      break;
    default: break;
  }

  // Pipeline schedule (GPipe or 1F1B) and layer partition (even or balanced), from a stream of its own (so the other draws are those
  // of the cases before schedules existed).
  Rng schedule_rng(derive_seed(seed ^ (k * 0x9E3779B97F4A7C15ULL), "random-case-schedule"));
  sc.compute.pipeline_schedule = schedule_rng.below(2) ? PipelineScheduleKind::kOneFOneB : PipelineScheduleKind::kGPipe;
  sc.compute.layer_partition = schedule_rng.below(2) ? LayerPartition::kBalanced : LayerPartition::kEven;

  // Jobs: Poisson arrivals (a mean gap of 30 s .. 30 min), short runs; redrawn until they fit
  // the idle cluster (at most 50 tries, then the job is left out).
  const int n = 10 + static_cast<int>(rng.below(31));
  const double gap_s = log_uniform(rng, 30.0, 1800.0);
  std::vector<Job> jobs;
  double t = 0;
  for (int q = 0; q < n; ++q) {
    t += rng.exponential(1.0 / gap_s);
    for (int attempt = 0; attempt < 50; ++attempt) {
      const int model = static_cast<int>(rng.below(static_cast<std::uint64_t>(n_models)));
      const int L = sc.llms[static_cast<size_t>(model)].layers;
      const int S = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(L, 12))));
      const int g = 1 + static_cast<int>(rng.below(4));
      const int m = 2 + static_cast<int>(rng.below(15));
      const int b = 1 + static_cast<int>(rng.below(2));
      const auto iters = static_cast<std::int64_t>(std::llround(rng.bounded_pareto(1.1, 50, 5000)));
      const Job j = make_job(t, model, S, g, m, iters, b);
      if (!fits_empty_cluster(make_profile(j, sc.llms[static_cast<size_t>(model)], sc.compute), sc.topology)) continue;
      jobs.push_back(j);
      break;
    }
  }
  return {std::move(sc), finalize_jobs(std::move(jobs))};
}

/// Case `k` of random_case(seed, k) with capacity series on about half of its link directions
/// (docs/model.md, "Time series"), drawn from a stream of their own: 2..7 steps at random times
/// over about the span of the arrivals (the first at 0), each an outage (1 in 4), a drop to
/// 5..100 % of the constant capacity or the constant itself; held or wrapped after the end.
/// Accepted as the loader accepts a series: not 0 in every row, not ending in an outage when
/// held. The link keeps its constant capacity as the series' maximum (Link::capacity_bytes_per_s).
inline RandomCase random_series_case(std::uint64_t seed, std::uint64_t k) {
  RandomCase c = random_case(seed, k);
  Rng rng(derive_seed(seed ^ (k * 0x9E3779B97F4A7C15ULL), "random-case-series"));
  Topology& topo = c.scenario.topology;
  const int R = topo.num_regions();
  const double span_s = std::max(600.0, c.jobs.empty() ? 0.0 : 1.5 * c.jobs.back().arrival_s);
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b) {
      Link& l = topo.link(a, b);
      if (a == b || l.capacity_bytes_per_s <= 0 || rng.below(2) == 0) continue;
      const double base = l.capacity_bytes_per_s;
      const int n = 2 + static_cast<int>(rng.below(6));
      std::vector<double> t{0.0}, v;
      for (int i = 1; i < n; ++i) t.push_back(t.back() + rng.uniform(0.02, 1.0) * span_s / (n - 1));
      for (int i = 0; i < n; ++i) {
        const std::uint64_t kind = rng.below(4);
        v.push_back(kind == 0 ? 0.0 : kind == 1 ? base : base * rng.uniform(0.05, 1.0));
      }
      const SeriesEnd end = rng.below(2) ? SeriesEnd::kWrap : SeriesEnd::kHold;
      if (end == SeriesEnd::kHold && v.back() <= 0) v.back() = base * rng.uniform(0.05, 1.0);
      if (*std::max_element(v.begin(), v.end()) <= 0) v.front() = base;
      auto s = std::make_shared<const StepSeries>(std::move(t), std::move(v), end, /*merge_equal_steps=*/true);
      l.capacity_bytes_per_s = s->max_value();
      l.capacity_series = std::move(s);
    }
  return c;
}

/// Case `k` of random_case(seed, k) with data parallelism, drawn from a stream of its own
/// (docs/model.md, "Data parallelism"): every job is offered D = 2..4 replicas (kept
/// when the D replicas fit the idle cluster, as the loader requires, else the job keeps one),
/// and the scenario's synchronisation (all-reduce or DiLoCo with H = 1..20), collective (ring or
/// hierarchical) and bytes per parameter (1, 2 or 4).
inline RandomCase random_dp_case(std::uint64_t seed, std::uint64_t k) {
  RandomCase c = random_case(seed, k);
  Rng rng(derive_seed(seed ^ (k * 0x9E3779B97F4A7C15ULL), "random-case-dp"));
  ComputeOptions& opt = c.scenario.compute;
  opt.dp_sync = rng.below(2) ? DpSync::kDiLoCo : DpSync::kAllReduce;
  opt.diloco_interval = 1 + static_cast<std::int64_t>(rng.below(20));
  opt.allreduce = rng.below(2) ? AllReduceKind::kHierarchical : AllReduceKind::kRing;
  opt.sync_bytes_per_param = static_cast<double>(1 << rng.below(3));
  for (Job& j : c.jobs) {
    const int D = 2 + static_cast<int>(rng.below(3));
    Job dp = j;
    dp.data_parallel = D;
    if (fits_empty_cluster(make_profile(dp, c.scenario.llms[static_cast<size_t>(j.model)], opt), c.scenario.topology,
                           opt.allreduce))
      j = dp;
  }
  return c;
}

/// Case `k` of random_dp_case(seed, k) with flexible jobs (docs/model.md, "Choosing D"): a job of
/// D > 1 replicas becomes data_parallel = 0 on its D·S slots with its D·m micro-batches (the
/// same GPUs and global batch, D left to the scheduler), kept when one of its variants fits the
/// idle cluster, as the loader requires.
inline RandomCase random_flexible_case(std::uint64_t seed, std::uint64_t k) {
  RandomCase c = random_dp_case(seed, k);
  for (Job& j : c.jobs) {
    if (j.data_parallel < 2) continue;
    Job flex = j;
    flex.data_parallel = 0;
    flex.stages = j.data_parallel * j.stages;
    flex.micro_batches = j.data_parallel * j.micro_batches;
    const LlmSpec& llm = c.scenario.llms[static_cast<size_t>(j.model)];
    for (const Job& v : flexible_variants_that_fit(flex, llm, c.scenario.topology, c.scenario.compute))
      if (fits_empty_cluster(make_profile(v, llm, c.scenario.compute), c.scenario.topology, c.scenario.compute.allreduce)) {
        j = flex;
        break;
      }
  }
  return c;
}

}  // namespace geopipe::testutil
