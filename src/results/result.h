// The outcome of one scenario, as produced by a worker and stored by the writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/job_row.h"
#include "sim/metrics.h"

namespace geopipe::sweep {

struct ScenarioResult {
  std::int64_t id = -1;
  bool ok = false;
  ScenarioMetrics metrics;        ///< valid when ok
  std::string error;              ///< when !ok: what went wrong (what() of the exception)
  std::vector<JobRow> jobs;       ///< when ok and jobs are saved (--save-jobs): HDF5 /jobs rows
};

}  // namespace geopipe::sweep
