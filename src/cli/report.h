// Output formats of `geopipe run`: a readable table, JSON, per-job CSV (the columns of
// sim/job_row.h after a scheduler column).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model/scenario.h"
#include "sim/engine.h"

namespace geopipe::cli {

struct RunOutcome {
  std::string scheduler;
  SimResult result;
};

void print_table(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs);
void print_json(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs);
void write_jobs_csv(std::ostream& os, const Scenario& sc, const std::vector<RunOutcome>& runs);

}  // namespace geopipe::cli
