// The outputs of sweeps, by format: the only place that knows which formats exist. The runner
// opens its ResultSink here, `geopipe merge` joins files here and `geopipe summarize` reads
// them here. A format is a table entry in output.cpp, chosen by the ending of the file name (the
// table's first format for a path no entry claims); docs/design.md, "Add an output format", walks
// through adding one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sweepfile/loader.h"
#include "results/merge_summary.h"
#include "plan/plan.h"
#include "results/result_sink.h"
#include "results/result_table.h"

namespace geopipe::sweep {

/// What the command line asks of the output of one sweep run.
struct OutputRequest {
  std::string path;       ///< -o
  bool resume = false;    ///< continue the output if it exists (else create it)
  bool force = false;     ///< replace an existing output (not with resume)
  bool save_jobs = false; ///< store per-job rows
  bool durable = false;   ///< fsync the output after every flush
  std::string layout;     ///< "ranks=R threads=T" of this run
  std::string version;    ///< geopipe version of this build
};

struct OpenedOutput {
  std::unique_ptr<ResultSink> sink;
  std::vector<std::int64_t> done;  ///< scenario ids the output already holds (resume), sorted
  bool resumed = false;            ///< an existing output is continued
  std::uint64_t retired = 0;       ///< results of the output that the sweep no longer has
  std::string retired_path;        ///< where they were moved ("" if none)
};

/// Creates the output of `spec`'s scenarios in `plan` (this shard), or resumes it. The rules
/// (docs/sweep-runner.md, "Reliability"): an existing output is refused unless resume or force;
/// resume continues an output of the same sweep, and grows one of a changed sweep (results
/// reused by content key, those no longer in the sweep moved aside: ResultStore::extend);
/// it refuses another shard. Throws InputError;
/// nothing is created or changed then. One writer per output: the sink holds an exclusive
/// lock on "OUT.lock" (flock, released when the sink is destroyed or the process dies) taken
/// before anything is read, removed or created; a second writer gets an InputError naming the
/// holder (docs/hdf5-format.md, "One writer per file").
OpenedOutput open_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan);

/// Can the output format of `request.path` hold this sweep? InputError if not (exit 2), before
/// anything runs or is written; called when the sweep is loaded, --dry-run included.
void check_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan);

/// A result file as columns (for `geopipe summarize`). Throws InputError if unreadable.
Table read_results(const std::string& path);

/// Joins result files by content (shards of one sweep, or different sweeps into a collection)
/// into `output`, which must not exist (merge_stores, results/hdf5/store.h).
MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace geopipe::sweep
