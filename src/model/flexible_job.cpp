#include "model/flexible_job.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace geopipe {

std::vector<Job> data_parallel_variants(const Job& job, const LlmSpec& llm) {
  std::vector<Job> out;
  const int N = job.stages, m = job.micro_batches;
  for (int D = 1; D <= N && D <= m && D <= kMaxDataParallel; ++D) {
    if (N % D != 0 || m % D != 0 || N / D > llm.layers) continue;
    Job v = job;
    v.data_parallel = D;
    v.stages = N / D;
    v.micro_batches = m / D;
    out.push_back(v);
  }
  return out;
}

namespace {

/// Does every stage of `v` fit g GPUs of some region's type (in a region with at least g GPUs)?
bool stages_fit_some_region(const Job& v, const LlmSpec& llm, const Topology& topo, const ComputeOptions& compute) {
  const JobProfile p = make_profile(v, llm, compute);
  for (int i = 0; i < p.stages; ++i) {
    bool fits = false;
    for (int r = 0; r < topo.num_regions() && !fits; ++r)
      fits = topo.regions[static_cast<size_t>(r)].gpu_count >= p.gpus_per_stage && p.stage_fits(i, topo.gpu_of(r));
    if (!fits) return false;
  }
  return true;
}

}  // namespace

std::vector<Job> flexible_variants_that_fit(const Job& job, const LlmSpec& llm, const Topology& topo,
                                            const ComputeOptions& compute) {
  std::vector<Job> out = data_parallel_variants(job, llm);
  std::erase_if(out, [&](const Job& v) { return !stages_fit_some_region(v, llm, topo, compute); });
  return out;
}

int first_variant_that_fits(std::span<const Job> variants, const LlmSpec& llm, const Topology& topo,
                            const ComputeOptions& compute) {
  for (size_t k = 0; k < variants.size(); ++k)
    if (stages_fit_some_region(variants[k], llm, topo, compute)) return static_cast<int>(k);
  return -1;
}

Job reference_variant(const Job& job, const LlmSpec& llm, const Topology& topo, const ComputeOptions& compute) {
  if (!is_flexible(job)) return job;
  const std::vector<Job> all = data_parallel_variants(job, llm);
  if (all.empty())
    throw std::logic_error("reference_variant: flexible job of " + std::to_string(job.stages) + " slots has no variant");
  return all[static_cast<size_t>(std::max(0, first_variant_that_fits(all, llm, topo, compute)))];
}

}  // namespace geopipe
