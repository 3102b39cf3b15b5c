// Whole result files of the store (results/hdf5/store.h): metadata, crash-safe production and
// opening for reading. Internal to src/results/hdf5: only the store's own files include it.
//
// Owns: the root attributes (StoreMeta <-> file; format_version), the way a file reaches its
// final path (written at "<path>.<what>-tmp", fsync'ed and renamed over the destination:
// produce()), the Writer (an open file being written with its tables and types; open_new
// creates the tables, finish_new writes the metadata and starts SWMR), and opening an
// existing file for reading (open_for_read copes with a killed writer's status flags;
// open_input opens and checks every table for copying). Single tables are in results/hdf5/table.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>
#include <string>

#include "results/hdf5/error.h"
#include "results/hdf5/table.h"
#include "results/hdf5/store.h"

namespace geopipe::sweep::h5 {

/// Version of the layout this build writes (docs/hdf5-format.md, "Format versions"). Files of
/// older versions can be read (summarize, Python) but not resumed or merged.
/// 1: the first release; 2: /metrics gains sched_truncated_searches, /jobs gains
/// first_iteration_s, carbon_g and cross_region_bytes; 3: /scenarios.key, model_version, no
/// cut texts; 4: /scenarios.point_key, attribute collection; 5: egress cost and partition
/// columns; 6: /metrics.value (a test function's value, until then stored as avg_jct_s),
/// attribute evaluator; 7: data parallelism (/metrics sync_bytes, sync_fraction; /jobs
/// data_parallel, sync_bytes); 8: failures and checkpoints (/metrics failures, preemptions,
/// restarts, lost_gpu_hours, checkpoint_gpu_hours, goodput; /jobs failures, preemptions,
/// restarts, lost_gpu_hours, checkpoint_gpu_hours); 9: fairness (/metrics p99_queue_delay_s,
/// avg_ftf_rho, max_ftf_rho, unfair_fraction, jain_fairness; /jobs isolated_jct_s, ftf_rho); 10:
/// the lower bound on the mean JCT (/metrics jct_lower_bound_s).
constexpr std::int64_t kFormatVersion = 10;

// Limits on what a file read by geopipe may claim (docs/hdf5-format.md, "Damaged files and
// limits"), checked before anything is allocated for it.
/// Seconds to read the root attributes (milliseconds on any valid file; see Deadline).
constexpr unsigned kAttributeReadSeconds = 5;
/// Scenarios of a sweep (the sweep loader's limit, sweepfile/parse.h kMaxScenarios).
constexpr std::uint64_t kMaxTotalScenarios = std::uint64_t{1} << 40;
/// Entries of a list attribute (schedulers, axes).
constexpr std::size_t kMaxListEntries = 1u << 20;
/// Bytes of one fixed-length string (a column of a table or an entry of a list attribute).
constexpr std::size_t kMaxStringBytes = 1u << 16;
/// Columns of a table.
constexpr std::size_t kMaxColumns = 4096;
/// A table's rows x row size may exceed the file size at most this many times (deflate
/// compresses at most ~1032:1) plus kTableSlackBytes (fill rows of a writer killed between
/// extending a table and writing it occupy no space).
constexpr std::uint64_t kMaxInflation = 1100;
constexpr std::uint64_t kTableSlackBytes = std::uint64_t{64} << 20;

// ---------------------------------------------------------------------------------------------
// Metadata (root attributes)
// ---------------------------------------------------------------------------------------------

/// Writes every StoreMeta field as a root attribute; m.format_version must be 3..kFormatVersion
/// (a file of retired rows keeps its source's version), `collection` only from version 4.
void write_meta(hid_t file, const StoreMeta& m, const std::string& path);
/// Reads the root attributes; InputError if the file is not a geopipe result file or was
/// written by a newer format_version.
StoreMeta read_meta(hid_t file, const std::string& path);

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// An open result file being written.
struct Writer {
  Hid file;  // declared first: destroyed last
  Hid scen, metrics, errors, jobs;
  Hid stype, mtype, etype, jtype;
  hsize_t s_rows = 0, m_rows = 0, e_rows = 0, j_rows = 0;
  Layout jlayout;  ///< the layout of /jobs (no fields if the file has none)

  /// Closes the datasets, then the file, reporting a failure of the final write.
  void close(const std::string& path);
  /// After a failed write (a full disk, a file-size limit): forgets every handle without closing
  /// it, so that HDF5 writes nothing more to the file, which stays as its last complete flush
  /// left it, as after a crash of the writer (SWMR: readable and resumable).
  void abandon();
};

/// Creates `fpath` (truncating the placeholder) with empty tables, /jobs only if `jobs` gives
/// its text widths. `shown` names it in messages. With `in_memory` the file lives in memory only
/// (HDF5's core driver, nothing written to disk): ResultStore::check_fits() builds the same
/// structure there to learn whether HDF5 can hold it.
Writer open_new(const std::string& fpath, const std::string& shown, const Layout& scen_layout,
                std::uint64_t scen_rows, const std::optional<JobTextBytes>& jobs, bool in_memory = false);

/// Writes the root attributes; with `swmr`, switches to SWMR-write mode (nothing can be created
/// or changed in the file's structure afterwards). Flushes.
void finish_new(Writer& w, const StoreMeta& meta, bool swmr, const std::string& shown);

/// Copies the closed file `from` byte for byte to `tmp` (its placeholder) and sets the copy's
/// `complete` attribute to 1; returns the copy open. ResultStore::finalize() commits it in place
/// of a rebuild when the file already holds exactly the rows a rebuild would write, in its
/// order (docs/hdf5-format.md, "Finalize"). `shown` names the output in messages.
Writer copy_marked_complete(const std::string& from, const std::string& tmp, const std::string& shown);

/// Writes the closed file `from` anew at `tmp` (its placeholder) with `complete` = 1: its root
/// attributes, and each table with the same type, extent and creation properties, its chunks
/// copied as stored (compressed bytes, no inflate or deflate), so without the space that chunks
/// rewritten while appending left behind; returns the new file open. ResultStore::finalize()
/// commits it in place of a rebuild when the file holds exactly the rows a rebuild would write,
/// in its order, but some chunk was written more than once (a flush inside a chunk).
Writer compact_marked_complete(const std::string& from, const std::string& tmp, const std::string& shown);

struct Input;

/// One row of /parameters (format 4): a parameter of the resolved base of the file's points and
/// where its value is (docs/hdf5-format.md, "/parameters").
struct ParamRow {
  std::string path;    ///< canonical path
  std::string value;   ///< canonical value; "" if `column` holds it
  std::string column;  ///< the /scenarios column holding the value of every row, or ""
};
/// The layout of /parameters for `rows` (text columns as wide as the longest value, >= 1).
Layout parameters_layout(const std::vector<ParamRow>& rows);
/// Creates /parameters in `w` (before finish_new) holding `rows`.
void write_parameters(Writer& w, const std::vector<ParamRow>& rows, const std::string& shown);

/// Creates /design in `w` (before finish_new): column `point`, then one float64 column per
/// factor; `unit` row-major (SweepSample::unit, sweepfile/point_source.h). Nothing if
/// `factors` is empty.
void write_design(Writer& w, const std::vector<std::string>& factors, const std::vector<double>& unit,
                  const std::string& shown);
/// Copies /design of `from` (if it has one) into `w` block by block.
void copy_design(const Input& from, Writer& w, const std::string& shown);

/// Builds a new file at `tmp` with build(tmp) -> Writer, then renames it over `path`. Closes it
/// first unless `keep_open`. On any failure removes tmp and rethrows: `path` is untouched.
/// = prepare_tmp, then produce_prepared.
Writer produce(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open,
               const std::function<Writer(const std::string&)>& build);
/// Makes sure `tmp` can be created (InputError naming `path` for a missing or unwritable
/// directory), removing a stale one left by a crash; leaves an empty placeholder there.
void prepare_tmp(const std::string& tmp, const std::string& path);
/// produce() after prepare_tmp(tmp, path); also removes `tmp` on a failure.
Writer produce_prepared(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open,
                        const std::function<Writer(const std::string&)>& build);

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Attempts to read a metadata block whose checksum fails, when reading in SWMR mode (HDF5's
/// default, 100, with its doubling back-off sleeps, never ends on a damaged file; 20 attempts
/// sleep at most ~1 ms per block).
constexpr unsigned kMetadataReadAttempts = 20;

/// Opens an existing file for reading, also one whose writer was killed (see results/hdf5/file.cpp).
/// Bounded in time on a damaged file.
Hid open_for_read(const std::string& path);

/// Opens /name; a missing table is not_geopipe if `required`, else an invalid Hid.
Hid open_table(hid_t file, const char* name, const std::string& path, bool required = true);

/// The scenario ids of a file's /scenarios, ascending; position = row. Dense files (ids
/// 0..n-1: unsharded files, complete merges) store nothing per id, others 8 bytes per id, so
/// the bookkeeping of a reader never depends on the total_scenarios attribute.
class IdIndex {
 public:
  static constexpr std::size_t npos = ~std::size_t{0};
  /// Appends `id`, which must be greater than the last one.
  void push(std::int64_t id);
  std::size_t size() const { return n_; }
  /// The position of `id`, npos if it is not in the index.
  std::size_t pos(std::int64_t id) const;
  std::int64_t id_at(std::size_t pos) const { return dense_ ? static_cast<std::int64_t>(pos) : ids_[pos]; }

 private:
  bool dense_ = true;
  std::size_t n_ = 0;
  std::vector<std::int64_t> ids_;  ///< only when not dense
};

/// An existing result file, opened and checked (results/hdf5/validate.cpp), for reading its rows.
struct Input {
  std::string path;
  Hid file;
  StoreMeta meta;
  Layout scen_layout;
  Layout jobs_layout;                   ///< no fields if the file has no /jobs
  /// The format whose columns /metrics and /jobs have (results/hdf5/table.h columns_of_format):
  /// kFormatVersion, or an older one whose rows readers complete with fill_columns_since.
  int metrics_format = static_cast<int>(kFormatVersion);
  int jobs_format = static_cast<int>(kFormatVersion);
  /// What produced the rows (meta.evaluator), for fill_columns_since.
  MetricSource evaluator() const {
    return meta.evaluator == metric_source_name(MetricSource::kTestFunction) ? MetricSource::kTestFunction
                                                                              : MetricSource::kSimulation;
  }
  Hid scen, metrics, errors, jobs;
  hsize_t n_scen = 0, n_metrics = 0, n_errors = 0, n_jobs = 0;
  std::vector<ParamRow> parameters;     ///< /parameters (format 4; read whole, it is small)
  Hid design;                           ///< /design, if the file has one
  Layout design_layout;
  hsize_t n_design = 0;
  IdIndex ids;                          ///< the ids of /scenarios
  std::vector<std::int64_t> done_ids;   ///< ids with a /metrics or /errors row, ascending
};

/// Opens `path` and checks the whole file (docs/hdf5-format.md, "Validation"): the attributes,
/// the tables' columns and sizes (bounded by the file size before anything is allocated), and
/// every row: ids of the file's scenarios, one row per id, text valid UTF-8. /jobs is optional.
/// Any problem: InputError(path, ...) with kDamagedAdvice. The one check of every reader
/// (summarize, merge, resume), so they give the same verdict. Accepts every format version up
/// to kFormatVersion.
Input open_input(const std::string& path);

/// InputError unless `in` was written in this build's format version and model version
/// (merge and a plain resume copy its /scenarios, so they write only files of their own version).
void require_current_version(const Input& in);
/// InputError unless `in` has content keys (format 3 or later) of this build's model version:
/// what an extension needs (it writes a new /scenarios, so it upgrades a format-3 file).
void require_extendable(const Input& in);

}  // namespace geopipe::sweep::h5
