// geopipe sweep | merge | summarize
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/commands.h"
#include "cli/flags.h"
#include "sweepfile/quick_sweep.h"
#include "config/scenario_loader.h"
#include "sweepfile/loader.h"
#include "util/input_error.h"
#include "util/system.h"
#include "results/output.h"
#include "run/runner.h"
#include "report/summarize.h"

#include "geopipe_version.h"

namespace geopipe::cli {
namespace {

/// The flags that define the sweep, as typed (the generated file's comment; flags of how it
/// runs, -o, --threads, ..., are left out so that they do not change the sweep's text).
std::string cmd_line(const CLI::App* cmd) {
  std::string s = "geopipe sweep";
  for (const char* name : {"--base", "--axis", "--schedulers", "--seeds", "--name", "--set"}) {
    const CLI::Option* o = cmd->get_option_no_throw(name);
    if (o == nullptr) continue;
    for (const std::string& v : o->results()) s += std::string(" ") + name + " " + v;
  }
  return s;
}

/// The sweep that --base/--axis/... stand for: its text in o.generated_text and its path,
/// OUT.sweep.toml next to the output (the output's name with .sweep.toml for its extension), in
/// o.sweep_file. Nothing is written here: the runner validates the text with everything else and
/// writes the file when the run starts (run/runner.h, SweepOptions::generated_text).
void generate_quick_sweep(config::QuickSweep q, sweep::SweepOptions& o, const std::string& line) {
  namespace fs = std::filesystem;
  if (q.base.empty()) throw InputError("--base", 0, 0, "empty path (expected the base scenario file)");
  std::error_code ec;
  const fs::path abs = fs::absolute(q.base, ec);
  q.base = (ec ? fs::path(q.base) : abs).lexically_normal().string();
  q.command = line;
  o.generated_text = config::quick_sweep_text(q);
  o.generated_origin = "--base/--axis";
  if (o.output.empty()) {
    if (!o.dry_run) throw InputError("-o", 0, 0, "missing output file (expected -o OUT.h5)");
    o.sweep_file = "--base/--axis";  // names the text in messages; nothing is written
    o.write_generated = false;
    return;
  }
  o.sweep_file = (fs::path(o.output).parent_path() / (fs::path(o.output).stem().string() + ".sweep.toml")).string();
  o.write_generated = true;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& rc) {
  struct Args {
    sweep::SweepOptions o;
    std::vector<std::string> sets;
    std::string shard, threads, progress_interval, flush_interval;  ///< as typed (cli/flags.h)
    bool no_mpi = false;
    config::QuickSweep quick;  ///< --base, --axis, --schedulers, --seeds, --name: a sweep without a file
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run every scenario of a sweep file into one HDF5 file (standalone, or under mpirun/srun)");
  cmd->add_option("file", a->o.sweep_file, "Sweep file (TOML), or none with --base");
  CLI::Option* base = cmd->add_option("--base", a->quick.base, "Without a sweep file: the base scenario of a sweep given by --axis, --schedulers, --seeds (written to OUT.sweep.toml)");
  cmd->add_option("--axis", a->quick.axes, "With --base: PARAM=V1,V2,... (repeat for a grid; the last varies fastest)")->take_all();
  CLI::Option* quick_sched = cmd->add_option("--schedulers", a->quick.schedulers, "With --base: presets a,b,... or all (default bace-pipe)");
  CLI::Option* quick_seeds = cmd->add_option("--seeds", a->quick.seeds, "With --base: seeds 1..N (default 1)");
  CLI::Option* quick_name = cmd->add_option("--name", a->quick.name, "With --base: the sweep's name (default: the base's file name + -sweep)");
  cmd->add_option("-o,--output", a->o.output, "Output HDF5 file");
  CLI::Option* threads = cmd->add_option("-t,--threads", a->threads,
                                         "oneTBB threads per process, 1 to " + std::to_string(kMaxThreads) +
                                             " (default, or 0: all hardware threads)");
  cmd->add_flag("--resume", a->o.resume, "Continue OUTPUT if it exists, else start it: reuses every result the sweep still has (also after the sweep changed), runs the rest");
  cmd->add_flag("--force", a->o.force, "Overwrite OUTPUT (ignored with --resume)");
  cmd->add_flag("--save-jobs", a->o.save_jobs, "Also store one row per job in /jobs");
  cmd->add_flag("--check-all-points", a->o.check_all_points,
                "Build every point's scenario at load time (default: all up to 20,000 points, else every value and a sample; implied by --save-jobs)");
  cmd->add_flag("--dry-run", a->o.dry_run, "Print the scenario count and the first points, run nothing");
  cmd->add_flag("-q,--quiet", a->o.quiet, "No progress output");
  CLI::Option* shard = cmd->add_option("--shard", a->shard, "Run only slice K of N (by point and seed): K/N");
  cmd->add_option("--set", a->sets, "Override a scenario parameter at every point (part of the sweep hash; `geopipe list params` lists them)")->take_all();
  CLI::Option* progress = cmd->add_option("--progress-interval", a->progress_interval,
                                          "Seconds between progress lines when stderr is not a terminal (default 10, at most 86400)");
  CLI::Option* flush = cmd->add_option("--flush-interval", a->flush_interval, "Seconds between HDF5 flushes (default 2, at most 86400)");
  cmd->add_flag("--durable", a->o.durable, "fsync OUTPUT after every flush (survives power loss; slower)");
  cmd->add_flag("--no-mpi", a->no_mpi, "Do not initialise MPI even when launched by mpirun/srun");
  cmd->add_flag("--null-scenarios", a->o.null_scenarios, "Benchmark only: scenarios return zero metrics at once")->group("");
  cmd->callback([a, cmd, base, quick_sched, quick_seeds, quick_name, threads, shard, progress, flush, &rc] {
    rc = guarded([&] {
      reject_empty_values(*cmd);
      if (base->count()) {
        if (!a->o.sweep_file.empty())
          throw InputError("--base", 0, 0, "a sweep file and --base were both given (expected one: a sweep file, or --base with --axis ...)");
        a->quick.sets = a->sets;  // in the generated file ([sweep.set]), so it alone reruns the sweep
        a->sets.clear();
        generate_quick_sweep(a->quick, a->o, cmd_line(cmd));
      } else {
        for (const CLI::Option* o : {quick_sched, quick_seeds, quick_name})
          if (o->count()) throw InputError(o->get_name(), 0, 0, "is for a sweep without a file (expected --base SCENARIO.toml too)");
        if (!a->quick.axes.empty()) throw InputError("--axis", 0, 0, "is for a sweep without a file (expected --base SCENARIO.toml too)");
        if (a->o.sweep_file.empty()) throw InputError("file", 0, 0, "missing sweep file (expected SWEEP.toml, or --base SCENARIO.toml --axis ...)");
      }
      for (const auto& s : a->sets) a->o.sets.push_back(config::parse_override(s));
      if (threads->count()) a->o.threads = static_cast<int>(parse_unsigned_flag("--threads", a->threads, 0, kMaxThreads));
      if (shard->count()) parse_shard_flag(a->shard, a->o.shard, a->o.shards);
      if (progress->count()) a->o.progress_interval_s = parse_seconds_flag("--progress-interval", a->progress_interval);
      if (flush->count()) a->o.flush_interval_s = parse_seconds_flag("--flush-interval", a->flush_interval);
      if (a->no_mpi) a->o.mpi = 0;
      a->o.version = GEOPIPE_VERSION;
      return sweep::run_sweep(a->o);
    });
  });
}

void add_merge_command(CLI::App& app, int& rc) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("merge", "Join result files (shards, extensions, other studies) by content");
  cmd->add_option("inputs", a->inputs, "Result files of the same model version")->required();
  cmd->add_option("-o,--output", a->output, "Merged output file (must not exist)")->required();
  cmd->callback([a, cmd, &rc] {
    rc = guarded([&] {
      reject_empty_values(*cmd);
      nonempty_flag("-o", a->output, "the merged output file");
      for (const auto& in : a->inputs) nonempty_flag("inputs", in, "result files");
      const sweep::MergeSummary m = sweep::merge_results(a->inputs, a->output);
      std::cerr << "geopipe: merged " << m.inputs << " files of " << m.sweeps << (m.sweeps == 1 ? " sweep" : " sweeps")
                << " -> " << a->output << ": " << m.scenarios << " scenarios, " << m.duplicates
                << " found in more than one file (kept once"
                << (m.repeats > 0 ? "; " + std::to_string(m.repeats) + " rows repeated within one file, as its design draws them" : "");
      if (m.checked > 0) std::cerr << "; " << m.checked << " results compared, all equal";
      std::cerr << ")" << (m.collection ? "; a collection: ids renumbered, points matched by content" : "") << "\n";
      return kExitOk;
    });
  });
}

void add_summarize_command(CLI::App& app, int& rc) {
  auto o = std::make_shared<sweep::SummarizeOptions>();
  CLI::App* cmd = app.add_subcommand("summarize", "Per-scheduler means with 95% CIs over seeds and paired changes vs a baseline");
  cmd->add_option("file", o->file, "Sweep result file (HDF5)")->required();
  cmd->add_option("--by", o->by, "Group by these axes (e.g. network.bandwidth_scale; default: per point)")->take_all();
  cmd->add_flag("--pool", o->pool, "One group of every point (default: per point)");
  cmd->add_option("--format", o->format, "table (default), csv or json");
  CLI::Option* baseline = cmd->add_option("--baseline", o->baseline, "Scheduler to compare against (default: the sweep's first)");
  cmd->add_option("--metric", o->metrics, "Metrics to show (default: avg_jct_s total_cost_usd)")->take_all();
  auto fairness = std::make_shared<bool>(false);
  cmd->add_flag("--fairness", *fairness,
                "Also show the fairness columns: max_ftf_rho unfair_fraction jain_fairness jct_lower_bound_s p99_queue_delay_s");
  cmd->add_flag("--precision", o->precision, "Per point: seeds, mean, CI half-width of a seeds = { min, max, rel_ci } sweep");
  cmd->add_flag("--allow-unfinished", o->allow_unfinished,
                "Summarize results whose scenarios left jobs unfinished (model version 1 files) instead of refusing them; "
                "they are flagged");
  cmd->callback([o, cmd, baseline, fairness, &rc] {
    rc = guarded([&] {
      reject_empty_values(*cmd);
      if (baseline->count()) nonempty_flag("--baseline", o->baseline, "a scheduler of the file");
      for (const auto& b : o->by) nonempty_flag("--by", b, "an axis of the sweep");
      for (const auto& m : o->metrics) nonempty_flag("--metric", m, "a metric name");
      if (*fairness) {  // after the metrics asked for (the defaults if none), each once
        if (o->metrics.empty()) o->metrics = {"avg_jct_s", "total_cost_usd"};
        for (const char* m : {"max_ftf_rho", "unfair_fraction", "jain_fairness", "jct_lower_bound_s", "p99_queue_delay_s"})
          if (std::find(o->metrics.begin(), o->metrics.end(), m) == o->metrics.end()) o->metrics.emplace_back(m);
      }
      o->plain = !util::stdout_is_terminal();
      sweep::summarize(*o, std::cout);
      return kExitOk;
    });
  });
}

}  // namespace geopipe::cli
