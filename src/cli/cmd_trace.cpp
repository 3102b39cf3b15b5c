// geopipe trace import --format FORMAT IN -o OUT [--states S,...] [--min-gpus N] [--max-gpus N]
//                      [--from S] [--to S] [--limit N] [--time-scale X] [--arrival-offset S]
//                      [--reference-gpu GPU] [--shape-table FILE] [--skip-bad-rows]
//                      [--keep-duplicates] [--force]
// geopipe trace shape-table
// The importer is src/traceimport (docs/trace-import.md); this file parses flags, reads the
// files, prints the summary and writes the output through util::OutputFile.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "config/input_file.h"
#include "config/schema.h"
#include "traceimport/trace_import.h"
#include "util/csv_read.h"
#include "util/input_error.h"
#include "util/output_file.h"
#include "util/system.h"

namespace geopipe::cli {
namespace {

struct ImportArgs {
  std::string format, input, output, states, min_gpus, max_gpus, from, to, limit, time_scale, arrival_offset,
      reference_gpu, shape_table;
  bool skip_bad_rows = false, keep_duplicates = false, force = false;
};

/// A decimal number (util/csv_read.h parse_decimal: no hex, inf or nan); its range is checked
/// by the importer, which names the flag too.
double decimal_flag(std::string_view flag, const std::string& text, std::string_view expected) {
  const std::optional<double> v = util::parse_decimal(text);
  if (!v) throw InputError(std::string(flag), 0, 0, "'" + text + "' is not a number (expected " + std::string(expected) + ")");
  return *v;
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const traceimport::FormatInfo& f : traceimport::formats()) {
    names.push_back(f.name);
    for (const std::string& a : f.aliases) names.push_back(a);
  }
  return names;
}

/// `text` as one shell word (quoted when it holds anything but [A-Za-z0-9_./=:,+-]).
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-") ==
                                          std::string::npos;
  if (plain) return text;
  std::string q = "'";
  for (const char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The command as typed, for the output's first comment (flags in a fixed order).
std::string command_line(const ImportArgs& a, const CLI::App& cmd) {
  std::string s = "geopipe trace import --format " + shell_word(a.format) + " " + shell_word(a.input) + " -o " + shell_word(a.output);
  for (const char* name : {"--states", "--min-gpus", "--max-gpus", "--from", "--to", "--limit", "--time-scale", "--arrival-offset",
                           "--reference-gpu", "--shape-table"}) {
    const CLI::Option* o = cmd.get_option_no_throw(name);
    if (o == nullptr) continue;
    for (const std::string& v : o->results()) s += std::string(" ") + name + " " + shell_word(v);
  }
  for (const char* name : {"--skip-bad-rows", "--keep-duplicates"}) {
    const CLI::Option* o = cmd.get_option_no_throw(name);
    if (o != nullptr && o->count() > 0) s += std::string(" ") + name;
  }
  return s;
}

traceimport::ImportOptions import_options(const ImportArgs& a, const CLI::App& cmd) {
  traceimport::ImportOptions opt;
  const traceimport::FormatInfo* f = traceimport::find_format(a.format);
  if (!f)
    throw InputError("--format", 0, 0,
                     "unknown format '" + a.format + "'" + util::suggestion_suffix(a.format, format_names()) + " (expected one of " +
                         util::quoted_list(format_names()) + ")");
  opt.format = f->format;
  auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  if (given("--states")) {
    for (std::size_t start = 0; start <= a.states.size();) {
      const std::size_t comma = a.states.find(',', start);
      std::string s = a.states.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (s.empty()) throw InputError("--states", 0, 0, "an empty state in '" + a.states + "' (expected states separated by commas, e.g. COMPLETED,TIMEOUT)");
      opt.states.push_back(std::move(s));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  constexpr std::uint64_t kMaxGpus = static_cast<std::uint64_t>(traceimport::kMaxTableGpus);
  if (given("--min-gpus")) opt.min_gpus = static_cast<std::int64_t>(parse_unsigned_flag("--min-gpus", a.min_gpus, 1, kMaxGpus));
  if (given("--max-gpus")) opt.max_gpus = static_cast<std::int64_t>(parse_unsigned_flag("--max-gpus", a.max_gpus, 1, kMaxGpus));
  if (given("--limit")) opt.limit = static_cast<std::int64_t>(parse_unsigned_flag("--limit", a.limit, 1, 1'000'000'000));
  if (given("--from")) opt.from_s = decimal_flag("--from", a.from, "seconds after the first submit, e.g. 86400");
  if (given("--to")) opt.to_s = decimal_flag("--to", a.to, "seconds after the first submit, e.g. 604800");
  if (given("--time-scale")) opt.time_scale = decimal_flag("--time-scale", a.time_scale, "a factor > 0, e.g. 0.5");
  if (given("--arrival-offset")) opt.arrival_offset_s = decimal_flag("--arrival-offset", a.arrival_offset, "seconds >= 0, e.g. 3600");
  if (given("--reference-gpu")) opt.reference_gpu = a.reference_gpu;
  if (given("--shape-table")) {
    std::string text;
    if (auto why = config::read_input_file(a.shape_table, config::kMaxTraceBytes, text))
      throw InputError(a.shape_table, 0, 0, "cannot read the shape table: " + *why);
    opt.shapes = traceimport::parse_shape_table(text, a.shape_table);
    opt.shape_table_path = a.shape_table;
  }
  opt.skip_bad_rows = a.skip_bad_rows;
  opt.keep_duplicates = a.keep_duplicates;
  return opt;
}

int do_import(const ImportArgs& a, const CLI::App& cmd) {
  const traceimport::ImportOptions opt = import_options(a, cmd);
  const std::vector<std::string> inputs = {a.input, a.shape_table};
  util::check_output_path(a.output, inputs, "-o", "the imported trace");
  if (util::path_exists(a.output) && !a.force)
    throw InputError("-o", 0, 0, "'" + a.output + "' exists (expected --force to replace it, or another path)");
  util::check_can_create(a.output, "-o", "the imported trace");
  std::string text;
  if (auto why = config::read_input_file(a.input, traceimport::kMaxImportBytes, text))
    throw InputError(a.input, 0, 0, "cannot read the trace: " + *why);
  const traceimport::ImportResult r = traceimport::import_trace(text, a.input, opt);
  std::cerr << traceimport::import_summary(r, opt, a.input);
  if (r.rows_kept() == 0)
    throw InputError(a.input, 0, 0, "no row kept, so no trace written (the summary above counts why each row was dropped)");
  if (r.rows_kept() > config::schema::kMaxJobs)
    throw InputError(a.input, 0, 0, std::to_string(r.rows_kept()) + " rows kept, more than the " + std::to_string(config::schema::kMaxJobs) +
                                        " jobs a geopipe trace holds (expected --limit, --to or fewer states)");
  util::OutputFile out(a.output, inputs, "-o", "the imported trace");
  traceimport::write_trace_csv(out.stream(), r, opt, command_line(a, cmd), a.input);
  out.commit();
  std::cerr << "wrote " << util::printable_text(a.output) << ": " << r.rows_kept() << " jobs, arrivals "
            << fmt::format("{:.6g} .. {:.6g}", r.jobs.front().arrival_s, r.jobs.back().arrival_s) << " s\n";
  return kExitOk;
}

}  // namespace

void add_trace_command(CLI::App& app, int& rc) {
  CLI::App* trace = app.add_subcommand("trace", "Job traces: import a public GPU-cluster trace as a geopipe trace CSV (docs/trace-import.md)");
  trace->require_subcommand(1);

  auto a = std::make_shared<ImportArgs>();
  CLI::App* imp = trace->add_subcommand(
      "import", "Convert a Philly, Helios/Acme or Alibaba 2023 trace into geopipe's trace CSV (workload.trace), with a summary");
  imp->add_option("--format", a->format, "Trace format: philly, helios (or acme), alibaba-2023")->required();
  imp->add_option("input", a->input, "The trace file (CSV)")->required();
  imp->add_option("-o,--output", a->output, "The geopipe trace to write (refused if it exists, unless --force)")->required();
  imp->add_option("--states", a->states, "States kept, comma-separated (default: completed-like: helios COMPLETED; alibaba-2023 Succeeded,Running)");
  imp->add_option("--min-gpus", a->min_gpus, "Drop rows with fewer GPUs (default 1)");
  imp->add_option("--max-gpus", a->max_gpus, "Drop rows with more GPUs (default: no limit)");
  imp->add_option("--from", a->from, "Keep rows submitted at least this many seconds after the first submit (default 0)");
  imp->add_option("--to", a->to, "Keep rows submitted less than this many seconds after the first submit (default: all)");
  imp->add_option("--limit", a->limit, "Keep at most the first N rows by submit time (default: all)");
  imp->add_option("--time-scale", a->time_scale, "Multiply arrival gaps and run times by this factor (default 1)");
  imp->add_option("--arrival-offset", a->arrival_offset, "Arrival of the first kept row, s (default 0)");
  imp->add_option("--reference-gpu", a->reference_gpu, "GPU type that run times are measured on (default A100-80GB, as the generator)");
  imp->add_option("--shape-table", a->shape_table, "CSV mapping GPU counts to model and shape (default: the built-in table; geopipe trace shape-table prints it)");
  imp->add_flag("--skip-bad-rows", a->skip_bad_rows, "Count and skip malformed rows instead of failing");
  imp->add_flag("--keep-duplicates", a->keep_duplicates, "Keep rows that repeat an earlier row exactly (default: dropped)");
  imp->add_flag("--force", a->force, "Replace the output if it exists (never an input)");
  imp->callback([a, imp, &rc] {
    rc = guarded([&] {
      reject_empty_values(*imp);
      return do_import(*a, *imp);
    });
  });

  CLI::App* shapes = trace->add_subcommand("shape-table", "Print the built-in shape table of trace import as CSV (a start for --shape-table)");
  shapes->callback([&rc] {
    rc = guarded([&] {
      std::cout << "# geopipe trace import's built-in shape table (docs/trace-import.md): GPU count N -> model, g, S, b, m\n"
                << traceimport::shape_table_csv(traceimport::default_shape_table());
      return kExitOk;
    });
  });
}

}  // namespace geopipe::cli
