// geopipe run SCENARIO.toml [--scheduler NAME|all] [--seed N] [--set path=value ...] [--json] [--jobs-csv FILE]
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/report.h"
#include "config/scenario_loader.h"
#include "util/input_error.h"
#include "sched/registry.h"
#include "sim/engine.h"

namespace geopipe::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string scheduler;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  bool json = false;
  std::string jobs_csv;
};

int do_run(const RunArgs& a) {
  std::vector<config::Override> overrides;
  for (const auto& s : a.sets) overrides.push_back(config::parse_override(s));
  const Scenario sc = config::load_scenario_file(a.scenario, overrides);
  std::vector<std::string> names;
  const std::string pick = a.scheduler.empty() ? sc.scheduler.preset : a.scheduler;
  if (pick == "all") {
    names = preset_names();
  } else {
    for (size_t start = 0; start <= pick.size();) {  // comma-separated list
      const size_t comma = pick.find(',', start);
      std::string n = pick.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!find_preset(n)) {
        std::string valid;
        for (const auto& p : preset_names()) valid += (valid.empty() ? "" : ", ") + p;
        throw InputError("--scheduler", 0, 0, "unknown scheduler '" + n + "' (expected all or one of: " + valid + ")");
      }
      names.push_back(n);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  std::unique_ptr<std::ofstream> csv;
  if (!a.jobs_csv.empty()) {
    csv = std::make_unique<std::ofstream>(a.jobs_csv);
    if (!*csv) throw InputError(a.jobs_csv, 0, 0, "cannot open for writing");
  }
  const std::uint64_t seed = a.seed.value_or(sc.seed);
  const std::vector<Job> jobs = sc.jobs_for_seed(seed);  // one trace for every scheduler
  std::vector<RunOutcome> runs;
  SimOptions opt;
  opt.record_jobs = csv != nullptr;
  for (const auto& n : names) {
    auto sched = make_scheduler(n, sc.scheduler);
    runs.push_back({n, simulate(sc, jobs, *sched, seed, opt)});
  }
  if (a.json)
    print_json(std::cout, sc, seed, runs);
  else
    print_table(std::cout, sc, seed, runs);
  if (csv) {
    write_jobs_csv(*csv, sc, runs);
    if (!*csv) throw std::runtime_error("error writing " + a.jobs_csv);
  }
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, int& rc) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate one scenario with one or more schedulers on the same job trace");
  cmd->add_option("scenario", args->scenario, "Scenario file (TOML)")->required();
  cmd->add_option("-s,--scheduler", args->scheduler,
                  "Preset name, comma-separated names, or 'all' (default: the scenario's [scheduler].preset)");
  cmd->add_option("--seed", args->seed, "Workload seed (default: [scenario].seed)");
  cmd->add_option("--set", args->sets, "Override a scenario parameter, e.g. --set network.bandwidth_scale=0.5 (`geopipe list params` lists them)")
      ->take_all();
  cmd->add_flag("--json", args->json, "Print the metrics as JSON instead of a table");
  cmd->add_option("--jobs-csv", args->jobs_csv, "Write one row per job (and scheduler) to this CSV file");
  cmd->callback([args, &rc] { rc = guarded([&] { return do_run(*args); }); });
}

}  // namespace geopipe::cli
