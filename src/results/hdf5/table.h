// Tables of the result store (results/hdf5/store.h): row layouts, packed rows and the dataset
// I/O on them. Internal to src/results/hdf5: only the store's own files include it.
//
// Owns: the in-memory/in-file row format (a Layout is a packed compound type, identical in
// memory and in the file; Rows holds rows packed that way; put_*/get_* convert one field),
// the /metrics, /errors and /jobs layouts with their string widths, the chunk sizes,
// and creating, appending to, reading and sorting one table. Files, attributes and metadata
// are in results/hdf5/file.h; HDF5 errors and handles in results/hdf5/error.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job_row.h"
#include "sim/metrics.h"
#include "results/hdf5/error.h"
#include "util/input_error.h"

namespace geopipe::sweep::h5 {

// String widths (bytes). No stored text is ever cut: scheduler and text-axis columns are as
// wide as the longest value of the sweep (at least these), /jobs text columns as the sweep's
// JobTextBytes (sim/job_row.h), and /errors messages as wide as the longest error line geopipe
// prints (util::kMaxShownBytes; a longer exception text is shortened exactly as on stderr).
constexpr std::size_t kSchedulerWidth = 32;
constexpr std::size_t kTextWidth = 64;
constexpr std::size_t kErrorWidth = util::kMaxShownBytes;
/// /scenarios.key and .point_key: a scenario's content key and its point's content digest,
/// 32 hex digits each (sweepfile/scenario_key.h).
constexpr std::size_t kKeyWidth = 32;
/// /scenarios columns before the axes: id, point, seed, scheduler, key, point_key (format 3:
/// no point_key; formats 1 and 2: no key either).
constexpr std::size_t kScenarioLeadColumns = 6;
constexpr std::size_t scenario_lead_columns(int format_version) {
  return format_version >= 4 ? 6 : format_version == 3 ? 5 : 4;
}
/// Narrowest column in which a too-long text is shortened with a visible marker (a defence:
/// the widths above make it unreachable for every text geopipe writes).
constexpr std::size_t kMinMarkedWidth = 128;

// Chunk sizes (rows).
constexpr hsize_t kScenarioChunk = 4096;
constexpr hsize_t kMetricsChunk = 1024;
constexpr hsize_t kErrorsChunk = 128;  // 128 x 4 KiB rows: a chunk fits HDF5's 1 MiB chunk cache
constexpr hsize_t kJobsChunk = 2048;
constexpr hsize_t kParametersChunk = 1024;
constexpr unsigned kDeflateLevel = 1;

/// Rows per read when a table is read block by block.
constexpr hsize_t kBlockRows = 4096;

// ---------------------------------------------------------------------------------------------
// Row layouts: packed compound types, identical in memory and in the file
// ---------------------------------------------------------------------------------------------

enum class Kind { I8, I32, I64, U64, F64, Str };

struct Field {
  std::string name;
  Kind kind;
  std::size_t size;
  std::size_t off;
};

struct Layout {
  std::vector<Field> fields;
  std::size_t size = 0;

  /// Appends a column (8 bytes unless I8, I32 or Str of `str_size` bytes).
  Layout& add(std::string name, Kind k, std::size_t str_size = 0);
  const Field* find(std::string_view name) const;
  const Field& at(std::string_view name) const;  ///< throws std::logic_error if absent
  bool same_as(const Layout& o) const;           ///< same names, order, kinds and sizes
  bool same_columns_as(const Layout& o) const;   ///< same names, order and kinds (text widths may differ)
  std::string describe() const;                  ///< "id, status, ..."
};

/// Fixed-length UTF-8 string type, NUL padded.
Hid string_type(std::size_t size, const std::string& path);
/// The compound type of a layout (failures are write errors).
Hid make_type(const Layout& l, const std::string& path);
/// The layout of a dataset's compound type as stored (names, order, kinds, string sizes).
Layout layout_of(hid_t dset, const std::string& path, const std::string& name);

/// Rows of one table, packed as in the layout.
struct Rows {
  std::size_t row_size = 0;
  std::size_t n = 0;
  std::vector<unsigned char> data;

  Rows() = default;
  explicit Rows(std::size_t rs) : row_size(rs) {}
  unsigned char* add() {
    data.resize((n + 1) * row_size);
    return data.data() + (n++) * row_size;
  }
  unsigned char* row(std::size_t i) { return data.data() + i * row_size; }
  const unsigned char* row(std::size_t i) const { return data.data() + i * row_size; }
  void clear() {
    n = 0;
    data.clear();
  }
};

// One field of a packed row, converted to/from the field's kind.
void put_i64(unsigned char* row, const Field& f, std::int64_t v);
void put_u64(unsigned char* row, const Field& f, std::uint64_t v);
void put_f64(unsigned char* row, const Field& f, double v);
/// Copies at most f.size bytes, cut at a UTF-8 character boundary; the rest is NUL padding.
void put_str(unsigned char* row, const Field& f, const std::string& s);
std::int64_t get_i64(const unsigned char* row, const Field& f);
double get_f64(const unsigned char* row, const Field& f);  ///< NaN for a string field
std::string get_str(const unsigned char* row, const Field& f);

/// The number a TOML value text or canonical value denotes ("2", "0.5", "1e3"), NaN for
/// anything else (a string, an array, "").
double number_of(const std::string& text);

/// A row of fill values: NaN for floats, -1 for "id"/"scenario_id"/"job_id", 0 otherwise.
Rows fill_row(const Layout& l);

// The tables. /metrics: id, status, then every metric of sim/metrics.h as float64;
// /jobs: scenario_id, then the columns of sim/job_row.h (int32, float64, text as wide as
// `text` says).
const Layout& metrics_layout();

/// The format version in which /metrics or /jobs gained `column`: 5 for electricity_cost_usd,
/// egress_cost_usd, sched_partition_misses (/metrics) and layers (/jobs); 6 for value
/// (/metrics); 7 for sync_bytes (both), sync_fraction (/metrics) and data_parallel (/jobs); 8
/// for failures, preemptions, restarts, lost_gpu_hours, checkpoint_gpu_hours (both) and goodput
/// (/metrics); 9 for p99_queue_delay_s, avg_ftf_rho, max_ftf_rho, unfair_fraction,
/// jain_fairness (/metrics), isolated_jct_s, ftf_rho (/jobs); 10 for jct_lower_bound_s
/// (/metrics); 3 for every other column (files of formats 3 and 4 have them).
int format_adding_column(std::string_view column);
/// Is `column` one format 9 added (the fairness columns, all float64)?
bool is_format9_column(std::string_view column);
/// Is `column` the one format 10 added (jct_lower_bound_s, float64)?
bool is_format10_column(std::string_view column);
/// Is `column` one that older files do not record (NaN in a simulation's rows of a file before
/// the format that added it): a column of format 9 or 10.
bool is_unrecorded_before_added(std::string_view column);
/// `l` without the columns added after format `format` (3..kFormatVersion): the layout a table
/// of a file of that format has.
Layout columns_of_format(const Layout& l, int format);
/// A row of a table whose columns are those of format `format` (3..6), read into this build's
/// layout `l` (by column name: the newer columns are left as the buffer had them): fills those
/// columns with what they are for results written before them.
/// - Format 5 (egress and layer partitions): electricity_cost_usd = total_cost_usd (/metrics) or
///   cost_usd (/jobs), egress_cost_usd = 0, sched_partition_misses = 0 (every split was even),
///   layers = "" (not recorded).
/// - Format 6 (the test functions' own column): value = 0 for a simulation; for a file of a
///   test function (`evaluator` kTestFunction: its values were stored as avg_jct_s) value =
///   avg_jct_s and avg_jct_s = 0, as this build writes such a row.
/// - Format 7 (data parallelism): data_parallel = 1, sync_bytes = 0, sync_fraction = 0 (every
///   job was one pipeline).
/// - Format 8 (failures and checkpoints): failures = preemptions = restarts = 0,
///   lost_gpu_hours = checkpoint_gpu_hours = 0, goodput = 1 for a simulation (0 for a test
///   function, which leaves the simulation's metrics at 0).
/// - Format 9 (fairness): p99_queue_delay_s, avg_ftf_rho, max_ftf_rho, unfair_fraction,
///   jain_fairness, isolated_jct_s, ftf_rho are not recorded: NaN for a simulation (no older
///   file has what they need; the reports refuse them), 0 for a test function.
/// - Format 10 (the lower bound on the mean JCT): jct_lower_bound_s is not recorded, as format
///   9's columns (it needs every job's T_alone).
void fill_columns_since(unsigned char* row, const Layout& l, int format, MetricSource evaluator);
const Layout& errors_layout();
Layout jobs_layout(const JobTextBytes& text);
/// How two /metrics rows (metrics_layout) of one scenario differ in a deterministic metric
/// (sim/metrics.h; wall-clock times are ignored): "" if they agree bit for bit, else the first
/// difference as "avg_jct_s = 1.5 vs 1.6". A column of format 9 or 10 (is_unrecorded_before_added)
/// that one row does not record (NaN: a file before that format) agrees with any value.
std::string metrics_difference(const unsigned char* a, const unsigned char* b);
/// A 64-bit digest of a scenario's result as metrics_difference compares it: of a /metrics row's
/// deterministic metrics but the columns of formats 9 and 10 (which a row of an older file does
/// not record; the other metrics are of the same simulation), or (kind tag apart) of an /errors
/// row's message.
std::uint64_t metrics_digest(const unsigned char* metrics_row);
std::uint64_t error_digest(const unsigned char* errors_row);
/// The text widths of a /jobs layout (the column sizes of `model` and `regions`).
JobTextBytes job_text_of(const Layout& jobs);
/// Packs one /jobs row (a jobs_layout()) of scenario `scenario_id`; std::logic_error if a text
/// is longer than its column (the widths are bounds: that is a bug, never a silent cut).
void put_job_row(unsigned char* row, const Layout& jobs, std::int64_t scenario_id, const JobRow& job);

// ---------------------------------------------------------------------------------------------
// Datasets
// ---------------------------------------------------------------------------------------------

/// An empty, extendible, chunked, shuffled+deflated table with fill_row(l) as fill value.
Hid create_table(hid_t file, const char* name, hid_t type, const Layout& l, hsize_t chunk,
                 const std::string& path);

/// Appends rows [first, first + n) of `rows` at the end of the dataset (`in_file` rows so far).
void write_rows(hid_t dset, hid_t type, hsize_t& in_file, const Rows& rows, std::size_t first,
                std::size_t n, const std::string& path, const std::string& name);

/// The rows per chunk of a chunked one-dimensional dataset.
hsize_t chunk_rows(hid_t dset, const std::string& path, const std::string& name);

/// The number of rows of a one-dimensional dataset.
hsize_t table_rows(hid_t dset, const std::string& path, const std::string& name);

/// Calls each(row) for every row of a table, read block by block with `memtype` (row size
/// `row_size`): memory does not grow with the table.
template <class Fn>
void each_row(hid_t dset, hid_t memtype, std::size_t row_size, hsize_t rows, const std::string& path,
              const char* name, Fn each);

/// Reads every row of a dataset with the given layout (converted by column name).
Rows read_table(hid_t dset, const Layout& l, const std::string& path, const std::string& name);

/// Reads rows [start, start + count) into `out` (resized) with the given memory type.
void read_block(hid_t dset, hid_t memtype, std::size_t row_size, hsize_t start, hsize_t count, Rows& out,
                const std::string& path, const std::string& name);

/// Stable sort by key(row), then drop rows whose key equals the previous one.
template <class Key>
Rows sorted_unique(const Rows& in, Key key) {
  std::vector<std::size_t> idx(in.n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return key(in.row(a)) < key(in.row(b)); });
  Rows out(in.row_size);
  out.data.reserve(in.n * in.row_size);
  bool have_prev = false;
  decltype(key(in.row(0))) prev{};
  for (std::size_t i : idx) {
    const auto k = key(in.row(i));
    if (have_prev && k == prev) continue;
    have_prev = true;
    prev = k;
    std::memcpy(out.add(), in.row(i), in.row_size);
  }
  return out;
}

template <class Fn>
void each_row(hid_t dset, hid_t memtype, std::size_t row_size, hsize_t rows, const std::string& path,
              const char* name, Fn each) {
  Rows buf(row_size);
  for (hsize_t start = 0; start < rows; start += kBlockRows) {
    const hsize_t count = std::min<hsize_t>(kBlockRows, rows - start);
    read_block(dset, memtype, row_size, start, count, buf, path, name);
    for (std::size_t i = 0; i < buf.n; ++i) each(buf.row(i));
  }
}

}  // namespace geopipe::sweep::h5
