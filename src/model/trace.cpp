#include "model/trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "util/csv_read.h"
#include "util/input_error.h"
#include "util/named_table.h"
#include "model/flexible_job.h"
#include "model/workload.h"

namespace geopipe {
namespace {

/// A bound as it reads in a message ("0", "1e+15").
std::string shown(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

std::vector<Job> parse_trace_csv(const std::string& text, const std::string& file,
                                 const std::vector<LlmSpec>& llms, const Topology& topo,
                                 const ComputeOptions& compute) {
  // The first 7 are required; data_parallel (D, default 1) and slack_s (default 0) are optional.
  static const std::array<const char*, 9> kCols = {"arrival_s",     "model",      "stages",
                                                   "gpus_per_stage", "micro_batch_size", "micro_batches",
                                                   "iterations",    "data_parallel", "slack_s"};
  constexpr size_t kRequired = 7;
  std::array<int, 9> pos{};
  pos.fill(-1);
  size_t columns = 0;
  bool have_header = false;
  std::vector<Job> jobs;
  for (const util::CsvRecord& rec : util::read_csv(text, file)) {  // the one CSV syntax (util/csv_read.h)
    const int lineno = rec.line;
    const std::vector<util::CsvCell>& fields = rec.cells;
    if (!have_header) {
      for (size_t c = 0; c < fields.size(); ++c) {
        auto it = std::find(kCols.begin(), kCols.end(), fields[c].text);
        if (it == kCols.end())
          throw InputError(file, lineno, fields[c].column,
                           "unknown column '" + fields[c].text +
                               "' (expected arrival_s, model, stages, gpus_per_stage, micro_batch_size, micro_batches, iterations"
                               " and optionally data_parallel, slack_s)");
        const auto k = static_cast<size_t>(it - kCols.begin());
        if (pos[k] >= 0)
          throw InputError(file, lineno, fields[c].column,
                           "duplicate column '" + fields[c].text + "' (column " + std::to_string(c + 1) +
                               ", already column " + std::to_string(pos[k] + 1) + "; expected each column once)");
        pos[k] = static_cast<int>(c);
        ++columns;
      }
      for (size_t k = 0; k < kRequired; ++k)
        if (pos[k] < 0) throw InputError(file, lineno, 1, std::string("missing column '") + kCols[k] + "'");
      have_header = true;
      continue;
    }
    if (fields.size() != columns)
      throw InputError(file, lineno, 1, "expected " + std::to_string(columns) + " fields, found " +
                                           std::to_string(fields.size()));
    auto num = [&](size_t k, double lo, double hi) {
      const util::CsvCell& f = fields[static_cast<size_t>(pos[k])];
      const std::optional<double> parsed = util::parse_decimal(f.text);
      if (!parsed)
        throw InputError(file, lineno, f.column, std::string(kCols[k]) + ": '" + f.text + "' is not a number (expected decimal digits, e.g. 12, 0.5 or 1e3)");
      const double v = *parsed;
      if (!(v >= lo && v <= hi))
        throw InputError(file, lineno, f.column,
                         std::string(kCols[k]) + " = " + f.text + " is out of range (expected " + shown(lo) +
                             " .. " + shown(hi) + ")");
      return v;
    };
    auto integer = [&](size_t k, double lo, double hi) {
      const double v = num(k, lo, hi);
      if (v != static_cast<double>(static_cast<long long>(v))) {
        const util::CsvCell& f = fields[static_cast<size_t>(pos[k])];
        throw InputError(file, lineno, f.column, std::string(kCols[k]) + ": '" + f.text + "' is not an integer");
      }
      if (!util::is_integer_text(fields[static_cast<size_t>(pos[k])].text)) {
        const util::CsvCell& f = fields[static_cast<size_t>(pos[k])];
        throw InputError(file, lineno, f.column,
                         std::string(kCols[k]) + ": '" + f.text + "' is not written as an integer (expected decimal "
                         "digits without a point or an exponent, e.g. " + std::to_string(static_cast<long long>(v)) +
                         ", as an integer key of TOML)");
      }
      return static_cast<long long>(v);
    };
    Job j;
    j.arrival_s = num(0, 0, kMaxArrivalSpanS);
    const util::CsvCell& mf = fields[static_cast<size_t>(pos[1])];
    const LlmSpec* llm = util::find_named(llms, mf.text);
    if (!llm) throw InputError(file, lineno, mf.column, "unknown model '" + mf.text + "'");
    j.model = static_cast<int>(llm - llms.data());
    // data_parallel = 0: the scheduler chooses D; `stages` then counts GPU slots of g GPUs,
    // which may exceed the model's layers (model/flexible_job.h).
    if (pos[7] >= 0) j.data_parallel = static_cast<int>(integer(7, 0, kMaxDataParallel));
    if (pos[8] >= 0) j.slack_s = num(8, 0, kMaxSlackS);
    const auto stages = integer(2, 0, is_flexible(j) ? kMaxFlexibleSlots : llm->layers);
    j.gpus_per_stage = static_cast<int>(integer(3, 1, 4096));
    j.micro_batch_size = static_cast<int>(integer(4, 1, 1 << 20));
    j.micro_batches = static_cast<int>(integer(5, 1, 1 << 20));
    j.iterations = integer(6, 1, kMaxJobIterations);
    if (stages == 0) {
      ModelMixEntry e;
      e.gpus_per_stage = j.gpus_per_stage;
      e.micro_batch_size = j.micro_batch_size;
      e.micro_batches = j.micro_batches;
      j.stages = generated_stages(e, *llm, topo, compute);
      if (j.stages == 0)
        throw InputError(file, lineno, fields[static_cast<size_t>(pos[2])].column,
                         "model '" + llm->name + "' does not fit any GPU of the cluster at any stage count");
    } else {
      j.stages = static_cast<int>(stages);
    }
    if (is_flexible(j) && data_parallel_variants(j, *llm).empty())
      throw InputError(file, lineno, fields[static_cast<size_t>(pos[7])].column,
                       "data_parallel = 0: no split of " + std::to_string(j.stages) + " stages (GPU slots) into D replicas of S stages "
                       "with D dividing both the slots and micro_batches = " + std::to_string(j.micro_batches) +
                       " and S <= " + std::to_string(llm->layers) + " layers of model '" + llm->name +
                       "' (expected slots and micro-batches with a common divisor D >= slots / layers, or a fixed data_parallel)");
    // A flexible job's most cells are its variant of D = 1's (D·(N/D)·(m/D) = N·m/D).
    const std::int64_t cells = std::int64_t{std::max(j.data_parallel, 1)} * j.stages * j.micro_batches;
    if (cells > kMaxPipelineCells)
      throw InputError(file, lineno, fields[static_cast<size_t>(pos[5])].column,
                       "micro_batches: " + (j.data_parallel > 1 ? std::to_string(j.data_parallel) + " replicas x " : std::string()) +
                           std::to_string(j.stages) + " stages x " + std::to_string(j.micro_batches) +
                           " micro-batches = " + std::to_string(cells) +
                           " pipeline cells per iteration (expected at most " + std::to_string(kMaxPipelineCells) + ")");
    jobs.push_back(j);
  }
  if (!have_header) throw InputError(file, 0, 0, "empty trace (expected a header line and jobs)");
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<int>(i);
  return jobs;
}

}  // namespace geopipe
