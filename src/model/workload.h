// Synthetic multi-tenant workloads (docs/model.md, "Jobs"): Poisson arrivals, a model mix, stage
// counts from memory feasibility, heavy-tailed run lengths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"

namespace geopipe {

/// One entry of the model mix (scenario [[workload.mix]]).
struct ModelMixEntry {
  int model = 0;                 ///< index into the scenario's LLM catalogue
  double weight = 1.0;           ///< relative frequency (> 0)
  int gpus_per_stage = 1;        ///< g
  int micro_batch_size = 1;      ///< b
  int micro_batches = 16;        ///< m
  double stage_multiplier = 1.0; ///< S = ceil(min_feasible_S · multiplier), capped at L
  int data_parallel = 1;         ///< D, replicas of each job's pipeline (Job::data_parallel)
  double slack_s = 0;            ///< deferral each job allows past its arrival, s (Job::slack_s)
};

struct WorkloadOptions {
  int num_jobs = 200;                   ///< jobs to generate
  double arrival_rate_per_hour = 4.0;   ///< Poisson rate before load_scale
  double load_scale = 1.0;              ///< multiplies the arrival rate (sweep knob)
  double duration_min_h = 0.5;          ///< bounded-Pareto run length on the reference GPU: min
  double duration_max_h = 72.0;         ///< ... max
  double duration_pareto_alpha = 1.1;   ///< ... shape (smaller = heavier tail)
  std::string reference_gpu = "A100-80GB";  ///< GPU type that run lengths are measured on
  std::vector<ModelMixEntry> mix;       ///< non-empty unless a trace is replayed
};

/// Generates `opt.num_jobs` jobs, sorted by arrival, ids 0..n-1. Deterministic in `seed`.
/// Stage count: the smallest S whose stages fit the largest GPU memory in `topo`, times the
/// entry's multiplier. Iterations: I = max(1, round(D / T_ref)) with D drawn from the bounded
/// Pareto and T_ref the compute-only iteration time on `reference` (so D is the run length a
/// job would have alone on that GPU type with free communication).
std::vector<Job> generate_workload(const WorkloadOptions& opt, const std::vector<LlmSpec>& llms,
                                   const Topology& topo, const GpuType& reference,
                                   const ComputeOptions& compute, std::uint64_t seed);

/// T_ref: the compute-only iteration time of `job` (its stages, micro-batches, g) with every
/// stage on `reference` under `compute` (ideal_iteration_time of the even-split profile), s.
/// Requires 1 <= job.stages <= llm.layers. The one definition of the reference iteration time
/// that the generator and the trace importer (traceimport/trace_import.h) turn run lengths into
/// iterations with.
double reference_iteration_time_s(const Job& job, const LlmSpec& llm, const GpuType& reference,
                                  const ComputeOptions& compute);

/// Iterations of a run of `run_length_s` seconds at `t_ref_s` seconds per iteration:
/// I = max(1, round(run_length_s / t_ref_s)) (half away from zero). Requires
/// run_length_s / t_ref_s <= kMaxJobIterations (callers check: docs/limits.md).
std::int64_t iterations_for_run_length(double run_length_s, double t_ref_s);

/// Stage count the generator uses for a mix entry on this topology under `compute`'s pipeline
/// schedule (0 if the model fits no GPU): ceil(S0 · stage_multiplier) for the least feasible S0,
/// capped at the model's layers, or, for a flexible entry (data_parallel = 0), its GPU slots
/// (the same ceil, capped at kMaxFlexibleSlots, not at the layers: model/flexible_job.h).
int generated_stages(const ModelMixEntry& e, const LlmSpec& llm, const Topology& topo, const ComputeOptions& compute);

}  // namespace geopipe
