// Replay of a job trace from CSV text (the config layer reads the file: the core reads no
// files).
//
// Format: a header line naming the columns (any order), then one job per line:
//   arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations[,data_parallel][,slack_s]
// `stages` = 0 means "smallest feasible". `data_parallel` (D, default 1) = 0 lets the scheduler
// choose D: `stages` is then the job's GPU count in slots of g GPUs (model/flexible_job.h) and
// must have a variant. `slack_s` (default 0, 0 .. kMaxSlackS) is how long the job may be deferred
// past its arrival (Job::slack_s). Blank lines and lines starting with '#' are
// skipped. Jobs get ids in file order after a stable sort by arrival.
#pragma once

#include <string>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"

namespace geopipe {

/// Parses `text` (named `file` in messages). Throws InputError "file:line:col: ..." on any
/// malformed field, unknown model or out-of-range value. `compute` decides the stage count of
/// rows with `stages = 0` (its pipeline schedule's memory).
std::vector<Job> parse_trace_csv(const std::string& text, const std::string& file,
                                 const std::vector<LlmSpec>& llms, const Topology& topo, const ComputeOptions& compute);

}  // namespace geopipe
