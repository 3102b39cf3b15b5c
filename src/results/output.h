// The outputs of sweeps, by format: the only place that knows which formats exist. The runner
// opens its ResultSink here, `geopipe merge` joins files here, and `geopipe summarize` and
// `geopipe analyze` read them here (report/ includes no header of a format). A format is an
// OutputFormat, chosen by the ending of the file name (the table's first format for a path no
// entry claims): the shipped ones are the table in output.cpp; register_output_format() adds
// one at run time (the tests add a toy format that way, tests/sweep/test_output_formats.cpp).
// docs/design.md, "Add an output format", walks
// through adding one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sweepfile/loader.h"
#include "results/contents.h"
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
/// holder (docs/hdf5-format.md, "One writer per file"). A new output's file may be written in
/// the background (HDF5: ResultStore::create_in_background): an error writing it is then thrown
/// by the sink's first flush; `spec` must outlive the sink.
OpenedOutput open_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan);

/// Can the output format of `request.path` hold this sweep? InputError if not (exit 2), before
/// anything runs or is written; called when the sweep is loaded, --dry-run included.
void check_output(const OutputRequest& request, const config::SweepSpec& spec, const Plan& plan);

/// What the result file `path` says about itself: the sweep's metadata and the ids with a
/// result (for `geopipe summarize`). Throws InputError if it is not a readable result file.
StoreContents read_contents(const std::string& path);

/// A result file as columns (for `geopipe summarize`). Throws InputError if unreadable.
Table read_results(const std::string& path);

/// `metric` of every scenario with a result, with the sampling design of the file's sweep (for
/// `geopipe analyze`). Throws InputError if unreadable, for a file without a design table (a
/// grid or points_file sweep, a collection) or for a metric the file has no column of.
MetricByScenario read_metric(const std::string& path, const std::string& metric);

/// Joins result files by content (shards of one sweep, or different sweeps into a collection)
/// into `output`, which must not exist (merge_stores, results/hdf5/store.h).
MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output);

/// One output format: what the runner, merge, summarize and analyze need of it. Every function
/// throws InputError for what the user must fix (exit 2), as the functions above that call it.
struct OutputFormat {
  std::string name;                  ///< e.g. "hdf5", in messages
  /// File name endings that select this format (e.g. ".h5"); a path that ends with none of any
  /// format's goes to the first format of the table (HDF5).
  std::vector<std::string> endings;
  OpenedOutput (*open)(const OutputRequest&, const config::SweepSpec&, const Plan&);   ///< open_output
  void (*check)(const OutputRequest&, const config::SweepSpec&, const Plan&);          ///< check_output
  MergeSummary (*merge)(const std::vector<std::string>& inputs, const std::string& output);  ///< merge_results (inputs of this format)
  StoreContents (*read_contents)(const std::string& path);                            ///< read_contents
  Table (*read_results)(const std::string& path);                                      ///< read_results
  MetricByScenario (*read_metric)(const std::string& path, const std::string& metric); ///< read_metric
};

/// Adds `format` to the table of formats, after the shipped ones: the functions above then send
/// the paths ending with one of its endings to it. The table is extensible at run time (rather
/// than a compile-time list) so that a test can prove the seam with a format of its own, and a
/// program that embeds geopipe can add one without editing output.cpp. Not thread-safe: call it
/// before any output is opened or read (e.g. at the start of main or of a test). Throws
/// std::invalid_argument (a programming error: nothing is added) for a format without a name,
/// without endings (it could never be chosen), with a null function, with the name of a format
/// of the table, or with an ending that ends with, or is the end of, an ending of the table (the
/// choice of format would depend on the order).
void register_output_format(OutputFormat format);

}  // namespace geopipe::sweep
