// geopipe run SCENARIO.toml [--scheduler NAME|all] [--seed N] [--set path=value ...] [--json] [--jobs-csv FILE]
//                           [--timeline FILE]
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/report.h"
#include "cli/timeline_json.h"
#include "config/scenario_loader.h"
#include "util/input_error.h"
#include "util/named_table.h"
#include "sched/registry.h"
#include "sim/engine.h"
#include "sched/run_scheduler.h"
#include "util/output_file.h"
#include "util/system.h"

namespace geopipe::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string scheduler;
  bool scheduler_given = false;
  std::string seed;  ///< as typed; parsed strictly (cli/flags.h)
  bool seed_given = false;
  std::vector<std::string> sets;
  bool json = false;
  std::string jobs_csv;
  std::string timeline;
  bool timeline_given = false;
};

int do_run(const RunArgs& a) {
  std::vector<config::Override> overrides;
  for (const auto& s : a.sets) overrides.push_back(config::parse_override(s));
  const Scenario sc = config::load_scenario_file(a.scenario, overrides);
  std::vector<std::string> names;
  if (a.scheduler_given) nonempty_flag("--scheduler", a.scheduler, "a preset name, names separated by commas, or all");
  const std::string pick = a.scheduler_given ? a.scheduler : sc.scheduler.preset;
  if (pick == "all") {
    names = preset_names();
  } else {
    for (size_t start = 0; start <= pick.size();) {  // comma-separated list
      const size_t comma = pick.find(',', start);
      std::string n = pick.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!find_preset(n)) {
        throw InputError("--scheduler", 0, 0,
                         "unknown scheduler '" + n + "'" + util::suggestion_suffix(n, preset_names()) +
                             " (expected all or one of: " + util::joined_names(presets()) + ")");
      }
      names.push_back(n);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  const bool want_csv = !a.jobs_csv.empty();
  if (want_csv) {
    util::check_output_path(a.jobs_csv, {a.scenario, sc.trace_path}, "--jobs-csv", "the per-job CSV");
    util::check_can_create(a.jobs_csv, "--jobs-csv", "the per-job CSV");
  }
  const bool want_timeline = a.timeline_given;
  if (want_timeline) check_timeline_path(a.timeline, {a.scenario, sc.trace_path}, a.jobs_csv);
  const std::uint64_t seed = a.seed_given ? parse_unsigned_flag("--seed", a.seed, 0, UINT64_MAX) : sc.seed;
  const std::vector<Job> jobs = sc.jobs_for_seed(seed);  // one trace for every scheduler
  std::vector<RunOutcome> runs;
  SimOptions opt;
  opt.record_jobs = want_csv || want_timeline;  // the timeline's slices name their job records
  opt.record_timeline = want_timeline;
  std::vector<std::string> failures;  // a scheduler that left jobs waiting (sim/engine.h SimulationFailure)
  for (const auto& n : names) {
    auto sched = make_run_scheduler(n, sc.scheduler);
    try {
      runs.push_back({n, simulate(sc, jobs, *sched, seed, opt)});
    } catch (const SimulationFailure& e) {
      failures.emplace_back(e.what());
    }
  }
  if (!runs.empty()) {
    if (a.json)
      print_json(std::cout, sc, seed, runs);
    else
      print_table(std::cout, sc, seed, runs);
  }
  if (!failures.empty()) {  // the others' rows are printed; nothing is written; exit 1 naming each
    for (const auto& f : failures) std::cerr << "geopipe: error: " << util::printable_text(f) << "\n";
    if (want_csv || want_timeline)
      std::cerr << "geopipe: not written (a run failed): " << (want_csv ? a.jobs_csv : "")
                << (want_csv && want_timeline ? ", " : "") << (want_timeline ? a.timeline : "") << "\n";
    return util::kExitInternal;
  }
  if (want_csv) {  // written only now: a run that fails (e.g. its event budget) leaves the path alone
    util::OutputFile csv(a.jobs_csv, {a.scenario, sc.trace_path}, "--jobs-csv", "the per-job CSV");
    write_jobs_csv(csv.stream(), sc, runs);
    csv.commit();
  }
  if (want_timeline) write_timeline_file(a.timeline, sc, seed, runs);  // PATH.tmp, then renamed
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, int& rc) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate one scenario with one or more schedulers on the same job trace");
  cmd->add_option("scenario", args->scenario, "Scenario file (TOML)")->required();
  CLI::Option* sched = cmd->add_option("-s,--scheduler", args->scheduler,
                                       "Preset name, comma-separated names, or 'all' (default: the scenario's [scheduler].preset)");
  CLI::Option* seed = cmd->add_option("--seed", args->seed, "Workload seed, 0 to 2^64-1 (default: [scenario].seed)");
  cmd->add_option("--set", args->sets, "Override a scenario parameter, e.g. --set network.bandwidth_scale=0.5 (`geopipe list params` lists them)")
      ->take_all();
  cmd->add_flag("--json", args->json, "Print the metrics as JSON instead of a table");
  cmd->add_option("--jobs-csv", args->jobs_csv, "Write one row per job (and scheduler) to this CSV file");
  CLI::Option* timeline = cmd->add_option(
      "--timeline", args->timeline,
      "Write a Chrome trace-event JSON timeline of the run(s) to this file, for ui.perfetto.dev or chrome://tracing "
      "(docs/timeline.md)");
  cmd->callback([args, cmd, sched, seed, timeline, &rc] {
    args->scheduler_given = sched->count() > 0;
    args->timeline_given = timeline->count() > 0;
    args->seed_given = seed->count() > 0;
    rc = guarded([&] {
      reject_empty_values(*cmd);
      return do_run(*args);
    });
  });
}

}  // namespace geopipe::cli
