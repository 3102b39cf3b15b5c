// The shape table of the trace importer (docs/trace-import.md, "The shape table"): how a trace
// row's GPU count N becomes a pipeline job: an LLM of the built-in catalogue, g GPUs per
// stage, S stages, micro-batch size b and micro-batches m. Rows cover contiguous, disjoint,
// ascending ranges of N. The default table is built in; `--shape-table FILE` replaces it with a
// CSV of the same columns:
//
//   min_gpus,max_gpus,model,gpus_per_stage,stages,micro_batch_size,micro_batches
//   1,1,gpt3-1.3b,1,N/g,1,16
//   2,7,llama2-7b,1,N/g,1,16
//   ...
//   128,inf,flm-101b,8,N/g,1,16
//
// `stages` is a fixed S >= 1, `0` (the smallest feasible stage count, chosen by geopipe on the
// scenario's cluster: the trace says 0), or `N/g` (S = floor(N / (g·D)), at least 1 and at most
// the model's layers L). `max_gpus` is an integer or `inf` (no upper bound, last row only). An
// optional column `data_parallel` gives the replicas D (docs/model.md, "Data parallelism"): a
// fixed D >= 1 (default 1), `N/(g*S)` with a fixed S >= 1 (D = floor(N / (g·S)), at least 1
// and at most kMaxDataParallel): the job uses D·S·g <= N GPUs, or `0` with `stages = N/g`: a
// flexible job of flexible_slots(N) slots whose D the scheduler chooses.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "model/gpu.h"
#include "model/job.h"
#include "model/llm.h"

namespace geopipe::traceimport {

/// "No upper bound" for a GPU count (`inf` in a shape table, no --max-gpus).
inline constexpr std::int64_t kNoGpuLimit = std::numeric_limits<std::int64_t>::max();
/// ShapeRule::stages for "N/g": S = clamp(floor(N / (g·D)), 1, L).
inline constexpr int kStagesFromGpus = -1;
/// ShapeRule::data_parallel for "N/(g*S)": D = clamp(floor(N / (g·S)), 1, kMaxDataParallel).
inline constexpr int kReplicasFromGpus = -1;
/// ShapeRule::data_parallel 0: the scheduler chooses D (a flexible job, model/flexible_job.h) for
/// the row's flexible_slots; needs stages = N/g.
inline constexpr int kFlexibleReplicas = 0;
/// Largest GPU count a shape table names (a bound on `min_gpus` and a finite `max_gpus`).
inline constexpr std::int64_t kMaxTableGpus = 10'000'000;

/// The columns of a shape table, in their canonical order (the order the default is printed in).
/// The first kNumRequiredShapeColumns are required; data_parallel is optional.
enum ShapeColumn : std::size_t { kMinGpus, kMaxGpus, kModel, kGpusPerStage, kStages, kMicroBatchSize, kMicroBatches, kDataParallel, kNumShapeColumns };
inline constexpr std::size_t kNumRequiredShapeColumns = kDataParallel;
/// Their header names: "min_gpus", "max_gpus", "model", ...
const std::array<const char*, kNumShapeColumns>& shape_column_names();

/// One row of the table: trace rows with min_gpus <= N <= max_gpus get this shape.
struct ShapeRule {
  std::int64_t min_gpus = 1;             ///< smallest N of the row, >= 1
  std::int64_t max_gpus = kNoGpuLimit;   ///< largest N (inclusive), >= min_gpus; kNoGpuLimit = inf
  std::string model;                     ///< a built-in LLM (`geopipe list models`)
  int gpus_per_stage = 1;                ///< g, 1..4096
  int stages = kStagesFromGpus;          ///< S >= 1 fixed; 0: smallest feasible; kStagesFromGpus: N/g
  int micro_batch_size = 1;              ///< b, 1..2^20
  int micro_batches = 16;                ///< m, 1..2^20
  int data_parallel = 1;                 ///< D >= 1 fixed; kReplicasFromGpus: N/(g*S) (needs a fixed S); kFlexibleReplicas (0): chosen by the scheduler (needs N/g)
  int line = 0;                          ///< line in the table's file (0: the built-in default)
  std::array<int, kNumShapeColumns> column{};  ///< column of each cell in that line (0: unknown)
};

/// The built-in table (docs/trace-import.md, "The shape table"): GPU-count ranges 1 | 2-7 |
/// 8-15 | 16-31 | 32-127 | 128-inf to gpt3-1.3b, llama2-7b, llama2-13b, llama-33b, llama2-70b,
/// flm-101b with g = 1, 1, 2, 4, 8, 8, S = N/g, b = 1, m = 16 (the generator's mix defaults).
std::vector<ShapeRule> default_shape_table();

/// Parses a table (CSV, util/csv_read.h syntax; header names in any order, each once). Throws
/// InputError "path:line:col: ..." for a missing, repeated or unknown column, a bad or
/// out-of-range number, an unknown model, stages beyond the model's layers, rows out of order,
/// a gap or an overlap between consecutive rows, a row after an `inf` row, or no rows.
std::vector<ShapeRule> parse_shape_table(std::string_view text, const std::string& path);

/// Checks what depends on the reference GPU: every shape the table can give (each S of each
/// row) fits g GPUs of `reference` per stage under `compute` (model/job.h memory), a `0` row's
/// model fits at some S, and S·m <= kMaxPipelineCells. Throws InputError at the row's cell
/// (`path` "" for the default table: then named "the default shape table"). Also checks the
/// order/gap/overlap rules (for tables built in code).
void check_shape_table(const std::vector<ShapeRule>& rules, const std::string& path, const GpuType& reference,
                       const ComputeOptions& compute);

/// The stage count a trace row of `gpus` GPUs gets from `rule` (as written to the trace: 0 for a
/// `0` row; a flexible row's slots, flexible_slots). Requires rule.min_gpus <= gpus <= rule.max_gpus.
int mapped_stages(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus);
/// The slots a flexible row (data_parallel = 0) gives a trace row of `gpus` GPUs: the largest
/// n <= floor(N/g), at most kMaxPipelineCells / m, kMaxDataParallel · L and kMaxFlexibleSlots,
/// that has a D × S split (data_parallel_variants, model/flexible_job.h: D | n, D | m, n/D <= L,
/// D <= kMaxDataParallel), i.e. the largest D·min(L, floor(n0/D)) over the divisors D of m;
/// n = 1 always has one. The job uses n·g <= N GPUs (the remainder is left out, as for N/g).
int flexible_slots(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus);
/// The flexible job (data_parallel = 0, iterations 1) a flexible row gives a trace row of `gpus` GPUs.
Job flexible_job_of(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus);
/// The index in data_parallel_variants(flexible_job_of(...)) of the first variant (the least D)
/// whose every stage fits g GPUs of `reference` under `compute`, or -1: the variant whose T_ref a
/// flexible job's iterations are taken at (its reference variant on a cluster of that GPU type).
int first_fitting_variant(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus, const GpuType& reference,
                          const ComputeOptions& compute);
/// The replicas D a trace row of `gpus` GPUs gets from `rule` (the fixed D, 0 for a flexible
/// row, or N/(g*S)).
int mapped_data_parallel(const ShapeRule& rule, std::int64_t gpus);
/// Does some row of the table give D != 1 (so the trace and the printed table need the column)?
bool has_data_parallel(const std::vector<ShapeRule>& rules);

/// The index of the row whose range holds `gpus` in a checked table, or -1 (binary search).
int find_shape(const std::vector<ShapeRule>& rules, std::int64_t gpus);

/// "N/g", "0" or the fixed S.
std::string stages_text(const ShapeRule& rule);
/// "N/(g*S)" or the fixed D.
std::string data_parallel_text(const ShapeRule& rule);
/// "inf" or the number.
std::string max_gpus_text(const ShapeRule& rule);

/// The table as the CSV parse_shape_table reads (header, one line per row, LF line ends).
std::string shape_table_csv(const std::vector<ShapeRule>& rules);

}  // namespace geopipe::traceimport
