// geopipe validate FILE [--set path=value ...]: parse and check a scenario, run nothing.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "config/scenario_loader.h"
#include "util/input_error.h"

namespace geopipe::cli {

void add_validate_command(CLI::App& app, int& rc) {
  struct Args {
    std::string file;
    std::vector<std::string> sets;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a scenario file and print a short summary (runs nothing)");
  cmd->add_option("file", args->file, "Scenario file (TOML)")->required();
  cmd->add_option("--set", args->sets, "Override a scenario parameter before validating (`geopipe list params` lists them)")->take_all();
  cmd->callback([args, &rc] {
    rc = guarded([&] {
      std::vector<config::Override> ov;
      for (const auto& s : args->sets) ov.push_back(config::parse_override(s));
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
