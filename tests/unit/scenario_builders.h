// Helpers that build Scenario objects in code for the unit tests (no TOML).
//
// Conventions (see src/model/scenario.h and topology.h):
//  * Scenario::llms is indexed by Job::model; Topology::gpu_types by Region::gpu_type;
//  * links are reset to "no link" after the regions are filled; set_link() sets both
//    directions, set_link_dir() one;
//  * jobs get id = index after a stable sort by arrival (finalize_jobs()).
// All values are SI: FLOP/s, bytes, bytes/s, seconds, watts, $/kWh.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/gpu.h"
#include "model/job.h"
#include "model/llm.h"
#include "model/scenario.h"
#include "model/topology.h"

namespace geopipe::testutil {

/// A custom GPU type with round numbers (defaults: 100 TFLOP/s, 80 GB, 500 W busy, 100 W idle).
inline GpuType make_gpu(std::string name, double peak_tflops = 100.0, double memory_gb = 80.0,
                        double busy_w = 500.0, double idle_w = 100.0) {
  GpuType g;
  g.name = std::move(name);
  g.peak_flops = peak_tflops * 1e12;
  g.memory_bytes = memory_gb * 1e9;
  g.busy_power_w = busy_w;
  g.idle_power_w = idle_w;
  return g;
}

/// A tiny decoder-only LLM (defaults: 8 layers, h = 1024, V = 1000, s = 1024, bf16).
/// With these numbers one layer holds 12·h² ≈ 12.6 M parameters (≈ 0.2 GB of training
/// state) and forward compute ≈ 3.0e10 FLOP per sequence.
inline LlmSpec tiny_llm(std::string name = "tiny", int layers = 8, int hidden = 1024, int vocab = 1000,
                        int seq_len = 1024) {
  LlmSpec l;
  l.name = std::move(name);
  l.layers = layers;
  l.hidden = hidden;
  l.vocab = vocab;
  l.seq_len = seq_len;
  l.bytes_per_elem = 2;
  return l;
}

/// One region: GPU type index, GPU count, flat price ($/kWh), PUE.
struct RegionSpec {
  std::string name;
  int gpu_type = 0;
  int gpus = 8;
  double price_usd_per_kwh = 0.10;
  double pue = 1.0;
};

inline Region make_region(const RegionSpec& s) {
  Region r;
  r.name = s.name;
  r.gpu_type = s.gpu_type;
  r.gpu_count = s.gpus;
  r.price = PriceProfile::flat(s.price_usd_per_kwh);
  r.utc_offset_h = 0;
  r.pue = s.pue;
  r.carbon_g_per_kwh = 0;
  return r;
}

/// Sets the compute options explicitly: mfu 0.4 on every GPU type (the constant of model
/// versions 1-3), the default full recomputation (b = 3f on stages without the LM head, less on
/// the last; memory as in versions 1-3). Hand computations written with b = 2f set
/// Recompute::kNone themselves.
inline void set_default_compute(Scenario& sc) {
  sc.compute.mfu = 0.4;
  sc.compute.tp_efficiency = 0.9;
  sc.compute.optimizer_step_s = 0.0;
  sc.compute.recompute = Recompute::kFull;
}

/// A scenario with the given GPU types, regions (flat prices), LLM catalogue and no links.
/// Intra-region hops: 100 Gbit/s (12.5e9 B/s), 0.01 ms. Scheduler parameters: defaults.
inline Scenario make_scenario(std::vector<GpuType> gpus, const std::vector<RegionSpec>& regions,
                              std::vector<LlmSpec> llms = {tiny_llm()}) {
  Scenario sc;
  sc.name = "unit-test";
  sc.source_path = "";
  sc.seed = 1;
  sc.topology.gpu_types = std::move(gpus);
  for (const RegionSpec& r : regions) sc.topology.regions.push_back(make_region(r));
  sc.topology.reset_links();
  sc.topology.intra_bandwidth_bytes_per_s = 12.5e9;
  sc.topology.intra_latency_s = 1e-5;
  sc.bandwidth_scale = 1.0;
  sc.capacity_scale = 1.0;
  sc.llms = std::move(llms);
  set_default_compute(sc);
  sc.scheduler = SchedulerParams{};
  return sc;
}

/// Direction a -> b only.
inline void set_link_dir(Topology& t, int a, int b, double capacity_bytes_per_s, double latency_s) {
  t.link(a, b).capacity_bytes_per_s = capacity_bytes_per_s;
  t.link(a, b).latency_s = latency_s;
}

/// Both directions of a <-> b, symmetric.
inline void set_link(Topology& t, int a, int b, double capacity_bytes_per_s, double latency_s) {
  set_link_dir(t, a, b, capacity_bytes_per_s, latency_s);
  set_link_dir(t, b, a, capacity_bytes_per_s, latency_s);
}

/// Every pair linked with the same capacity and latency.
inline void full_mesh(Topology& t, double capacity_bytes_per_s, double latency_s) {
  for (int a = 0; a < t.num_regions(); ++a)
    for (int b = a + 1; b < t.num_regions(); ++b) set_link(t, a, b, capacity_bytes_per_s, latency_s);
}

/// A job with explicit fields (id is assigned by finalize_jobs()).
inline Job make_job(double arrival_s, int model, int stages, int gpus_per_stage, int micro_batches,
                    std::int64_t iterations, int micro_batch_size = 1) {
  Job j;
  j.id = 0;
  j.arrival_s = arrival_s;
  j.model = model;
  j.stages = stages;
  j.gpus_per_stage = gpus_per_stage;
  j.micro_batches = micro_batches;
  j.iterations = iterations;
  j.micro_batch_size = micro_batch_size;
  return j;
}

/// Stable sort by arrival, then id = index (what simulate() requires).
inline std::vector<Job> finalize_jobs(std::vector<Job> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<int>(i);
  return jobs;
}

/// The small LLM of the model tests: 10 layers, h = 1000, V = 5000, s = 100, bf16.
inline LlmSpec tiny() { return tiny_llm("tiny", 10, 1000, 5000, 100); }

/// A job of model 0 with S stages, micro-batch size b, m micro-batches, g GPUs per stage and
/// 10 iterations (the model tests' argument order).
inline Job job(int S, int b, int m, int g) { return make_job(0.0, 0, S, g, m, 10, b); }

/// One region of 64 GPUs of one type with `mem` bytes of memory (100 TFLOP/s, 500/100 W),
/// flat 0.1 $/kWh, no links.
inline Topology one_region(double mem) {
  Topology t;
  t.gpu_types = {make_gpu("g", 100.0, 0.0, 500, 100)};
  t.gpu_types[0].memory_bytes = mem;  // exactly, for memory-edge tests
  t.regions = {make_region({"r", 0, 64, 0.1})};
  t.reset_links();
  return t;
}

/// The job's profile under the scenario's catalogue.
inline JobProfile profile_of(const Scenario& sc, const Job& j) {
  return make_profile(j, sc.llms[static_cast<size_t>(j.model)], sc.compute);
}

}  // namespace geopipe::testutil
