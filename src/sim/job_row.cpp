#include "sim/job_row.h"

#include <algorithm>

#include "model/workload.h"

namespace geopipe {

JobTextBytes JobTextBytes::max_with(const JobTextBytes& o) const {
  return {std::max(model, o.model), std::max(regions, o.regions), std::max(layers, o.layers)};
}

JobTextBytes job_text_bytes(const Scenario& sc) {
  JobTextBytes b;
  for (const LlmSpec& m : sc.llms) b.model = std::max(b.model, m.name.size());
  std::size_t name = 0;
  for (const Region& r : sc.topology.regions) name = std::max(name, r.name.size());
  std::size_t stages = 0, placed = 0;  // S_max and N_max = the most D·S
  // A flexible job (D = 0, model/flexible_job.h) of N slots runs D·S = N stages, at most
  // min(N, L) of them in one replica.
  auto take = [&](int s, int d, int model) {
    const int per_replica = d == 0 ? std::min(s, sc.llms[static_cast<std::size_t>(model)].layers) : s;
    stages = std::max(stages, static_cast<std::size_t>(std::max(per_replica, 0)));
    placed = std::max(placed, static_cast<std::size_t>(std::max(s, 0)) * static_cast<std::size_t>(std::max(d, 1)));
  };
  for (const Job& j : sc.trace_jobs) take(j.stages, j.data_parallel, j.model);
  if (sc.trace_jobs.empty())
    for (const ModelMixEntry& e : sc.workload.mix) {
      if (e.model < 0 || static_cast<std::size_t>(e.model) >= sc.llms.size()) continue;
      take(generated_stages(e, sc.llms[static_cast<std::size_t>(e.model)], sc.topology, sc.compute), e.data_parallel,
           e.model);
    }
  if (placed > 0) b.regions = std::max(b.regions, placed * (name + 1) - 1);
  std::size_t digits = 1;
  for (const LlmSpec& m : sc.llms) digits = std::max(digits, std::to_string(std::max(m.layers, 0)).size());
  if (stages > 0) b.layers = std::max(b.layers, stages * (digits + 1) - 1);
  return b;
}

std::string regions_text(const Scenario& sc, const std::vector<int>& stage_region, int stages) {
  const std::size_t S = stages > 0 ? static_cast<std::size_t>(stages) : stage_region.size();
  std::string s;
  for (std::size_t i = 0; i < stage_region.size(); ++i) {
    const bool first_of_replica = i % S == 0;
    if (first_of_replica && i > 0) s += '|';
    if (first_of_replica || stage_region[i] != stage_region[i - 1]) {
      if (!first_of_replica) s += ';';
      s += sc.topology.regions[static_cast<std::size_t>(stage_region[i])].name;
    }
  }
  return s;
}

std::string layers_text(const std::vector<int>& layers) {
  std::string s;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (i > 0) s += ';';
    s += std::to_string(layers[i]);
  }
  return s;
}

JobRow job_row(const Scenario& sc, const JobRecord& rec) {
  JobRow row;
  row.job_id = rec.id;
  row.model = sc.llms[static_cast<std::size_t>(rec.model)].name;
  row.stages = rec.stages;
  row.gpus_per_stage = rec.gpus_per_stage;
  row.data_parallel = rec.data_parallel;
  row.regions = regions_text(sc, rec.stage_region, rec.stages);
  row.layers = layers_text(rec.layers);
  row.arrival_s = rec.arrival_s;
  row.start_s = rec.start_s;
  row.finish_s = rec.finish_s;
  row.iterations = rec.iterations;
  row.mean_iteration_s = rec.mean_iteration_s;
  row.first_iteration_s = rec.first_iteration_s;
  row.energy_j = rec.energy_j;
  row.cost_usd = rec.cost_usd();
  row.electricity_cost_usd = rec.electricity_cost_usd;
  row.egress_cost_usd = rec.egress_cost_usd;
  row.carbon_g = rec.carbon_g;
  row.cross_region_bytes = rec.cross_region_bytes;
  row.sync_bytes = rec.sync_bytes;
  row.failures = rec.failures;
  row.preemptions = rec.preemptions;
  row.restarts = rec.restarts;
  row.lost_gpu_hours = rec.lost_gpu_hours;
  row.checkpoint_gpu_hours = rec.checkpoint_gpu_hours;
  row.isolated_jct_s = rec.isolated_jct_s;
  row.ftf_rho = rec.ftf_rho;
  return row;
}

}  // namespace geopipe
