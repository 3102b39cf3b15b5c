#include "sim/job_row.h"

namespace geopipe {

std::string regions_text(const Scenario& sc, const std::vector<int>& stage_region) {
  std::string s;
  for (std::size_t i = 0; i < stage_region.size(); ++i)
    if (i == 0 || stage_region[i] != stage_region[i - 1]) {
      if (!s.empty()) s += ';';
      s += sc.topology.regions[static_cast<std::size_t>(stage_region[i])].name;
    }
  return s;
}

JobRow job_row(const Scenario& sc, const JobRecord& rec) {
  JobRow row;
  row.job_id = rec.id;
  row.model = sc.llms[static_cast<std::size_t>(rec.model)].name;
  row.stages = rec.stages;
  row.gpus_per_stage = rec.gpus_per_stage;
  row.regions = regions_text(sc, rec.stage_region);
  row.arrival_s = rec.arrival_s;
  row.start_s = rec.start_s;
  row.finish_s = rec.finish_s;
  row.iterations = rec.iterations;
  row.mean_iteration_s = rec.mean_iteration_s;
  row.first_iteration_s = rec.first_iteration_s;
  row.energy_j = rec.energy_j;
  row.cost_usd = rec.cost_usd;
  row.carbon_g = rec.carbon_g;
  row.cross_region_bytes = rec.cross_region_bytes;
  return row;
}

}  // namespace geopipe
