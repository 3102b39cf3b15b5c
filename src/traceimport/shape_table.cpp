#include "traceimport/shape_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "model/flexible_job.h"
#include "model/workload.h"
#include "util/csv_read.h"
#include "util/input_error.h"
#include "util/named_table.h"

namespace geopipe::traceimport {
namespace {

constexpr int kMaxGpusPerStage = 4096;   // the trace's bounds (model/trace.cpp)
constexpr int kMaxMicro = 1 << 20;

std::string where(const std::string& path) { return path.empty() ? std::string("the default shape table") : path; }

std::string range_text(const ShapeRule& r) {
  return std::to_string(r.min_gpus) + ".." + (r.max_gpus == kNoGpuLimit ? std::string("inf") : std::to_string(r.max_gpus));
}

/// "row 2..7 (llama2-7b): " for the default table, whose rows have no lines; "" for a file.
std::string row_prefix(const std::string& path, const ShapeRule& r) {
  return path.empty() ? "row " + range_text(r) + " (" + r.model + "): " : std::string();
}

[[noreturn]] void fail(const std::string& path, const ShapeRule& r, ShapeColumn c, const std::string& msg) {
  throw InputError(where(path), r.line, r.column[c], row_prefix(path, r) + msg);
}

std::string builtin_model_list() { return util::joined_names(builtin_llms()); }

std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

/// The range checks shared by parsing and check_shape_table (for tables built in code).
void check_values(const std::string& path, const ShapeRule& r, const LlmSpec& llm) {
  if (r.min_gpus < 1 || r.min_gpus > kMaxTableGpus)
    fail(path, r, kMinGpus, "min_gpus = " + std::to_string(r.min_gpus) + " is out of range (expected 1 .. " + std::to_string(kMaxTableGpus) + ")");
  if (r.max_gpus < r.min_gpus)
    fail(path, r, kMaxGpus, "max_gpus = " + std::to_string(r.max_gpus) + " is below min_gpus = " + std::to_string(r.min_gpus) +
                                " (expected max_gpus >= min_gpus, or inf)");
  if (r.max_gpus != kNoGpuLimit && r.max_gpus > kMaxTableGpus)
    fail(path, r, kMaxGpus, "max_gpus = " + std::to_string(r.max_gpus) + " is out of range (expected at most " + std::to_string(kMaxTableGpus) + ", or inf)");
  if (r.gpus_per_stage < 1 || r.gpus_per_stage > kMaxGpusPerStage)
    fail(path, r, kGpusPerStage, "gpus_per_stage = " + std::to_string(r.gpus_per_stage) + " is out of range (expected 1 .. 4096)");
  if (r.stages != kStagesFromGpus && (r.stages < 0 || r.stages > llm.layers))
    fail(path, r, kStages, "stages = " + std::to_string(r.stages) + " is out of range for " + llm.name + " (expected 0 .. " +
                               std::to_string(llm.layers) + ", its layers, or N/g)");
  if (r.micro_batch_size < 1 || r.micro_batch_size > kMaxMicro)
    fail(path, r, kMicroBatchSize, "micro_batch_size = " + std::to_string(r.micro_batch_size) + " is out of range (expected 1 .. 1048576)");
  if (r.micro_batches < 1 || r.micro_batches > kMaxMicro)
    fail(path, r, kMicroBatches, "micro_batches = " + std::to_string(r.micro_batches) + " is out of range (expected 1 .. 1048576)");
  if (r.data_parallel != kReplicasFromGpus && (r.data_parallel < 0 || r.data_parallel > kMaxDataParallel))
    fail(path, r, kDataParallel, "data_parallel = " + std::to_string(r.data_parallel) + " is out of range (expected 0 .. " +
                                     std::to_string(kMaxDataParallel) + ", or N/(g*S))");
  if (r.data_parallel == kFlexibleReplicas && r.stages != kStagesFromGpus)
    fail(path, r, kDataParallel, "data_parallel = 0 (the scheduler chooses D) needs stages = N/g (got stages = " +
                                     std::to_string(r.stages) + "; expected N/g: the GPU count in slots of g GPUs, or a fixed "
                                     "data_parallel)");
  if (r.data_parallel == kReplicasFromGpus && r.stages < 1)
    fail(path, r, kDataParallel, std::string("data_parallel = N/(g*S) needs a fixed stage count (stages = ") +
                                     (r.stages == 0 ? "0" : "N/g") + "; expected stages >= 1, or a fixed data_parallel)");
}

/// Ascending, contiguous, disjoint; nothing after an `inf` row.
void check_order(const std::string& path, const ShapeRule& prev, const ShapeRule& cur) {
  const std::string prev_where = (prev.line > 0 ? "line " + std::to_string(prev.line) + ": " : std::string()) + range_text(prev);
  if (prev.max_gpus == kNoGpuLimit)
    fail(path, cur, kMinGpus, "a row after the row (" + prev_where + ") whose max_gpus is inf (expected the inf row last)");
  if (cur.min_gpus < prev.min_gpus)
    fail(path, cur, kMinGpus, "min_gpus = " + std::to_string(cur.min_gpus) + " comes after the row (" + prev_where +
                                  ") (expected rows in ascending order of GPU count)");
  if (cur.min_gpus <= prev.max_gpus)
    fail(path, cur, kMinGpus, "GPU counts " + std::to_string(cur.min_gpus) + ".." + std::to_string(std::min(prev.max_gpus, cur.max_gpus)) +
                                  " are in this row and in the row (" + prev_where + "): rows overlap (expected min_gpus = " +
                                  std::to_string(prev.max_gpus + 1) + ")");
  if (cur.min_gpus > prev.max_gpus + 1)
    fail(path, cur, kMinGpus, "GPU counts " + std::to_string(prev.max_gpus + 1) + ".." + std::to_string(cur.min_gpus - 1) +
                                  " have no shape: a gap after the row (" + prev_where + ") (expected min_gpus = " +
                                  std::to_string(prev.max_gpus + 1) + ")");
}

}  // namespace

const std::array<const char*, kNumShapeColumns>& shape_column_names() {
  static const std::array<const char*, kNumShapeColumns> names = {"min_gpus", "max_gpus", "model", "gpus_per_stage",
                                                                   "stages", "micro_batch_size", "micro_batches",
                                                                   "data_parallel"};
  return names;
}

std::vector<ShapeRule> default_shape_table() {
  auto rule = [](std::int64_t lo, std::int64_t hi, const char* model, int g) {
    ShapeRule r;
    r.min_gpus = lo;
    r.max_gpus = hi;
    r.model = model;
    r.gpus_per_stage = g;
    r.stages = kStagesFromGpus;
    r.micro_batch_size = geopipe::ModelMixEntry{}.micro_batch_size;  // the generator's mix defaults
    r.micro_batches = geopipe::ModelMixEntry{}.micro_batches;
    return r;
  };
  return {rule(1, 1, "gpt3-1.3b", 1),     rule(2, 7, "llama2-7b", 1),   rule(8, 15, "llama2-13b", 2),
          rule(16, 31, "llama-33b", 4),   rule(32, 127, "llama2-70b", 8), rule(128, kNoGpuLimit, "flm-101b", 8)};
}

std::vector<ShapeRule> parse_shape_table(std::string_view text, const std::string& path) {
  const auto& names = shape_column_names();
  std::array<int, kNumShapeColumns> pos{};
  pos.fill(-1);
  std::size_t columns = 0;
  bool have_header = false;
  std::vector<ShapeRule> rules;
  util::for_each_csv_record(text, path, [&](util::CsvRecord& rec) {
    const std::vector<util::CsvCell>& cells = rec.cells;
    if (!have_header) {
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const auto* it = std::find_if(names.begin(), names.end(), [&](const char* n) { return cells[c].text == n; });
        if (it == names.end())
          throw InputError(path, cells[c].line, cells[c].column,
                           "unknown column '" + cells[c].text +
                               "' (expected min_gpus, max_gpus, model, gpus_per_stage, stages, micro_batch_size, micro_batches"
                               " and optionally data_parallel)");
        const auto k = static_cast<std::size_t>(it - names.begin());
        if (pos[k] >= 0)
          throw InputError(path, cells[c].line, cells[c].column,
                           "duplicate column '" + cells[c].text + "' (column " + std::to_string(c + 1) + ", already column " +
                               std::to_string(pos[k] + 1) + "; expected each column once)");
        pos[k] = static_cast<int>(c);
        ++columns;
      }
      for (std::size_t k = 0; k < kNumRequiredShapeColumns; ++k)
        if (pos[k] < 0) throw InputError(path, rec.line, 1, std::string("missing column '") + names[k] + "'");
      have_header = true;
      return;
    }
    if (cells.size() != columns)
      throw InputError(path, rec.line, 1, "expected " + std::to_string(columns) + " fields, found " + std::to_string(cells.size()));
    ShapeRule r;
    r.line = rec.line;
    for (std::size_t k = 0; k < kNumShapeColumns; ++k)
      if (pos[k] >= 0) r.column[k] = cells[static_cast<std::size_t>(pos[k])].column;
    auto cell = [&](ShapeColumn k) -> const util::CsvCell& { return cells[static_cast<std::size_t>(pos[k])]; };
    auto integer = [&](ShapeColumn k, double lo, double hi) -> std::int64_t {
      const util::CsvCell& f = cell(k);
      const std::optional<double> v = util::parse_decimal(f.text);
      const std::string alt = k == kMaxGpus ? ", or inf" : k == kStages ? ", or N/g" : k == kDataParallel ? ", or N/(g*S)" : "";
      if (!v)
        throw InputError(path, f.line, f.column,
                         std::string(names[k]) + ": '" + f.text + "' is not a number (expected decimal digits, e.g. 16" + alt + ")");
      if (!(*v >= lo && *v <= hi)) {
        std::ostringstream os;
        os << names[k] << " = " << f.text << " is out of range (expected " << static_cast<std::int64_t>(lo) << " .. "
           << static_cast<std::int64_t>(hi) << alt << ")";
        throw InputError(path, f.line, f.column, os.str());
      }
      if (*v != static_cast<double>(static_cast<std::int64_t>(*v)))
        throw InputError(path, f.line, f.column, std::string(names[k]) + ": '" + f.text + "' is not a whole number");
      if (!util::is_integer_text(f.text))
        throw InputError(path, f.line, f.column,
                         std::string(names[k]) + ": '" + f.text + "' is not written as an integer (expected decimal "
                         "digits without a point or an exponent, e.g. " + std::to_string(static_cast<std::int64_t>(*v)) +
                         ", as an integer key of TOML)");
      return static_cast<std::int64_t>(*v);
    };
    r.min_gpus = integer(kMinGpus, 1, static_cast<double>(kMaxTableGpus));
    r.max_gpus = cell(kMaxGpus).text == "inf" ? kNoGpuLimit : integer(kMaxGpus, 1, static_cast<double>(kMaxTableGpus));
    r.model = cell(kModel).text;
    const LlmSpec* llm = find_builtin_llm(r.model);
    if (!llm)
      throw InputError(path, cell(kModel).line, cell(kModel).column,
                       "unknown model '" + r.model + "' (expected a built-in model: " + builtin_model_list() + ")");
    r.gpus_per_stage = static_cast<int>(integer(kGpusPerStage, 1, kMaxGpusPerStage));
    r.stages = cell(kStages).text == "N/g" ? kStagesFromGpus : static_cast<int>(integer(kStages, 0, llm->layers));
    r.micro_batch_size = static_cast<int>(integer(kMicroBatchSize, 1, kMaxMicro));
    r.micro_batches = static_cast<int>(integer(kMicroBatches, 1, kMaxMicro));
    if (pos[kDataParallel] >= 0)
      r.data_parallel = cell(kDataParallel).text == "N/(g*S)" ? kReplicasFromGpus
                                                               : static_cast<int>(integer(kDataParallel, 0, kMaxDataParallel));
    check_values(path, r, *llm);
    if (!rules.empty()) check_order(path, rules.back(), r);
    rules.push_back(std::move(r));
  });
  if (!have_header) throw InputError(path, 0, 0, "empty shape table (expected a header line and rows)");
  if (rules.empty()) throw InputError(path, 0, 0, "the shape table has no rows (expected at least one, e.g. 1,inf,llama2-7b,1,0,1,16)");
  return rules;
}

void check_shape_table(const std::vector<ShapeRule>& rules, const std::string& path, const GpuType& reference,
                       const ComputeOptions& compute) {
  if (rules.empty()) throw InputError(where(path), 0, 0, "the shape table has no rows");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const ShapeRule& r = rules[i];
    const LlmSpec* llm = find_builtin_llm(r.model);
    if (!llm) fail(path, r, kModel, "unknown model '" + r.model + "' (expected a built-in model: " + builtin_model_list() + ")");
    check_values(path, r, *llm);
    if (i > 0) check_order(path, rules[i - 1], r);
    const std::string on = std::to_string(r.gpus_per_stage) + " x " + reference.name;
    if (r.data_parallel == kFlexibleReplicas) {
      // Its slots keep slots x m within the cells (flexible_slots); its row's smallest job must
      // have a split whose stages fit the reference GPU (larger ones have more splits; the
      // scenario's cluster is checked when the trace is loaded).
      if (first_fitting_variant(r, *llm, r.min_gpus, reference, compute) < 0)
        fail(path, r, kMinGpus, llm->name + " on " + std::to_string(mapped_stages(r, *llm, r.min_gpus)) +
                                    " slots (N = " + std::to_string(r.min_gpus) + ") has no D x S split whose stages fit " + on +
                                    " (expected a larger min_gpus, more gpus_per_stage or fewer micro_batches)");
      continue;
    }
    int s_lo = r.stages, s_hi = r.stages;
    if (r.stages == 0) {
      s_lo = s_hi = min_feasible_stages(*llm, r.micro_batch_size, r.micro_batches, r.gpus_per_stage, reference.memory_bytes, compute);
      if (s_lo == 0)
        fail(path, r, kModel, llm->name + " fits no stage count on " + on + " per stage (expected more gpus_per_stage, a smaller "
                              "micro_batch_size or fewer micro_batches; --reference-gpu picks the GPU)");
    } else if (r.stages == kStagesFromGpus) {
      s_lo = mapped_stages(r, *llm, r.min_gpus);
      s_hi = r.max_gpus == kNoGpuLimit ? llm->layers : mapped_stages(r, *llm, r.max_gpus);
    }
    // the most replicas a row gives (N/(g*S) grows with N; its S is fixed)
    const std::int64_t d_hi = r.data_parallel != kReplicasFromGpus ? r.data_parallel
                              : r.max_gpus == kNoGpuLimit         ? kMaxDataParallel
                                                                  : mapped_data_parallel(r, r.max_gpus);
    for (int s = s_lo; s <= s_hi; ++s) {
      const std::int64_t cells = d_hi * s * r.micro_batches;
      if (cells > kMaxPipelineCells)
        fail(path, r, kMicroBatches, (d_hi > 1 ? std::to_string(d_hi) + " replicas x " : std::string()) + std::to_string(s) +
                                         " stages x " + std::to_string(r.micro_batches) + " micro-batches = " +
                                         std::to_string(cells) + " pipeline cells per iteration (expected at most " +
                                         std::to_string(kMaxPipelineCells) + ")");
      Job j;
      j.stages = s;
      j.gpus_per_stage = r.gpus_per_stage;
      j.micro_batch_size = r.micro_batch_size;
      j.micro_batches = r.micro_batches;
      const JobProfile p = make_profile(j, *llm, compute);
      double need = 0;
      for (const double m : p.memory_bytes) need = std::max(need, m);
      bool fits = true;
      for (int k = 0; k < s && fits; ++k) fits = p.stage_fits(k, reference);
      if (!fits) {
        const std::string n = r.stages == kStagesFromGpus
                                  ? " (N = " + std::to_string(std::max<std::int64_t>(r.min_gpus, static_cast<std::int64_t>(s) * r.gpus_per_stage)) + ")"
                                  : std::string();
        fail(path, r, r.stages == kStagesFromGpus ? kMinGpus : kStages,
             llm->name + " at " + std::to_string(s) + (s == 1 ? " stage" : " stages") + n + " needs up to " + gb(need) +
                 " per stage, more than " + on + " (" + gb(r.gpus_per_stage * reference.memory_bytes) +
                 ") (expected more gpus_per_stage, more stages, a larger min_gpus or stages = 0)");
      }
    }
  }
}

Job flexible_job_of(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus) {
  Job j;
  j.data_parallel = kFlexibleReplicas;
  j.stages = flexible_slots(rule, llm, gpus);
  j.gpus_per_stage = rule.gpus_per_stage;
  j.micro_batch_size = rule.micro_batch_size;
  j.micro_batches = rule.micro_batches;
  j.iterations = 1;
  return j;
}

int first_fitting_variant(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus, const GpuType& reference,
                          const ComputeOptions& compute) {
  // a cluster of one region of the reference GPU, large enough for a stage
  Topology topo;
  topo.gpu_types = {reference};
  Region r;
  r.gpu_count = rule.gpus_per_stage;
  topo.regions = {r};
  return first_variant_that_fits(data_parallel_variants(flexible_job_of(rule, llm, gpus), llm), llm, topo, compute);
}

int flexible_slots(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus) {
  const std::int64_t cap = std::min<std::int64_t>({kMaxPipelineCells / rule.micro_batches,
                                                   std::int64_t{kMaxDataParallel} * llm.layers, kMaxFlexibleSlots});
  const std::int64_t n0 = std::clamp<std::int64_t>(gpus / rule.gpus_per_stage, 1, cap);
  // n has a split iff n = D·S with D | m, D <= kMaxDataParallel and S <= L: the largest n <= n0
  // is the largest D·min(L, floor(n0/D)) over those D (D = 1 gives at least 1). O(min(m, 4096)).
  std::int64_t best = 1;
  for (std::int64_t D = 1; D <= std::min<std::int64_t>(rule.micro_batches, kMaxDataParallel) && D <= n0; ++D)
    if (rule.micro_batches % D == 0) best = std::max(best, D * std::min<std::int64_t>(llm.layers, n0 / D));
  return static_cast<int>(best);
}

int mapped_stages(const ShapeRule& rule, const LlmSpec& llm, std::int64_t gpus) {
  if (rule.data_parallel == kFlexibleReplicas) return flexible_slots(rule, llm, gpus);
  if (rule.stages != kStagesFromGpus) return rule.stages;
  // a fixed D: its replicas share the N GPUs (N/(g*S) needs a fixed S: check_values)
  const std::int64_t d = rule.data_parallel == kReplicasFromGpus ? 1 : rule.data_parallel;
  return static_cast<int>(std::clamp<std::int64_t>(gpus / (rule.gpus_per_stage * d), 1, llm.layers));
}

int mapped_data_parallel(const ShapeRule& rule, std::int64_t gpus) {
  if (rule.data_parallel != kReplicasFromGpus) return rule.data_parallel;
  const std::int64_t per_replica = static_cast<std::int64_t>(rule.gpus_per_stage) * std::max(rule.stages, 1);
  return static_cast<int>(std::clamp<std::int64_t>(gpus / per_replica, 1, kMaxDataParallel));
}

bool has_data_parallel(const std::vector<ShapeRule>& rules) {
  return std::any_of(rules.begin(), rules.end(), [](const ShapeRule& r) { return r.data_parallel != 1; });
}

int find_shape(const std::vector<ShapeRule>& rules, std::int64_t gpus) {
  const auto it = std::upper_bound(rules.begin(), rules.end(), gpus,
                                   [](std::int64_t n, const ShapeRule& r) { return n < r.min_gpus; });
  if (it == rules.begin()) return -1;
  const auto k = static_cast<int>(it - rules.begin()) - 1;
  return gpus <= rules[static_cast<std::size_t>(k)].max_gpus ? k : -1;
}

std::string stages_text(const ShapeRule& rule) {
  return rule.stages == kStagesFromGpus ? std::string("N/g") : std::to_string(rule.stages);
}

std::string data_parallel_text(const ShapeRule& rule) {
  return rule.data_parallel == kReplicasFromGpus ? std::string("N/(g*S)") : std::to_string(rule.data_parallel);
}

std::string max_gpus_text(const ShapeRule& rule) {
  return rule.max_gpus == kNoGpuLimit ? std::string("inf") : std::to_string(rule.max_gpus);
}

std::string shape_table_csv(const std::vector<ShapeRule>& rules) {
  const bool dp = has_data_parallel(rules);  // the optional column only when a row needs it
  const std::size_t n = dp ? kNumShapeColumns : kNumRequiredShapeColumns;
  std::string s;
  for (std::size_t k = 0; k < n; ++k) s += std::string(k ? "," : "") + shape_column_names()[k];
  s += "\n";
  for (const ShapeRule& r : rules)
    s += std::to_string(r.min_gpus) + "," + max_gpus_text(r) + "," + r.model + "," + std::to_string(r.gpus_per_stage) + "," +
         stages_text(r) + "," + std::to_string(r.micro_batch_size) + "," + std::to_string(r.micro_batches) +
         (dp ? "," + data_parallel_text(r) : std::string()) + "\n";
  return s;
}

}  // namespace geopipe::traceimport
