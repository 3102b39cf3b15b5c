// The outcome of one scenario, as produced by a worker and stored by the writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/metrics.h"

namespace geopipe::sweep {

/// One job of one scenario (HDF5 /jobs, with --save-jobs).
struct JobRow {
  std::int32_t job_id = 0;
  std::string model;              ///< LLM name
  std::int32_t stages = 0;
  std::int32_t gpus_per_stage = 0;
  std::string regions;            ///< region names of the blocks in pipeline order, ';'-separated ("" if never started)
  double arrival_s = 0, start_s = -1, finish_s = -1;
  double iterations = 0, mean_iteration_s = 0;
  double energy_j = 0, cost_usd = 0;
};

struct ScenarioResult {
  std::int64_t id = -1;
  bool ok = false;
  ScenarioMetrics metrics;        ///< valid when ok
  std::string error;              ///< when !ok: what went wrong (what() of the exception)
  std::vector<JobRow> jobs;       ///< when ok and jobs are saved (--save-jobs)
};

}  // namespace geopipe::sweep
