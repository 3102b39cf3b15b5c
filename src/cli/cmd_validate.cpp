// geopipe validate FILE [--set path=value ...]: parse and check a scenario (or a sweep), run nothing.
#include <fmt/format.h>

#include <sstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "config/input_file.h"
#include "config/scenario_loader.h"
#include "config/toml_limits.h"
#include "sweepfile/loader.h"
#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::cli {
namespace {

/// A file whose first table is [sweep] (or [sweep.set]) is a sweep file, not a scenario: the
/// check is textual (a scenario has no such table), so a broken sweep file still gets the
/// sweep loader's messages.
bool looks_like_sweep(const std::string& path) {
  // Read with the loaders' own bounded reader: a file it refuses (too large, not a regular
  // file, ...) is left to the scenario loader, which says why; a large file is never read
  // (a 1 GiB file without a newline took 11 s through getline).
  std::string text;
  if (config::read_input_file(path, config::kMaxTomlBytes, text)) return false;
  std::istringstream in(std::move(text));
  std::string line;
  for (int n = 0; n < 10000 && std::getline(in, line); ++n) {
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') continue;
    if (line[b] != '[') continue;
    const std::string t = line.substr(b);
    return t.rfind("[sweep]", 0) == 0 || t.rfind("[sweep.", 0) == 0 || t.rfind("[ sweep", 0) == 0;
  }
  return false;
}

}  // namespace

void add_validate_command(CLI::App& app, int& rc) {
  struct Args {
    std::string file;
    std::vector<std::string> sets;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a scenario or sweep file and print a short summary (runs nothing)");
  cmd->add_option("file", args->file, "Scenario or sweep file (TOML)")->required();
  cmd->add_option("--set", args->sets, "Override a scenario parameter before validating (`geopipe list params` lists them)")->take_all();
  cmd->callback([args, cmd, &rc] {
    rc = guarded([&] {
      reject_empty_values(*cmd);
      std::vector<config::Override> ov;
      for (const auto& s : args->sets) ov.push_back(config::parse_override(s));
      if (looks_like_sweep(args->file)) {  // checked as `geopipe sweep FILE --dry-run` would
        config::SweepLoadOptions all;
        all.check_all_points = true;
        const config::SweepSpec sp = config::load_sweep_file(args->file, ov, all);
        fmt::print("{}: ok: sweep '{}' (design {}), {} points x {} seeds x {} schedulers = {} scenarios, every point "
                   "checked (geopipe sweep {} --dry-run lists them)\n",
                   util::printable_text(args->file), util::printable_text(sp.name), sp.design, sp.num_points(),
                   sp.seeds.size(), sp.schedulers.size(), sp.num_scenarios(), util::printable_text(args->file));
        return kExitOk;
      }
      const Scenario sc = config::load_scenario_file(args->file, ov);
      // One line like every message: the file and scenario names are the user's text.
      fmt::print("{}: ok: scenario '{}', {} regions, {} GPUs, {} links, {} {}, scheduler {}\n",
                 util::printable_text(args->file), util::printable_text(sc.name),
                 sc.topology.num_regions(), sc.topology.total_gpus(), [&] {
                   int n = 0;
                   for (const auto& l : sc.topology.links) n += l.capacity_bytes_per_s > 0;
                   return n / 2;
                 }(),
                 sc.trace_jobs.empty() ? sc.workload.num_jobs : static_cast<int>(sc.trace_jobs.size()),
                 sc.trace_jobs.empty() ? "generated jobs" : "trace jobs", sc.scheduler.preset);
      return kExitOk;
    });
  });
}

}  // namespace geopipe::cli
