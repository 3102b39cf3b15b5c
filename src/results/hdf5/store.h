// The HDF5 result file of a sweep (layout, crash safety and format versions in
// docs/hdf5-format.md).
//
//  /            attributes: format_version, geopipe_version, created_utc, sweep_name,
//               sweep_toml, base_toml, sweep_hash (16 hex digits), layout ("ranks=R threads=T"),
//               num_scenarios (in this file, i.e. this shard), total_scenarios (whole sweep),
//               shard ("K/N" or ""), schedulers (list), axes (list), complete (0/1),
//               model_version (sim/model_version.h of every result in the file), collection
//               (0/1: a merge of different sweeps)
//  /scenarios   one row per scenario of this file: id, point, seed, scheduler, key (content
//               key, sweepfile/scenario_key.h), point_key (the point's content digest), one column
//               per axis (float64 for numeric axes, fixed string otherwise). Written at creation.
//  /metrics     one row per finished scenario: id, status (1 = ok), then every metric of
//               sim/metrics.h (GEOPIPE_SCENARIO_METRICS) as float64, named as there.
//  /errors      id, message (fixed-length string of 4 KiB: the error line as geopipe prints it).
//  /jobs        (only with --save-jobs) scenario_id, then the per-job row of sim/job_row.h.
//  /parameters  path, value, column: every parameter of the resolved base (format 4).
//  /design      (sampling designs) point, then each factor's unit coordinate in [0, 1).
// All datasets are chunked, extendible and deflate-compressed; /metrics, /errors and /jobs
// are appended in batches by one writer.
//
// Crash safety: the file is written in SWMR mode (libver latest): every dataset exists before
// H5Fstart_swmr_write, rows are appended and H5Fflush(GLOBAL)ed periodically, so after a
// kill -9 the file stays readable with the rows of the last flush. Rows whose id/status are
// still the fill values (-1/0) are ignored when reading. Resume reads such a file with
// SWMR-read, writes a fresh file beside it with every valid row, and renames it over the old
// one (atomic), then appends. finalize() closes, reopens without SWMR, sorts /metrics,
// /errors and /jobs by id (so files are identical whatever the ranks x threads layout) and
// sets complete = 1; a file that already holds every row in that order is copied and marked
// complete instead: byte for byte if each chunk was written once, else table by table with
// each chunk as stored, which drops the space of rewritten chunks (finalized_as()).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sweepfile/loader.h"
#include "results/contents.h"
#include "results/merge_summary.h"
#include "plan/plan.h"
#include "results/result.h"
#include "results/result_sink.h"
#include "results/result_table.h"

namespace geopipe::sweep {

// StoreMeta (the root attributes) and StoreContents (what read() returns) are format-neutral:
// results/contents.h.

/// What ResultStore::extend() did.
struct Extension {
  std::vector<std::int64_t> reused;  ///< ids of the new sweep whose result the file held, ascending
  std::uint64_t retired = 0;         ///< results of the file that the new sweep no longer has
  std::string retired_path;          ///< the file they were moved to ("" if none)
};

class ResultStore final : public ResultSink {
 public:
  /// Whether create() may replace a file already at `path` (`sweep --force`).
  enum class Existing { kRefuse, kReplace };

  /// Creates `path`: it must not exist (an InputError otherwise) unless `existing` is kReplace,
  /// when the new file is renamed over the old one once it is complete (the old one stays
  /// untouched until then: a failure to write the new one, e.g. a full disk, keeps it). Writes
  /// the root attributes and the /scenarios rows of every id of `plan` that is in its shard
  /// (ascending), generated and written chunk by chunk (memory must not grow with the number of
  /// scenarios), creates the empty tables, starts SWMR.
  static std::unique_ptr<ResultStore> create(const std::string& path, const StoreMeta& meta,
                                             const config::SweepSpec& spec, const Plan& plan, bool save_jobs,
                                             Existing existing = Existing::kRefuse);

  /// create() with the writing on another thread, so that a sweep computes while its file is
  /// written and synced: the checks of create() and the temporary file's placeholder (a
  /// directory that cannot take the file) happen now and throw here; the file is then written
  /// and renamed to `path` in the background (until then `path` may not exist, or holds the file
  /// it replaces), while append()
  /// buffers rows. The first call that writes (flush(), finalize(), an append() that fills a
  /// batch, the destructor) waits for it and throws its failure (e.g. a full disk), after which
  /// the store is closed. `spec` must outlive the store (`plan` is copied).
  static std::unique_ptr<ResultStore> create_in_background(const std::string& path, const StoreMeta& meta,
                                                           const config::SweepSpec& spec, const Plan& plan,
                                                           bool save_jobs, Existing existing = Existing::kRefuse);

  /// Can one HDF5 file hold this sweep's tables and metadata? Builds what create() would (the
  /// tables, /design, /parameters, the root attributes; no /scenarios rows) in a file that lives
  /// in memory only, so that a sweep the writer could not store is refused when it is loaded
  /// (InputError, exit 2: e.g. too many parameter columns for one table's column list, HDF5's
  /// 64 KiB object header message) instead of failing when the output is created.
  static void check_fits(const StoreMeta& meta, const config::SweepSpec& spec, const Plan& plan, bool save_jobs);

  /// Reads an existing file, possibly left by a killed writer. Throws InputError(path, ...) if it
  /// is not a readable geopipe result file.
  static StoreContents read(const std::string& path);

  /// Rebuilds `path` from its valid rows (see file comment), keeps its metadata except
  /// `layout`, and returns a store appending to it. `contents` = read(path) done by the caller.
  /// /jobs text columns become at least `job_text` wide (the resuming sweep's SweepSpec::job_text).
  static std::unique_ptr<ResultStore> resume(const std::string& path, const StoreContents& contents,
                                             const std::string& layout, const JobTextBytes& job_text = {});

  /// Grows `path` into the result file of another sweep (`spec`, `plan`; metadata as create()
  /// writes it, from `meta`): every result whose content key (sweepfile/scenario_key.h) a scenario
  /// of the new sweep has is kept under that scenario's id; results the new sweep no longer has
  /// are moved to a new file "<path>.retired-N.h5" (a valid result file of the old sweep, N the
  /// first free number) before `path` is replaced. Each file appears by rename: a crash leaves
  /// the old file, or the old file and the retired one, or both new files. Refuses files of
  /// format < 3 or of another model version (the caller checks the shard). Fills `out`.
  static std::unique_ptr<ResultStore> extend(const std::string& path, const StoreMeta& meta,
                                             const config::SweepSpec& spec, const Plan& plan, Extension& out);

  ~ResultStore() override;  ///< flushes and closes (without finalize: the file stays resumable)

  void append(const ScenarioResult& r) override;  ///< buffered; written when a batch fills
  void flush() override;                          ///< writes buffered rows, H5Fflush(GLOBAL)
  void finalize() override;                       ///< flush, sort by id, complete = 1, close
  std::uint64_t rows_written() const;    ///< metrics + errors rows in the file incl. buffered
  /// How finalize() made the final file (docs/hdf5-format.md, "Finalize").
  enum class Finalized {
    kRebuilt,    ///< read back, sorted, compressed again: rows out of order, missing, or not this store's file
    kKept,       ///< copied byte for byte: created by this store, one row per scenario, appended in
                 ///< the rebuild's order, each chunk written once
    kCompacted,  ///< the same rows, but some chunk written twice (a flush inside it): tables copied
                 ///< with their chunks as stored, without the space of the earlier copies
  };
  /// kRebuilt until finalize() has run.
  Finalized finalized_as() const;
  /// With `on`, every flush() also fsyncs the file (H5Fflush only hands the rows to the OS).
  void set_durable(bool on);

 private:
  struct Impl;
  explicit ResultStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// An exclusive lock on "<path>.lock" (flock; the file holds the holder's pid and host) for
/// the one process that writes `path`. InputError if another live process holds it. Released
/// (and the lock file removed) on destruction; the kernel releases it if the process dies.
class OutputLock {
 public:
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

/// Joins result files of the same format and model version into `output` (must not exist),
/// by content (docs/hdf5-format.md, "Merge"). Files of one sweep (equal sweep_hash: shards,
/// copies) keep the sweep's ids and metadata; `complete` = 1 iff every scenario of the sweep
/// has a row. Files of different sweeps make a collection: one scenario per content key, ids
/// 0..n-1 in input order, points numbered by point_key, the union of the axis columns (NaN or
/// "" where an input has no such column). A scenario in several inputs is kept once; its
/// results must agree. InputError (nothing written) for a non-geopipe or damaged input, another
/// format or model version, one axis stored as number and text, or results that differ.
MergeSummary merge_stores(const std::vector<std::string>& inputs, const std::string& output);

/// /scenarios joined with /metrics on id (only scenarios with metrics rows), sorted by id.
/// Numeric columns: id, point, seed, numeric axes, every metric; text columns: scheduler and
/// text axes.
Table read_joined(const std::string& path);

/// The /design table and the attributes an analysis checks. InputError for a file without one
/// (a grid or points_file sweep, a collection).
DesignTable read_design(const std::string& path);

/// read_design() and `metric` of every scenario with a successful result, from one open of the
/// file. InputError as read_design(), or for a metric the file has no column of.
MetricByScenario read_metric_by_scenario(const std::string& path, const std::string& metric);

}  // namespace geopipe::sweep
