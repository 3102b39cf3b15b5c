#include "model/job.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <map>

namespace geopipe {

JobProfile make_profile(const Job& job, const LlmSpec& llm, const ComputeOptions& opt) {
  assert(job.stages >= 1 && job.stages <= llm.layers);
  JobProfile p;
  const int S = job.stages;
  p.stages = S;
  p.micro_batches = job.micro_batches;
  p.gpus_per_stage = job.gpus_per_stage;
  p.iterations = static_cast<double>(job.iterations);
  const double b = job.micro_batch_size, s = llm.seq_len, h = llm.hidden, V = llm.vocab;
  const double bytes = llm.bytes_per_elem;
  const PipelineSchedule& schedule = opt.schedule();
  p.activation_bytes = b * s * h * bytes;
  const double flops_per_layer = 24.0 * b * s * h * h * (1.0 + s / (6.0 * h));
  const double head_flops = 2.0 * b * s * h * V;
  p.layers.resize(static_cast<size_t>(S));
  p.fwd_flops.resize(static_cast<size_t>(S));
  p.params.resize(static_cast<size_t>(S));
  p.memory_bytes.resize(static_cast<size_t>(S));
  const int base = llm.layers / S, extra = llm.layers % S;
  for (int i = 0; i < S; ++i) {
    const auto k = static_cast<size_t>(i);
    const int l = base + (i < extra ? 1 : 0);
    p.layers[k] = l;
    p.fwd_flops[k] = l * flops_per_layer + (i == S - 1 ? head_flops : 0.0);
    p.params[k] = l * llm.params_per_layer() + (i == 0 ? llm.embedding_params() : 0.0) +
                  (i == S - 1 ? llm.embedding_params() : 0.0);
    const double stashed = schedule.stashed_micro_batches(i, S, job.micro_batches);
    p.memory_bytes[k] = 16.0 * p.params[k] + stashed * b * s * h * l * bytes;
  }
  return p;
}

double stage_speed(const GpuType& gpu, int gpus_per_stage, const ComputeOptions& opt) {
  const double tp = gpus_per_stage > 1 ? opt.tp_efficiency : 1.0;
  return gpus_per_stage * gpu.peak_flops * opt.mfu * tp;
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
  std::vector<double> fwd(static_cast<size_t>(p.stages));
  for (int i = 0; i < p.stages; ++i) fwd[static_cast<size_t>(i)] = forward_time(p, i, gpu, opt);
  PipelineScratch scratch;
  return opt.schedule().compute_only_time(fwd, p.micro_batches, opt.optimizer_step_s, scratch);
}

std::vector<int> job_shapes(const std::vector<Job>& jobs, int& count) {
  std::map<std::array<int, 5>, int> index;
  std::vector<int> shape;
  shape.reserve(jobs.size());
  for (const Job& j : jobs) {
    const std::array<int, 5> key{j.model, j.stages, j.micro_batch_size, j.micro_batches, j.gpus_per_stage};
    shape.push_back(index.try_emplace(key, static_cast<int>(index.size())).first->second);
  }
  count = static_cast<int>(index.size());
  return shape;
}

}  // namespace geopipe
