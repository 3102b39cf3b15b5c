// Importing public GPU-cluster traces into geopipe's job-trace CSV (docs/trace-import.md):
// `geopipe trace import --format FORMAT IN -o jobs.csv`. Plain C++20 over geopipe::core and
// geopipe::util; it reads text and writes to a stream (the CLI reads and writes the files).
//
// The mapping, row by row, in this order (each dropped row is counted under the first reason
// that applies, DropReason):
//  1. a row with the wrong number of cells is a bad row: InputError "file:line:col: what" (or,
//     with skip_bad_rows, counted and skipped);
//  2. a row whose cells all equal an earlier row's is a duplicate (unless keep_duplicates);
//  3. its state must be one of `states` (formats with a state column); the other cells of a
//     row dropped here are not read;
//  4. a used cell (submit time, GPUs, run time) that is not what its column holds: a bad row;
//  5. its GPU count N: not 0, not a share of one GPU, within [min_gpus, max_gpus], in a row of
//     the shape table, which gives the model, g, S, b, m (shape_table.h);
//  6. its run time must be > 0 s;
//  7. t0 = the earliest submit time of the rows left; a row is kept if
//     from_s <= submit - t0 < to_s (trace seconds, before scaling); then the first `limit` rows
//     by submit time (ties: file order) are kept;
//  8. arrival_s = arrival_offset_s + (submit - t1) * time_scale, t1 = the earliest kept submit;
//     iterations I = max(1, round(run_s * time_scale / T_ref)) with T_ref the compute-only
//     iteration time of the job's shape on the reference GPU (model/workload.h
//     reference_iteration_time_s, as the generator computes it; for a `stages = 0` row, at the
//     smallest stage count that fits the reference GPU).
// Kept rows are written sorted by arrival (ties: file order).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/job.h"
#include "model/workload.h"
#include "traceimport/shape_table.h"

namespace geopipe::traceimport {

/// Largest trace file `geopipe trace import` reads: 1 GiB (docs/limits.md, "Input files"; about
/// 9 million Helios rows). The output is a geopipe trace (at most 256 MiB and 4,000,000 jobs).
inline constexpr std::size_t kMaxImportBytes = std::size_t{1} << 30;

enum class Format {
  kPhilly,       ///< "philly": timestamp,duration,num_gpus,gpu_time,cluster (Pollux/adaptdl's derived CSV)
  kHelios,       ///< "helios", "acme": job_id,user,vc,gpu_num,...,state,submit_time,...,duration (+ Acme/Kalos columns)
  kAlibaba2023,  ///< "alibaba-2023": openb_pod_list_*.csv
};

/// A format and what it knows about states.
struct FormatInfo {
  Format format;
  std::string name;                         ///< "philly", "helios", "alibaba-2023"
  std::vector<std::string> aliases;         ///< other names for --format ("acme")
  std::vector<std::string> known_states;    ///< values --states may name (empty: no state column)
  std::vector<std::string> default_states;  ///< kept by default
};
const std::vector<FormatInfo>& formats();
/// The format named `name` (or an alias), or nullptr.
const FormatInfo* find_format(std::string_view name);
const FormatInfo& format_info(Format f);

/// Why a row was dropped; the summary and the output's comment count each.
enum class DropReason : std::size_t {
  kBadRow,        ///< "bad_row": malformed (with skip_bad_rows)
  kDuplicate,     ///< "duplicate": the same cells as an earlier row
  kState,         ///< "state": a state not kept
  kNoGpu,         ///< "no_gpu": 0 GPUs (a CPU-only job)
  kFractionalGpu, ///< "fractional_gpu": a share of one GPU
  kTooFewGpus,    ///< "too_few_gpus": N < min_gpus
  kTooManyGpus,   ///< "too_many_gpus": N > max_gpus
  kNoShape,       ///< "no_shape": no row of the shape table holds N
  kDuration,      ///< "duration": run time <= 0
  kWindow,        ///< "window": submit - t0 outside [from_s, to_s)
  kLimit,         ///< "limit": beyond the first `limit` rows
};
inline constexpr std::size_t kNumDropReasons = 11;
/// Short key ("bad_row", "duplicate", ...) and a phrase for the summary.
std::string_view drop_key(DropReason r);
std::string_view drop_phrase(DropReason r);

/// What to import and how. Each field names the CLI flag that sets it; import_trace() checks
/// the ranges and throws InputError naming that flag.
struct ImportOptions {
  Format format = Format::kHelios;          ///< --format
  std::vector<std::string> states;          ///< --states: kept states; empty = the format's default_states
  std::int64_t min_gpus = 1;                ///< --min-gpus: fewer GPUs are dropped (>= 1)
  std::int64_t max_gpus = kNoGpuLimit;      ///< --max-gpus: more GPUs are dropped (>= min_gpus)
  double from_s = 0;                        ///< --from: window start, trace s after t0 (inclusive, >= 0)
  double to_s = std::numeric_limits<double>::infinity();  ///< --to: window end (exclusive, > from_s)
  std::int64_t limit = 0;                   ///< --limit: keep at most this many rows (0 = all)
  double time_scale = 1.0;                  ///< --time-scale: multiplies arrival gaps and run times, in (0, 1e6]
  double arrival_offset_s = 0;              ///< --arrival-offset: arrival of the first kept row, [0, 1e12] s
  std::string reference_gpu = WorkloadOptions{}.reference_gpu;  ///< --reference-gpu: a built-in GPU (the generator's default)
  ComputeOptions compute{};                 ///< how fast T_ref runs: geopipe's default [sim] (no flag)
  std::vector<ShapeRule> shapes;            ///< --shape-table: empty = default_shape_table()
  std::string shape_table_path;             ///< the file `shapes` came from ("" = the default), for messages
  bool skip_bad_rows = false;               ///< --skip-bad-rows: count and skip malformed rows
  bool keep_duplicates = false;             ///< --keep-duplicates: do not drop repeated rows
};

/// One kept row as a geopipe job.
struct ImportedJob {
  double arrival_s = 0;       ///< s since the start of the simulation, in [0, kMaxArrivalSpanS]
  int shape = 0;              ///< index into ImportResult::shapes
  int stages = 0;             ///< S as written (0: smallest feasible on the scenario's cluster)
  int data_parallel = 1;      ///< D as written (a column of the trace only if the shape table gives D != 1)
  std::int64_t iterations = 1;///< I in [1, kMaxJobIterations]
  double submit_s = 0;        ///< the row's submit time on the trace's clock
  double run_s = 0;           ///< the row's run time, s (before scaling)
  std::int64_t gpus = 0;      ///< the row's N
  int line = 0;               ///< the row's line in the input
  int submit_column = 0;      ///< the column of its submit time (for messages)
};

struct ImportResult {
  std::int64_t rows_read = 0;                         ///< data rows (not the header, comments, blank lines)
  std::array<std::int64_t, kNumDropReasons> dropped{};  ///< by DropReason
  std::vector<ImportedJob> jobs;                      ///< kept rows, sorted by arrival (ties: file order)
  std::vector<ShapeRule> shapes;                      ///< the shape table used
  std::vector<double> t_ref_s;                        ///< T_ref per shape row at its smallest S (for the comment)
  std::vector<std::string> states;                    ///< the states kept (empty: the format has none)
  double t0_s = 0;                                    ///< origin of the time window (trace clock)
  double t1_s = 0;                                    ///< the earliest kept submit (trace clock)
  std::string first_bad_row;                          ///< message of the first skipped bad row, or ""

  std::int64_t rows_kept() const { return static_cast<std::int64_t>(jobs.size()); }
  std::int64_t count(DropReason r) const { return dropped[static_cast<std::size_t>(r)]; }
  std::int64_t rows_dropped() const;
};

/// Imports the trace `text` (named `path` in messages) in opt.format. Throws InputError for an
/// option out of range (named by its flag), a bad shape table, a header that is not the
/// format's, a text that is not CSV (util/csv_read.h), a bad row (unless skip_bad_rows: then
/// counted) and an arrival beyond kMaxArrivalSpanS. A result without jobs is no error here (the
/// CLI prints its summary, then refuses to write an empty trace). Deterministic.
ImportResult import_trace(std::string_view text, const std::string& path, const ImportOptions& opt);

/// Writes the trace: `#` comment lines saying what produced it (`command`, the input, the
/// format, the mapping, the counts), the header arrival_s,model,stages,gpus_per_stage,
/// micro_batch_size,micro_batches,iterations, then one line per job (LF line ends). What
/// model/trace.h parse_trace_csv reads back as the same jobs.
void write_trace_csv(std::ostream& os, const ImportResult& r, const ImportOptions& opt, std::string_view command,
                     std::string_view input);

/// The summary `geopipe trace import` prints on stderr: rows read, kept, and each drop reason
/// with its count (every reason, zeros included: "  duplicate        3  ..."), one per line.
std::string import_summary(const ImportResult& r, const ImportOptions& opt, std::string_view input);

}  // namespace geopipe::traceimport
