#include "traceimport/trace_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "model/flexible_job.h"
#include "model/gpu.h"
#include "model/llm.h"
#include "traceimport/format_reader.h"
#include "util/csv.h"
#include "util/csv_read.h"
#include "util/hash.h"
#include "util/input_error.h"
#include "util/named_table.h"

namespace geopipe::traceimport {
namespace {

/// A 128-bit digest of a row's cells (two independent 64-bit hashes over the cells, each cell
/// length-prefixed): rows with equal cells have equal digests; two different rows collide with
/// probability about 2^-128 per pair (docs/trace-import.md, "Duplicates").
struct Digest {
  std::uint64_t a = 0, b = 0;
  bool operator==(const Digest&) const = default;
};

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

Digest row_digest(const util::CsvRecord& rec) {
  Digest d{util::kFnv1a64Basis, 0x243F6A8885A308D3ULL};
  for (const util::CsvCell& c : rec.cells) {
    const std::uint64_t n = c.text.size();
    for (int k = 0; k < 8; ++k) {  // the length, byte by byte (little-endian, whatever the host)
      const auto byte = static_cast<unsigned char>((n >> (8 * k)) & 0xFF);
      d.a = (d.a ^ byte) * util::kFnv1a64Prime;
      d.b = (d.b + byte + 1) * 0x9E3779B97F4A7C15ULL;
      d.b ^= d.b >> 29;
    }
    d.a = util::fnv1a64(c.text, d.a);
    for (const char ch : c.text) {
      d.b = (d.b + static_cast<unsigned char>(ch) + 1) * 0x9E3779B97F4A7C15ULL;
      d.b ^= d.b >> 29;
    }
  }
  d.b = mix64(d.b);
  return d;
}

/// An open-addressing set of digests: 16 bytes a slot, at most half full.
class DigestSet {
 public:
  /// Adds `d`; false if it was there already.
  bool insert(Digest d) {
    if (d.a == 0 && d.b == 0) d.b = 1;  // (0, 0) marks an empty slot
    if ((size_ + 1) * 2 > slots_.size()) grow();
    if (!place(slots_, d)) return false;
    ++size_;
    return true;
  }

 private:
  std::vector<Digest> slots_;
  std::size_t size_ = 0;

  static bool place(std::vector<Digest>& slots, const Digest& d) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(mix64(d.a)) & mask;; i = (i + 1) & mask) {
      if (slots[i] == d) return false;
      if (slots[i].a == 0 && slots[i].b == 0) {
        slots[i] = d;
        return true;
      }
    }
  }
  void grow() {
    std::vector<Digest> bigger(slots_.empty() ? 1024 : slots_.size() * 2);
    for (const Digest& d : slots_)
      if (d.a != 0 || d.b != 0) place(bigger, d);
    slots_.swap(bigger);
  }
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

/// Six significant digits, for the comments ("2.38232").
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string list_text(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// The kept states in the format's own spelling; InputError("--states") for a state the format
/// does not know, or for --states with a format that has no state column.
std::vector<std::string> resolve_states(const ImportOptions& opt, const FormatInfo& info) {
  if (info.known_states.empty()) {
    if (!opt.states.empty())
      throw InputError("--states", 0, 0,
                       "--format " + info.name + " has no state column (every row is a finished job; expected no --states)");
    return {};
  }
  if (opt.states.empty()) return info.default_states;
  std::vector<std::string> out;
  for (const std::string& s : opt.states) {
    const auto it = std::find_if(info.known_states.begin(), info.known_states.end(),
                                 [&](const std::string& k) { return detail::upper_ascii(k) == detail::upper_ascii(s); });
    if (it == info.known_states.end())
      throw InputError("--states", 0, 0,
                       "unknown state '" + s + "' for --format " + info.name + " (expected some of " + list_text(info.known_states) + ")");
    if (std::find(out.begin(), out.end(), *it) == out.end()) out.push_back(*it);
  }
  return out;
}

void check_options(const ImportOptions& opt) {
  if (opt.min_gpus < 1) throw InputError("--min-gpus", 0, 0, "'" + std::to_string(opt.min_gpus) + "' is not valid (expected at least 1)");
  if (opt.max_gpus < opt.min_gpus)
    throw InputError("--max-gpus", 0, 0, std::to_string(opt.max_gpus) + " is below --min-gpus " + std::to_string(opt.min_gpus) +
                                             " (expected max >= min)");
  if (!(opt.from_s >= 0 && opt.from_s <= kMaxArrivalSpanS))
    throw InputError("--from", 0, 0, "'" + number(opt.from_s) + "' is not valid (expected seconds from 0 to 1e12)");
  if (!(opt.to_s > opt.from_s))
    throw InputError("--to", 0, 0, "'" + number(opt.to_s) + "' is not after --from " + number(opt.from_s) + " (expected --to > --from)");
  if (opt.limit < 0) throw InputError("--limit", 0, 0, "'" + std::to_string(opt.limit) + "' is not valid (expected a count >= 1)");
  if (!(opt.time_scale > 0 && opt.time_scale <= 1e6))
    throw InputError("--time-scale", 0, 0, "'" + number(opt.time_scale) + "' is not valid (expected a factor > 0 and <= 1e6)");
  if (!(opt.arrival_offset_s >= 0 && opt.arrival_offset_s <= kMaxArrivalSpanS))
    throw InputError("--arrival-offset", 0, 0, "'" + number(opt.arrival_offset_s) + "' is not valid (expected seconds from 0 to 1e12)");
}

const GpuType& reference_gpu(const std::string& name) {
  if (const GpuType* g = find_builtin_gpu(name)) return *g;
  throw InputError("--reference-gpu", 0, 0,
                   "unknown GPU '" + name + "' (expected a built-in GPU: " + util::joined_names(builtin_gpus()) + ")");
}

/// T_ref per (shape row, S), computed once each.
class TrefCache {
 public:
  TrefCache(const std::vector<ShapeRule>& shapes, const GpuType& ref, const ComputeOptions& compute)
      : shapes_(shapes), ref_(ref), compute_(compute), table_(shapes.size()) {
    for (const ShapeRule& r : shapes) {
      llms_.push_back(find_builtin_llm(r.model));  // checked by check_shape_table
      s_ref_.push_back(r.stages == 0 ? min_feasible_stages(*llms_.back(), r.micro_batch_size, r.micro_batches, r.gpus_per_stage,
                                                           ref.memory_bytes, compute)
                                     : 0);
    }
  }
  const LlmSpec& llm(std::size_t k) const { return *llms_[k]; }
  /// S of the T_ref of a job written with `stages` (0: the smallest that fits the reference GPU).
  int effective_stages(std::size_t k, int stages) const { return stages == 0 ? s_ref_[k] : stages; }
  double t_ref_s(std::size_t k, int s) {
    std::vector<double>& row = table_[k];
    if (row.empty()) row.assign(static_cast<std::size_t>(llms_[k]->layers) + 1, -1.0);
    double& t = row[static_cast<std::size_t>(s)];
    if (t < 0) {
      const ShapeRule& r = shapes_[k];
      Job j;
      j.stages = s;
      j.gpus_per_stage = r.gpus_per_stage;
      j.micro_batch_size = r.micro_batch_size;
      j.micro_batches = r.micro_batches;
      j.iterations = 1;
      t = reference_iteration_time_s(j, *llms_[k], ref_, compute_);
    }
    return t;
  }
  /// T_ref of a flexible row's job of `gpus` GPUs: its first variant whose stages fit the
  /// reference GPU (first_fitting_variant; the first variant if none does), per slot count.
  double t_ref_flexible_s(std::size_t k, std::int64_t gpus) {
    const ShapeRule& r = shapes_[k];
    const Job flex = flexible_job_of(r, *llms_[k], gpus);
    const auto key = std::make_pair(k, flex.stages);
    if (auto it = flexible_.find(key); it != flexible_.end()) return it->second;
    const std::vector<Job> vs = data_parallel_variants(flex, *llms_[k]);
    const int v = std::max(0, first_fitting_variant(r, *llms_[k], gpus, ref_, compute_));
    const double t = reference_iteration_time_s(vs[static_cast<std::size_t>(v)], *llms_[k], ref_, compute_);
    flexible_.emplace(key, t);
    return t;
  }

 private:
  const std::vector<ShapeRule>& shapes_;
  const GpuType& ref_;
  const ComputeOptions& compute_;
  std::vector<const LlmSpec*> llms_;
  std::vector<int> s_ref_;
  std::vector<std::vector<double>> table_;  ///< [shape][S], -1 = not yet
  std::map<std::pair<std::size_t, int>, double> flexible_;  ///< (flexible row, slots) -> T_ref
};

}  // namespace

const std::vector<FormatInfo>& formats() {
  static const std::vector<FormatInfo> f = {
      {Format::kPhilly, "philly", {}, {}, {}},
      {Format::kHelios,
       "helios",
       {"acme"},
       {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
        "REQUEUED", "RUNNING", "PENDING", "SUSPENDED", "REVOKED"},
       {"COMPLETED"}},
      {Format::kAlibaba2023, "alibaba-2023", {}, {"Succeeded", "Running", "Failed", "Pending"}, {"Succeeded", "Running"}},
  };
  return f;
}

const FormatInfo* find_format(std::string_view name) {
  for (const FormatInfo& f : formats()) {
    if (f.name == name) return &f;
    for (const std::string& a : f.aliases)
      if (a == name) return &f;
  }
  return nullptr;
}

const FormatInfo& format_info(Format format) {
  for (const FormatInfo& f : formats())
    if (f.format == format) return f;
  return formats().front();
}

std::string_view drop_key(DropReason r) {
  static constexpr std::string_view kKeys[kNumDropReasons] = {"bad_row", "duplicate", "state", "no_gpu",
                                                              "fractional_gpu", "too_few_gpus", "too_many_gpus", "no_shape",
                                                              "duration", "window", "limit"};
  return kKeys[static_cast<std::size_t>(r)];
}

std::string_view drop_phrase(DropReason r) {
  static constexpr std::string_view kPhrases[kNumDropReasons] = {
      "malformed row (--skip-bad-rows)",
      "the same cells as an earlier row",
      "state not kept",
      "no GPU (a CPU-only job)",
      "a share of one GPU",
      "fewer GPUs than --min-gpus",
      "more GPUs than --max-gpus",
      "no shape-table row for the GPU count",
      "run time <= 0 s",
      "submit time outside --from/--to",
      "beyond --limit"};
  return kPhrases[static_cast<std::size_t>(r)];
}

std::int64_t ImportResult::rows_dropped() const {
  std::int64_t n = 0;
  for (const std::int64_t d : dropped) n += d;
  return n;
}

ImportResult import_trace(std::string_view text, const std::string& path, const ImportOptions& opt) {
  check_options(opt);
  const FormatInfo& info = format_info(opt.format);
  ImportResult r;
  r.states = resolve_states(opt, info);
  const GpuType& ref = reference_gpu(opt.reference_gpu);
  r.shapes = opt.shapes.empty() ? default_shape_table() : opt.shapes;
  const std::string table_name =
      opt.shapes.empty() ? std::string() : opt.shape_table_path.empty() ? std::string("the shape table") : opt.shape_table_path;
  check_shape_table(r.shapes, table_name, ref, opt.compute);
  TrefCache tref(r.shapes, ref, opt.compute);
  for (std::size_t k = 0; k < r.shapes.size(); ++k) {
    const ShapeRule& s = r.shapes[k];
    if (s.data_parallel == kFlexibleReplicas) {  // its slots may exceed the layers: T_ref of its split
      r.t_ref_s.push_back(tref.t_ref_flexible_s(k, s.min_gpus));
      continue;
    }
    const int lo = mapped_stages(s, tref.llm(k), s.min_gpus);
    r.t_ref_s.push_back(tref.t_ref_s(k, tref.effective_stages(k, lo)));
  }

  const std::unique_ptr<detail::FormatReader> reader = detail::make_reader(opt.format, path, r.states);
  auto drop = [&](DropReason why) { ++r.dropped[static_cast<std::size_t>(why)]; };
  bool have_header = false;
  std::size_t columns = 0;
  DigestSet seen;
  detail::RowFields f;
  std::vector<ImportedJob>& jobs = r.jobs;
  util::for_each_csv_record(text, path, [&](util::CsvRecord& rec) {
    if (!have_header) {
      columns = reader->header(rec);
      have_header = true;
      return;
    }
    ++r.rows_read;
    try {
      if (rec.cells.size() != columns)
        throw InputError(path, rec.line, 1,
                         "expected " + std::to_string(columns) + " fields (the header's), found " + std::to_string(rec.cells.size()));
      if (!opt.keep_duplicates && !seen.insert(row_digest(rec))) return drop(DropReason::kDuplicate);
      if (!reader->row(rec, f)) return drop(DropReason::kState);
      if (f.gpus == 0) return drop(DropReason::kNoGpu);
      if (f.fractional_gpu) return drop(DropReason::kFractionalGpu);
      const auto n = static_cast<std::int64_t>(f.gpus);
      if (n < opt.min_gpus) return drop(DropReason::kTooFewGpus);
      if (n > opt.max_gpus) return drop(DropReason::kTooManyGpus);
      const int k = find_shape(r.shapes, n);
      if (k < 0) return drop(DropReason::kNoShape);
      if (!(f.run_s > 0)) return drop(DropReason::kDuration);
      const auto ku = static_cast<std::size_t>(k);
      const ShapeRule& shape = r.shapes[ku];
      ImportedJob j;
      j.shape = k;
      j.stages = mapped_stages(shape, tref.llm(ku), n);
      j.data_parallel = mapped_data_parallel(shape, n);
      const double t_ref = j.data_parallel == kFlexibleReplicas ? tref.t_ref_flexible_s(ku, n)
                                                                : tref.t_ref_s(ku, tref.effective_stages(ku, j.stages));
      const double run = f.run_s * opt.time_scale;
      if (!(run / t_ref <= kMaxJobIterations))
        throw InputError(path, f.run_cell->line, f.run_cell->column,
                         "a run time of " + number(f.run_s) + " s x --time-scale " + number(opt.time_scale) + " gives " +
                             number(run / t_ref) + " iterations of " + shape.model + " at " + number(t_ref) +
                             " s each (expected at most 1e15 iterations)");
      j.iterations = iterations_for_run_length(run, t_ref);
      j.submit_s = f.submit_s;
      j.run_s = f.run_s;
      j.gpus = n;
      j.line = rec.line;
      j.submit_column = f.submit_cell->column;
      jobs.push_back(j);
    } catch (const InputError& e) {
      if (!opt.skip_bad_rows) throw;
      drop(DropReason::kBadRow);
      if (r.first_bad_row.empty()) r.first_bad_row = e.what();
    }
  });
  if (!have_header) throw InputError(path, 0, 0, "empty trace (expected a header line and rows)");
  if (jobs.empty()) return r;

  r.t0_s = std::min_element(jobs.begin(), jobs.end(), [](const ImportedJob& a, const ImportedJob& b) {
             return a.submit_s < b.submit_s;
           })->submit_s;
  const auto outside = std::stable_partition(jobs.begin(), jobs.end(), [&](const ImportedJob& j) {
    const double d = j.submit_s - r.t0_s;
    return d >= opt.from_s && d < opt.to_s;
  });
  r.dropped[static_cast<std::size_t>(DropReason::kWindow)] += jobs.end() - outside;
  jobs.erase(outside, jobs.end());
  std::stable_sort(jobs.begin(), jobs.end(), [](const ImportedJob& a, const ImportedJob& b) { return a.submit_s < b.submit_s; });
  if (opt.limit > 0 && r.rows_kept() > opt.limit) {
    r.dropped[static_cast<std::size_t>(DropReason::kLimit)] += r.rows_kept() - opt.limit;
    jobs.resize(static_cast<std::size_t>(opt.limit));
  }
  if (jobs.empty()) return r;
  r.t1_s = jobs.front().submit_s;
  for (ImportedJob& j : jobs) {
    j.arrival_s = opt.arrival_offset_s + (j.submit_s - r.t1_s) * opt.time_scale;
    if (!(j.arrival_s <= kMaxArrivalSpanS))
      throw InputError(path, j.line, j.submit_column,
                       "this row arrives at " + number(j.arrival_s) + " s, beyond the 1e12 s a geopipe trace holds (expected a "
                       "smaller --time-scale or --arrival-offset, or a --to)");
  }
  return r;
}

void write_trace_csv(std::ostream& os, const ImportResult& r, const ImportOptions& opt, std::string_view command,
                     std::string_view input) {
  const FormatInfo& info = format_info(opt.format);
  auto comment = [&](const std::string& s) { os << "# " << util::printable_text(s) << "\n"; };
  comment("Written by: " + std::string(command));
  std::string counts = std::to_string(r.rows_read) + " rows read, " + std::to_string(r.rows_kept()) + " kept, " +
                       std::to_string(r.rows_dropped()) + " dropped";
  std::string why;
  for (std::size_t k = 0; k < kNumDropReasons; ++k)
    if (r.dropped[k]) why += (why.empty() ? ": " : ", ") + std::string(drop_key(static_cast<DropReason>(k))) + " " + std::to_string(r.dropped[k]);
  comment("Input: " + std::string(input) + " (--format " + info.name + "), " + counts + why);
  comment(info.known_states.empty() ? std::string("States: no state column, every row kept")
                                    : "States kept: " + list_text(r.states));
  comment("Rows: GPUs " + std::to_string(opt.min_gpus) + " .. " + (opt.max_gpus == kNoGpuLimit ? std::string("inf") : std::to_string(opt.max_gpus)) +
          "; submit - t0 in [" + number(opt.from_s) + ", " + (std::isinf(opt.to_s) ? std::string("inf") : number(opt.to_s)) +
          ") s with t0 = " + number(r.t0_s) + " on the trace's clock; limit " + (opt.limit > 0 ? std::to_string(opt.limit) : std::string("none")) +
          "; duplicates " + (opt.keep_duplicates ? "kept" : "dropped"));
  comment("arrival_s = " + number(opt.arrival_offset_s) + " + (submit - " + number(r.t1_s) + ") x " + number(opt.time_scale) +
          " (the first kept submit arrives at " + number(opt.arrival_offset_s) + " s)");
  comment("iterations = max(1, round(duration_s x " + number(opt.time_scale) + " / T_ref)), T_ref = compute-only iteration time on " +
          opt.reference_gpu + " (mfu " + (opt.compute.mfu ? number(*opt.compute.mfu) : std::string("calibrated")) +
          ", tp_efficiency " + number(opt.compute.tp_efficiency) + ", optimizer_step_s " + number(opt.compute.optimizer_step_s) +
          ", recompute " + (opt.compute.recompute == Recompute::kFull ? "full" : "none") + ", " +
          std::string(opt.compute.schedule().name()) + ")");
  comment("Shape table (" + (opt.shapes.empty() ? std::string("built-in default") : opt.shape_table_path) +
          "; N = the row's GPUs, N/g: S = floor(N/(g*D)) in 1..layers; N/(g*S): D = floor(N/(g*S)); D = 0: the scheduler "
          "chooses D for S = N/g slots), with T_ref at its smallest S:");
  for (std::size_t k = 0; k < r.shapes.size(); ++k) {
    const ShapeRule& s = r.shapes[k];
    comment("  " + std::to_string(s.min_gpus) + ".." + max_gpus_text(s) + " GPUs -> " + s.model + ", g = " +
            std::to_string(s.gpus_per_stage) + ", S = " + stages_text(s) + ", b = " + std::to_string(s.micro_batch_size) +
            ", m = " + std::to_string(s.micro_batches) + (s.data_parallel != 1 ? ", D = " + data_parallel_text(s) : std::string()) +
            "; T_ref " + short_number(r.t_ref_s[k]) + " s");
  }
  // The data_parallel column only when a row of the table gives D != 1 (a trace of one-pipeline
  // jobs stays as before, byte for byte).
  const bool dp = has_data_parallel(r.shapes);
  os << "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations" << (dp ? ",data_parallel" : "") << '\n';
  for (const ImportedJob& j : r.jobs) {
    const ShapeRule& s = r.shapes[static_cast<std::size_t>(j.shape)];
    os << util::csv_number(j.arrival_s) << ',' << util::csv_field(s.model) << ',' << j.stages << ',' << s.gpus_per_stage << ','
       << s.micro_batch_size << ',' << s.micro_batches << ',' << j.iterations;
    if (dp) os << ',' << j.data_parallel;
    os << '\n';
  }
}

std::string import_summary(const ImportResult& r, const ImportOptions& opt, std::string_view input) {
  const FormatInfo& info = format_info(opt.format);
  std::ostringstream os;
  os << "trace import (--format " << info.name << "): " << util::printable_text(input) << ": " << r.rows_read << " rows read, " << r.rows_kept()
     << " kept, " << r.rows_dropped() << " dropped\n";
  for (std::size_t k = 0; k < kNumDropReasons; ++k) {
    const auto why = static_cast<DropReason>(k);
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %-15s %10lld  ", std::string(drop_key(why)).c_str(), static_cast<long long>(r.dropped[k]));
    os << buf << drop_phrase(why);
    if (why == DropReason::kState)
      os << (info.known_states.empty() ? std::string(" (no state column)") : " (kept: " + list_text(r.states) + ")");
    if (why == DropReason::kBadRow && !r.first_bad_row.empty()) os << "; the first: " << r.first_bad_row;
    os << "\n";
  }
  return os.str();
}

}  // namespace geopipe::traceimport
