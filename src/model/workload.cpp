#include "model/workload.h"

#include <algorithm>
#include <cmath>

#include "model/flexible_job.h"
#include "model/rng.h"
#include "model/units.h"
#include "util/named_table.h"

namespace geopipe {

int generated_stages(const ModelMixEntry& e, const LlmSpec& llm, const Topology& topo, const ComputeOptions& compute) {
  double max_mem = 0;
  for (const auto& r : topo.regions)
    if (r.gpu_count > 0) max_mem = std::max(max_mem, topo.gpu_types[static_cast<size_t>(r.gpu_type)].memory_bytes);
  const int s0 = min_feasible_stages(llm, e.micro_batch_size, e.micro_batches, e.gpus_per_stage, max_mem, compute);
  if (s0 == 0) return 0;
  const double s = std::ceil(s0 * e.stage_multiplier - 1e-9);
  // A flexible entry's S counts GPU slots, which its variants split into replicas: no cap at L.
  if (e.data_parallel == 0) return static_cast<int>(std::clamp(s, static_cast<double>(s0), static_cast<double>(kMaxFlexibleSlots)));
  return std::clamp(static_cast<int>(s), s0, llm.layers);
}

double reference_iteration_time_s(const Job& job, const LlmSpec& llm, const GpuType& reference,
                                  const ComputeOptions& compute) {
  return ideal_iteration_time(make_profile(job, llm, compute), reference, compute);
}

std::int64_t iterations_for_run_length(double run_length_s, double t_ref_s) {
  return std::max<std::int64_t>(1, std::llround(run_length_s / t_ref_s));
}

std::vector<Job> generate_workload(const WorkloadOptions& opt, const std::vector<LlmSpec>& llms,
                                   const Topology& topo, const GpuType& reference,
                                   const ComputeOptions& compute, std::uint64_t seed) {
  Rng rng(derive_seed(seed, "workload"));
  double total_w = 0;
  for (const auto& e : opt.mix) total_w += e.weight;
  const double rate_per_s = opt.arrival_rate_per_hour * opt.load_scale / units::kSecondsPerHour;

  // A job's stage count and reference iteration time depend only on its mix entry: computed
  // once per entry (the same calls, so the same bits), not once per job.
  struct EntryShape {
    bool known = false;
    int stages = 0;
    double t_ref_s = 0;
  };
  std::vector<EntryShape> shapes(opt.mix.size());
  std::vector<Job> jobs;
  jobs.reserve(static_cast<size_t>(opt.num_jobs));
  double t = 0;
  for (int n = 0; n < opt.num_jobs; ++n) {
    // Fixed number of draws per job, in a fixed order, so that changing one knob (say the
    // load) moves arrivals but keeps each job's model and length.
    const double gap = rng.exponential(rate_per_s);
    const double pick = rng.uniform() * total_w;
    const double dur_h = rng.bounded_pareto(opt.duration_pareto_alpha, opt.duration_min_h, opt.duration_max_h);
    t += gap;
    size_t k = 0;
    double acc = opt.mix[0].weight;
    while (k + 1 < opt.mix.size() && pick >= acc) acc += opt.mix[++k].weight;
    const ModelMixEntry& e = opt.mix[k];
    const LlmSpec& llm = llms[static_cast<size_t>(e.model)];
    Job j;
    j.id = n;
    j.arrival_s = t;
    j.model = e.model;
    j.micro_batch_size = e.micro_batch_size;
    j.micro_batches = e.micro_batches;
    j.gpus_per_stage = e.gpus_per_stage;
    j.data_parallel = e.data_parallel;
    j.slack_s = e.slack_s;
    EntryShape& es = shapes[k];
    if (!es.known) {
      es.stages = generated_stages(e, llm, topo, compute);
      j.stages = es.stages;
      j.iterations = 1;  // the profile T_ref is computed from is built with I = 1 (I does not enter T_ref)
      // a flexible job's run length is its reference variant's (model/flexible_job.h)
      es.t_ref_s = reference_iteration_time_s(reference_variant(j, llm, topo, compute), llm, reference, compute);
      es.known = true;
    }
    j.stages = es.stages;
    j.iterations = iterations_for_run_length(units::hours_to_s(dur_h), es.t_ref_s);
    jobs.push_back(j);
  }
  return jobs;
}

}  // namespace geopipe

#include "model/scenario.h"

namespace geopipe {

int Scenario::reference_gpu_index() const { return util::index_of_named(topology.gpu_types, workload.reference_gpu); }

std::vector<Job> Scenario::jobs_for_seed(std::uint64_t s) const {
  if (!trace_jobs.empty()) return trace_jobs;
  const int ref = reference_gpu_index();
  const GpuType& g = ref >= 0 ? topology.gpu_types[static_cast<size_t>(ref)] : *find_builtin_gpu("A100-80GB");
  return generate_workload(workload, llms, topology, g, compute, s);
}

}  // namespace geopipe
