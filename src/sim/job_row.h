// The per-job output row: one definition of its columns, written by `geopipe run --jobs-csv`
// (after a `scheduler` column), stored in HDF5 /jobs (after a `scenario_id` column) and sent
// in MPI result messages. Adding a column is one line in GEOPIPE_JOB_COLUMNS plus its value in
// job_row(); docs/hdf5-format.md lists them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/scenario.h"
#include "sim/job_record.h"

namespace geopipe {

// X(type, name, unit, doc) — in column order. Types: std::int32_t, std::string, double.
#define GEOPIPE_JOB_COLUMNS(X)                                                                   \
  X(std::int32_t, job_id, "", "index of the job in the scenario's job list (arrival order)")     \
  X(std::string, model, "", "LLM name")                                                          \
  X(std::int32_t, stages, "", "pipeline stages S")                                               \
  X(std::int32_t, gpus_per_stage, "", "tensor-parallel GPUs per stage g")                        \
  X(std::int32_t, data_parallel, "", "data-parallel replicas D of the pipeline")                 \
  X(std::string, regions, "", "regions of the blocks in pipeline order, ';'-separated")          \
  X(std::string, layers, "", "layers of each stage in pipeline order, ';'-separated")            \
  X(double, arrival_s, "s", "submission time")                                                   \
  X(double, start_s, "s", "start time, -1 if never started")                                     \
  X(double, finish_s, "s", "completion time, -1 if not finished")                                \
  X(double, iterations, "", "training iterations")                                               \
  X(double, mean_iteration_s, "s", "(finish - start) / iterations")                              \
  X(double, first_iteration_s, "s", "iteration time at start")                                   \
  X(double, energy_j, "J", "facility energy")                                                    \
  X(double, cost_usd, "USD", "electricity + egress cost")                                        \
  X(double, electricity_cost_usd, "USD", "electricity cost")                                     \
  X(double, egress_cost_usd, "USD", "inter-region traffic cost")                                 \
  X(double, carbon_g, "g", "CO2 (regions with a known intensity)")                               \
  X(double, cross_region_bytes, "bytes", "bytes its pipelines' hops sent between regions")      \
  X(double, sync_bytes, "bytes", "bytes its synchronisation sent between regions")             \
  X(std::int32_t, failures, "", "times it failed")                                               \
  X(std::int32_t, preemptions, "", "times spot capacity or the scheduler preempted it")          \
  X(std::int32_t, restarts, "", "times it started again after a failure or preemption")          \
  X(double, lost_gpu_hours, "h", "GPU-hours of work its failures threw away")                    \
  X(double, checkpoint_gpu_hours, "h", "GPU-hours its checkpoints held its GPUs")                \
  X(double, isolated_jct_s, "s", "JCT on a fair share of the cluster, T_iso (0 if not finished)") \
  X(double, ftf_rho, "", "finish-time fairness JCT / isolated_jct_s (0 if not finished)")

struct JobRow {
#define GEOPIPE_JOB_MEMBER(type, name, unit, doc) type name{};
  GEOPIPE_JOB_COLUMNS(GEOPIPE_JOB_MEMBER)
#undef GEOPIPE_JOB_MEMBER
};

/// Calls f(const char* column_name, member&) for every column of `row`, in column order
/// (`R` is JobRow or const JobRow).
template <class R, class F>
void for_each_job_column(R& row, F&& f) {
#define GEOPIPE_JOB_VISIT(type, name, unit, doc) f(#name, row.name);
  GEOPIPE_JOB_COLUMNS(GEOPIPE_JOB_VISIT)
#undef GEOPIPE_JOB_VISIT
}

/// Names of the regions a job's blocks run in, in pipeline order, joined by ';' ("" if the
/// placement is empty). A placement of D > 1 replicas of `stages` stages each (size D·S,
/// replica by replica: docs/model.md, "Data parallelism") gives each replica's text, joined by
/// '|' ("a;b|c;d"); `stages` = 0 or the placement's size: one pipeline.
std::string regions_text(const Scenario& sc, const std::vector<int>& stage_region, int stages = 0);
/// Layer counts joined by ';' ("9;9;7"; "" if empty).
std::string layers_text(const std::vector<int>& layers);

/// The most bytes each text column of a JobRow can take in any run of a scenario (HDF5 /jobs
/// sizes its text columns with it, so no text is ever cut): `model`, the longest LLM name of
/// the catalogue; `regions`, N_max names of the longest region name plus N_max - 1 separators,
/// N_max the most stages D·S any job of the scenario places (the trace's, or each mix entry's
/// generated_stages times its replicas; stage counts do not depend on the seed); `layers`,
/// S_max counts of the
/// digits of the most layers of any model plus S_max - 1 separators. At least 1 each. A new
/// text column of GEOPIPE_JOB_COLUMNS needs its bound here.
struct JobTextBytes {
  std::size_t model = 1;
  std::size_t regions = 1;
  std::size_t layers = 1;

  /// The larger of each bound.
  JobTextBytes max_with(const JobTextBytes& o) const;
  bool operator==(const JobTextBytes&) const = default;
};
JobTextBytes job_text_bytes(const Scenario& sc);

/// The output row of one job record of a run of `sc`.
JobRow job_row(const Scenario& sc, const JobRecord& rec);

}  // namespace geopipe
