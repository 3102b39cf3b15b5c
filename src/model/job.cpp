#include "model/job.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>
#include <map>

namespace geopipe {

namespace {

/// Forward FLOP, parameters and memory of stage i of S holding `l` layers (make_profile's
/// formulas; the one place they are written).
struct StageFigures {
  double fwd_flops, bwd_per_fwd, params, memory_bytes;
};
StageFigures stage_figures(const JobProfile& p, int i, int l) {
  const int S = p.stages;
  StageFigures f{};
  const double layers_flops = l * p.layer_flops;
  f.fwd_flops = layers_flops + (i == S - 1 ? p.head_flops : 0.0);
  // 2 for the activation and weight gradients; full recomputation runs the layers' forward
  // again (not the LM head's): + their share of the forward, exactly 1 on a stage without the
  // head (x / (x + 0.0) == 1).
  f.bwd_per_fwd = 2.0 + (p.recompute ? layers_flops / f.fwd_flops : 0.0);
  f.params = l * p.layer_params + (i == 0 ? p.embedding_params : 0.0) + (i == S - 1 ? p.head_params : 0.0);
  const double stashed = p.stashed[static_cast<size_t>(i)];
  // A stashed micro-batch keeps e·b·s·h elements per layer (e = 1 with full recomputation: the
  // product is the one of model versions 1-3, bit for bit).
  const double kept = p.stashed_elements == kStashedElementsFull
                          ? stashed * p.micro_batch_size * p.seq_len * p.hidden * l * p.bytes_per_elem
                          : stashed * p.stashed_elements * p.micro_batch_size * p.seq_len * p.hidden * l * p.bytes_per_elem;
  f.memory_bytes = 16.0 * f.params + kept;
  return f;
}

}  // namespace

void set_layers(JobProfile& p, std::vector<int> layers) {
  const auto S = static_cast<size_t>(p.stages);
  assert(layers.size() == S);
  p.layers = std::move(layers);
  p.fwd_flops.resize(S);
  p.bwd_per_fwd.resize(S);
  p.params.resize(S);
  p.memory_bytes.resize(S);
  for (size_t k = 0; k < S; ++k) {
    const StageFigures f = stage_figures(p, static_cast<int>(k), p.layers[k]);
    p.fwd_flops[k] = f.fwd_flops;
    p.bwd_per_fwd[k] = f.bwd_per_fwd;
    p.params[k] = f.params;
    p.memory_bytes[k] = f.memory_bytes;
  }
}

JobProfile make_profile(const Job& job, const LlmSpec& llm, const ComputeOptions& opt) {
  assert(job.stages >= 1 && job.stages <= llm.layers);
  JobProfile p;
  const int S = job.stages;
  p.stages = S;
  p.micro_batches = job.micro_batches;
  p.gpus_per_stage = job.gpus_per_stage;
  p.data_parallel = job.data_parallel;
  p.iterations = static_cast<double>(job.iterations);
  const double b = job.micro_batch_size, s = llm.seq_len, h = llm.hidden, V = llm.vocab;
  const double bytes = llm.bytes_per_elem;
  p.activation_bytes = b * s * h * bytes;
  p.total_layers = llm.layers;
  p.layer_flops = 24.0 * b * s * h * h * (1.0 + s / (6.0 * h));
  p.head_flops = llm.head == Head::kLm ? 2.0 * b * s * h * V : 0.0;
  p.layer_params = llm.params_per_layer();
  p.embedding_params = llm.embedding_params();
  p.head_params = llm.head_params();
  p.micro_batch_size = b;
  p.seq_len = s;
  p.hidden = h;
  p.bytes_per_elem = bytes;
  p.recompute = opt.recompute == Recompute::kFull;
  p.stashed_elements = p.recompute ? kStashedElementsFull : kStashedElementsNone;
  const PipelineSchedule& schedule = opt.schedule();
  p.stashed.resize(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) p.stashed[static_cast<size_t>(i)] = schedule.stashed_micro_batches(i, S, job.micro_batches);
  std::vector<int> layers(static_cast<size_t>(S));
  const int base = llm.layers / S, extra = llm.layers % S;
  for (int i = 0; i < S; ++i) layers[static_cast<size_t>(i)] = base + (i < extra ? 1 : 0);
  set_layers(p, std::move(layers));
  return p;
}

JobProfile with_layers(const JobProfile& p, const std::vector<int>& layers) {
  JobProfile q = p;
  set_layers(q, layers);
  return q;
}

std::vector<int> balanced_layers(const JobProfile& p, std::span<const GpuType* const> stage_gpu,
                                 const ComputeOptions& opt) {
  const int S = p.stages;
  assert(static_cast<int>(stage_gpu.size()) == S);
  std::vector<int> l(static_cast<size_t>(S), 1);
  std::vector<double> speed(static_cast<size_t>(S)), cap(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) {
    const auto k = static_cast<size_t>(i);
    speed[k] = stage_speed(p, *stage_gpu[k], opt);
    cap[k] = p.gpus_per_stage * stage_gpu[k]->memory_bytes;
    if (!(stage_figures(p, i, 1).memory_bytes <= cap[k])) return {};
  }
  // time of stage i with one more layer; +inf when it would not fit
  auto next_time = [&](int i) {
    const auto k = static_cast<size_t>(i);
    const StageFigures f = stage_figures(p, i, l[k] + 1);
    return f.memory_bytes <= cap[k] ? compute_time(forward_time(f.fwd_flops, speed[k]), f.bwd_per_fwd)
                                    : std::numeric_limits<double>::infinity();
  };
  // A heap would make this O(L log S); S and L are at most a few hundred, and the scan keeps
  // the tie rule (lowest index) plain.
  std::vector<double> next(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) next[static_cast<size_t>(i)] = next_time(i);
  for (int left = p.total_layers - S; left > 0; --left) {
    int best = -1;
    for (int i = 0; i < S; ++i)
      if (next[static_cast<size_t>(i)] < std::numeric_limits<double>::infinity() &&
          (best < 0 || next[static_cast<size_t>(i)] < next[static_cast<size_t>(best)]))
        best = i;
    if (best < 0) return {};
    ++l[static_cast<size_t>(best)];
    next[static_cast<size_t>(best)] = next_time(best);
  }
  return l;
}

JobProfile placed_profile(const JobProfile& p, std::span<const GpuType* const> stage_gpu, const ComputeOptions& opt) {
  if (opt.layer_partition == LayerPartition::kEven) return p;
  std::vector<int> l = balanced_layers(p, stage_gpu, opt);
  return l.empty() ? p : with_layers(p, l);
}

JobProfile placed_profile(const JobProfile& p, const std::vector<int>& stage_region, const Topology& topo,
                          const ComputeOptions& opt) {
  if (opt.layer_partition == LayerPartition::kEven) return p;
  std::vector<const GpuType*> gpus(stage_region.size());
  for (size_t i = 0; i < stage_region.size(); ++i) gpus[i] = &topo.gpu_of(stage_region[i]);
  return placed_profile(p, gpus, opt);
}

double gpu_efficiency(const GpuType& gpu, double hidden, double seq_len, const ComputeOptions& opt) {
  if (opt.mfu) return *opt.mfu;
  const double m = gpu.mfu_half_hidden == 0 ? gpu.mfu_max : gpu.mfu_max * (hidden / (hidden + gpu.mfu_half_hidden));
  if (gpu.mfu_attention == 0) return m;
  // per token of a layer: 24·h² matrix-product FLOP at m, 4·s·h attention FLOP at mfu_attention
  return (6.0 * hidden + seq_len) / (6.0 * hidden / m + seq_len / gpu.mfu_attention);
}

double stage_speed(const JobProfile& p, const GpuType& gpu, const ComputeOptions& opt) {
  const int g = p.gpus_per_stage;
  const double tp = g > 1 ? opt.tp_efficiency : 1.0;
  // the product of model versions 1-3 (g · peak · mfu · tp) with the efficiency in mfu's place
  return g * gpu.peak_flops * gpu_efficiency(gpu, p.hidden, p.seq_len, opt) * tp;
}

int min_feasible_stages(const LlmSpec& llm, int micro_batch_size, int micro_batches,
                        int gpus_per_stage, double gpu_memory_bytes, const ComputeOptions& opt) {
  GpuType g;
  g.memory_bytes = gpu_memory_bytes;
  for (int S = 1; S <= llm.layers; ++S) {
    Job j;
    j.stages = S;
    j.micro_batch_size = micro_batch_size;
    j.micro_batches = micro_batches;
    j.gpus_per_stage = gpus_per_stage;
    const JobProfile p = make_profile(j, llm, opt);
    bool ok = true;
    for (int i = 0; i < S && ok; ++i) ok = p.stage_fits(i, g);
    if (ok) return S;
  }
  return 0;
}

double ideal_iteration_time(const JobProfile& p, const GpuType& gpu, const ComputeOptions& opt) {
  // Called for every generated job and every job a priority ordering sees: no allocation after
  // the first call on a thread.
  thread_local std::vector<double> fwd;
  thread_local PipelineScratch scratch;
  fwd.resize(static_cast<size_t>(p.stages));
  for (int i = 0; i < p.stages; ++i) fwd[static_cast<size_t>(i)] = forward_time(p, i, gpu, opt);
  return opt.schedule().compute_only_time(fwd, p.bwd_per_fwd, p.micro_batches, opt.optimizer_step_s, scratch);
}

std::vector<int> job_shapes(const std::vector<Job>& jobs, int& count) {
  std::map<std::array<int, 6>, int> index;
  std::vector<int> shape;
  shape.reserve(jobs.size());
  for (const Job& j : jobs) {
    const std::array<int, 6> key{j.model, j.stages, j.micro_batch_size, j.micro_batches, j.gpus_per_stage,
                                 j.data_parallel};
    shape.push_back(index.try_emplace(key, static_cast<int>(index.size())).first->second);
  }
  count = static_cast<int>(index.size());
  return shape;
}

FastestIdeal fastest_ideal_iteration(const JobProfile& p, const Topology& topo, const ComputeOptions& opt) {
  FastestIdeal best{std::numeric_limits<double>::infinity(), 0};
  for (int r = 0; r < topo.num_regions(); ++r) {
    if (topo.regions[static_cast<size_t>(r)].gpu_count <= 0) continue;
    const double t = ideal_iteration_time(p, topo.gpu_of(r), opt);
    if (t < best.iteration_s) best = {t, r};
  }
  return best;
}


}  // namespace geopipe
