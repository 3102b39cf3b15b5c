// `geopipe sweep`: loads and expands the sweep, opens the output (results/output.h) on rank 0,
// then runs the master (rank 0) or a worker (other ranks), run/master.h.
#include "run/runner.h"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "sweepfile/quick_sweep.h"
#include "sweepfile/loader.h"
#include "run/batch_executor.h"
#include "run/master.h"
#include "run/mpi_api.h"
#include "results/output.h"
#include "plan/plan.h"
#include "plan/replication.h"
#include "results/result_table.h"
#include "sim/model_version.h"
#include "run/signals.h"
#include "util/exit_codes.h"
#include "util/input_error.h"
#include "util/output_file.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace {

/// Says that a large sweep's points were checked by a sample (SweepLoadOptions).
std::string checked_note(const config::SweepSpec& spec) {
  const std::string what = spec.design == "grid" ? "every value of every axis, every [[point]], a sample of the rest"
                                                 : "every value on its own, a sample of the points";
  return "geopipe sweep '" + spec.name + "': checked " + std::to_string(spec.points_checked) + " of " +
         std::to_string(spec.num_points()) + " points at load (" + what +
         "; another invalid point fails when it runs: --check-all-points checks all)";
}

void print_dry_run(const config::SweepSpec& spec, const Plan& plan, const std::string& output) {
  std::printf("sweep '%s': %zu points x %zu seeds x %zu schedulers = %llu scenarios", spec.name.c_str(),
              spec.num_points(), spec.seeds.size(), spec.schedulers.size(),
              static_cast<unsigned long long>(plan.total()));
  if (plan.shards() > 1)
    std::printf(" (shard %llu/%llu: %llu)", static_cast<unsigned long long>(plan.shard()),
                static_cast<unsigned long long>(plan.shards()), static_cast<unsigned long long>(plan.shard_total()));
  std::printf("\n%s\nschedulers:", make_evaluator(spec)->describe().c_str());
  for (const auto& s : spec.schedulers) std::printf(" %s", s.c_str());
  if (const auto& r = spec.replication) {
    std::printf("\nseeds: %llu to %llu per point, in rounds until the %g%% CI half-width of %s%s is <= %g%% of |mean|",
                static_cast<unsigned long long>(r->min), static_cast<unsigned long long>(r->max), 100 * r->confidence,
                r->metric.c_str(), r->paired_vs.empty() ? "" : (" (paired change vs " + r->paired_vs + ")").c_str(),
                100 * r->rel_ci);
    if (r->abs_ci > 0) std::printf(" or <= %g", r->abs_ci);
    std::printf(" (the count above is the most it can run)\n");
  } else {
    std::printf("\nseeds: %zu (", spec.seeds.size());
    for (size_t k = 0; k < spec.seeds.size() && k < 10; ++k)
      std::printf("%s%llu", k ? " " : "", static_cast<unsigned long long>(spec.seeds[k]));
    std::printf("%s)\n", spec.seeds.size() > 10 ? " ..." : "");
  }
  for (const auto& o : spec.fixed) std::printf("fixed: %s = %s\n", o.path.c_str(), o.value.c_str());
  if (!spec.checked_all) std::printf("%s\n", checked_note(spec).c_str());
  const size_t show = std::min<size_t>(spec.num_points(), 10);
  std::printf("first %zu of %zu points:\n", show, spec.num_points());
  for (size_t p = 0; p < show; ++p) {
    std::printf("  point %zu:", p);
    const config::SweepPoint pt = spec.point(p);
    for (size_t c = 0; c < spec.columns.size(); ++c)
      if (!pt.text[c].empty()) std::printf(" %s=%s", spec.columns[c].param.c_str(), pt.text[c].c_str());
    std::printf("\n");
  }
  std::string state = "new";
  if (output.empty()) state = "none given: -o OUT.h5 to run";
  else if (const auto why = util::not_a_regular_file(output)) state = *why + ": it would be refused";
  else if (util::path_exists(output)) state = "exists: --resume continues or grows it, --force replaces it";
  std::printf("output: %s (%s)\n", output.empty() ? "-" : output.c_str(), state.c_str());
}

/// The generated sweep file of a sweep from the command line, ready to be committed, or null
/// when there is none to write (no generated sweep, or the file already holds this text).
/// `inputs`: the sweep's base scenario and traces. InputError when its path is one of them or
/// the output, or holds another sweep without --resume
/// or --force, or holds a file geopipe did not generate (never replaced).
std::unique_ptr<util::OutputFile> prepare_generated_sweep(const SweepOptions& opt, const std::vector<std::string>& inputs) {
  if (opt.generated_text.empty() || !opt.write_generated) return nullptr;
  const std::string& path = opt.sweep_file;
  std::vector<std::string> all = inputs;  // the base and the traces; the generated file is not one
  all.push_back(opt.output);
  for (const std::string& in : all)
    if (!in.empty() && util::same_file(path, in))
      throw InputError(path, 0, 0, "the sweep file generated from --base/--axis would be written here, but this is " +
                                       std::string(in == opt.output ? "the output (-o)" : "an input of the sweep (" + in + ")") +
                                       "; an input is never overwritten (expected another -o, whose name gives OUT.sweep.toml)");
  if (util::path_exists(path)) {
    std::string old;
    {
      std::ifstream in(path, std::ios::binary);
      old.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (old == opt.generated_text) return nullptr;
    if (old.rfind(config::kGeneratedSweepMarker, 0) != 0)
      throw InputError(path, 0, 0, "exists and is not a sweep file that geopipe generated (it does not start with '" +
                                       std::string(config::kGeneratedSweepMarker) +
                                       "'); it is never replaced, not even with --force (expected another -o, or remove it)");
    if (!opt.resume && !opt.force)
      throw InputError(path, 0, 0, "exists with another sweep (expected --resume to grow the study in " + opt.output +
                                       " to this one, or --force to replace it)");
  }
  auto f = std::make_unique<util::OutputFile>(path, all, path, "the generated sweep file");
  f->write(opt.generated_text);
  return f;
}

/// MPI for the length of a run, when used: its module loaded (run/mpi_api.h) and MPI
/// initialised at construction, finalised at destruction unless the job was aborted.
class MpiSession {
 public:
  explicit MpiSession(bool use) : used_(use) {
    if (used_) mpi_api().init(&rank_, &ranks_);
  }
  ~MpiSession() {
    if (used_) mpi_api().finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool used() const { return used_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// Rank 0's `code` on every rank.
  int broadcast(int code) const {
    if (used_) mpi_api().broadcast_int(&code);
    return code;
  }
  /// Ends every rank of the job with `code` (never returns).
  [[noreturn]] void abort(int code) const {
    if (used_) mpi_api().abort(code);
    std::exit(code);
  }

 private:
  bool used_;
  int rank_ = 0, ranks_ = 1;
};

/// Passes results to the output and to the rounds of a precision-driven sweep.
class RoundSink final : public ResultSink {
 public:
  RoundSink(ResultSink& out, Replication& rep, const Plan& plan, const config::ReplicationRule& rule)
      : out_(out), rep_(rep), plan_(plan), rule_(rule) {}
  void append(const ScenarioResult& r) override {
    const ScenarioKey k = plan_.key(static_cast<std::uint64_t>(r.id));
    rep_.record(k.point, k.seed_index, k.scheduler_index, r.ok, r.ok ? Replication::metric_value(rule_, r.metrics) : 0.0);
    ids.push_back(r.id);
    out_.append(r);
  }
  void flush() override { out_.flush(); }
  void finalize() override { out_.finalize(); }
  std::vector<std::int64_t> ids;  ///< every id appended (unsorted)

 private:
  ResultSink& out_;
  Replication& rep_;
  const Plan& plan_;
  const config::ReplicationRule& rule_;
};

/// Rank 0 of a sweep with `seeds = { min, max, rel_ci, ... }`: replays the rounds that the
/// results at hand (a resumed file's) complete, then runs round after round until every point
/// stopped (plan/replication.h), telling the workers before each round whether one follows.
int run_rounds(const SweepOptions& opt, const ExecContext& cx, const config::SweepSpec& spec, const Plan& plan,
               OpenedOutput& output, const Table& resumed, const MpiSession& mpi, int threads) {
  const config::ReplicationRule& rule = *spec.replication;
  Replication rep(rule, spec.num_points(), spec.schedulers);
  // A resumed file's results, matched by content key to this sweep's ids (output.done).
  if (output.resumed) {
    std::unordered_map<std::string, double> by_key;
    const auto name = std::find(resumed.names.begin(), resumed.names.end(), rule.metric);
    const auto key = std::find(resumed.text_names.begin(), resumed.text_names.end(), "key");
    if (name != resumed.names.end() && key != resumed.text_names.end()) {
      const auto& values = resumed.numeric[static_cast<std::size_t>(name - resumed.names.begin())];
      const auto& keys = resumed.text[static_cast<std::size_t>(key - resumed.text_names.begin())];
      for (std::size_t i = 0; i < keys.size(); ++i) by_key.emplace(keys[i], values[i]);
    }
    for (const std::int64_t id : output.done) {
      const ScenarioKey k = plan.key(static_cast<std::uint64_t>(id));
      const config::PointKeyPrefix prefix(spec.point_digests[k.point], kModelVersion);
      const auto it = by_key.find(prefix.key(spec.seeds[k.seed_index], spec.schedulers[k.scheduler_index]).hex());
      // Without a metrics row the scenario failed (its row is in /errors).
      rep.record(k.point, k.seed_index, k.scheduler_index, it != by_key.end(), it != by_key.end() ? it->second : 0.0);
    }
  }
  RoundSink sink(*output.sink, rep, plan, rule);
  std::vector<std::int64_t> done = output.done;
  MasterOutcome total;
  int code = util::kExitOk;
  bool finished = false;
  while (true) {
    while (rep.round_complete())  // decide every round the results at hand complete
      if (rep.next_round() == 0) {
        finished = true;
        break;
      }
    if (finished || stop_requested()) break;
    if (!opt.quiet)
      std::cerr << "geopipe sweep '" << spec.name << "': round " << rep.rounds() << ": " << rep.scenarios()
                << " scenarios in the rounds so far (" << rep.count(PrecisionState::kRunning) << " of " << spec.num_points()
                << " points still adding seeds), " << mpi.ranks() << " rank(s) x " << threads << " thread(s) -> "
                << opt.output << "\n";
    mpi.broadcast(1);
    const MasterOutcome o = run_master(opt, cx, sink, done, mpi.ranks(), threads, mpi.used(), RoundOptions{&rep.allowances(), false});
    total.computed += o.computed;
    total.failed += o.failed;
    total.abandoned_workers = total.abandoned_workers || o.abandoned_workers;
    done.insert(done.end(), sink.ids.begin(), sink.ids.end());
    sink.ids.clear();
    std::sort(done.begin(), done.end());
    if (o.exit_code != util::kExitOk && o.exit_code != util::kExitFailures) {
      code = o.exit_code;
      break;
    }
  }
  mpi.broadcast(0);
  if (finished) {
    output.sink->finalize();
    code = total.failed ? util::kExitFailures : util::kExitOk;
  } else if (code == util::kExitOk) {
    code = util::kExitInterrupted;  // stopped between rounds
  }
  output.sink.reset();
  if (!opt.quiet) {
    std::cerr << "geopipe sweep '" << spec.name << "': " << (finished ? "every point stopped" : "interrupted") << " after "
              << rep.rounds() << " round(s): " << rep.count(PrecisionState::kConverged) << " points reached the precision, "
              << rep.count(PrecisionState::kMaxSeeds) << " ran out of seeds (max " << rule.max << "), "
              << rep.count(PrecisionState::kFailed) << " had a failed scenario"
              << (finished ? "" : ", " + std::to_string(rep.count(PrecisionState::kRunning)) + " still adding seeds") << "; "
              << opt.output << " holds " << done.size() << " scenarios (reused " << output.done.size() << ", computed "
              << total.computed << ")" << (finished ? "" : ": rerun with --resume to finish") << "\n";
  }
  if (total.abandoned_workers || (code == util::kExitInternal && mpi.used())) mpi.abort(code);
  return code;
}

/// Is `path` a file to create, in a directory that exists and can take it?
bool new_output_file(const std::string& path) {
  if (path.empty() || util::path_exists(path)) return false;
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return ::access(dir.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

void install_sweep_stop_handlers() { install_stop_handlers(); }

int run_sweep(const SweepOptions& opt) {
  // Handlers first: a signal that arrives during start-up (MPI_Init can take a second under
  // srun) must also end the run resumably instead of killing the process.
  install_stop_handlers();
  MpiSession mpi(opt.mpi == 1 || (opt.mpi == -1 && launched_by_mpi()));
  const bool report = mpi.rank() == 0;  // only rank 0 prints errors
  const int threads = opt.threads > 0 ? opt.threads : tbb::info::default_concurrency();
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads) + 1);
  tbb::task_arena arena(threads);

  // Every rank validates the same input (cheap) and fails the same way; only rank 0 reports.
  std::optional<config::SweepSpec> spec;
  int code = util::guarded(
      [&] {
        config::SweepLoadOptions load;
        load.check_all_points = opt.check_all_points || opt.save_jobs;
        if (!opt.generated_text.empty()) load.text = opt.generated_text;
        try {
          spec = config::load_sweep_file(opt.sweep_file, opt.sets, load);
        } catch (const InputError& e) {  // an error in the generated text is one of the flags'
          if (opt.generated_text.empty() || e.file() != opt.sweep_file) throw;
          // Named by the flag that wrote the key: the user never saw the generated file.
          const std::string& m = e.message();
          std::string flag = opt.generated_origin;
          if (m.rfind("sweep.seeds", 0) == 0) flag = "--seeds";
          else if (m.rfind("sweep.schedulers", 0) == 0) flag = "--schedulers";
          else if (m.rfind("sweep.name", 0) == 0) flag = "--name";
          else if (m.rfind("[sweep.set]", 0) == 0 || m.rfind("sweep.set", 0) == 0) flag = "--set";
          throw InputError(flag, 0, 0, m);
        }
        if (opt.shards == 0 || opt.shard >= opt.shards)
          throw InputError("--shard", 0, 0, "expected K/N with 0 <= K < N");
        if (spec->replication && opt.shards > 1)
          throw InputError("--shard", 0, 0,
                           "this sweep's seeds = { ... } decides each point's seeds from all its results, so its "
                           "points cannot be split by seed across shards (expected a fixed number of seeds, or no --shard)");
        return util::kExitOk;
      },
      {report, ""});
  if (code != util::kExitOk) return code;
  const Plan plan(spec->num_points(), spec->seeds.size(), spec->schedulers.size(), opt.shard, opt.shards);
  const std::unique_ptr<PointEvaluator> evaluator = make_evaluator(*spec);
  const ExecContext cx{&*spec, evaluator.get(), &plan, ExecuteOptions{opt.save_jobs, opt.null_scenarios}, &arena};
  // A new output (no result to reuse, none that exists or is an input to refuse): rank 0's
  // threads compute the first scenarios while the output is checked and created, instead of
  // waiting for both (a few ms of every sweep; docs/sweep-runner.md, "Execution").
  std::unique_ptr<StartedMaster> started;
  if (!opt.dry_run && mpi.rank() == 0 && !spec->replication && new_output_file(opt.output))
    started = std::make_unique<StartedMaster>(opt, cx, mpi.ranks(), threads, mpi.used());
  // A sweep the output cannot hold is refused now, like any other bad input (--dry-run too).
  code = util::guarded(
      [&] {
        OutputRequest rq;
        rq.path = opt.output.empty() ? std::string("out.h5") : opt.output;
        rq.save_jobs = opt.save_jobs;
        rq.version = opt.version;
        check_output(rq, *spec, plan);
        return util::kExitOk;
      },
      {report, ""});
  if (code != util::kExitOk) return code;
  if (opt.dry_run) {
    if (report) {
      print_dry_run(*spec, plan, opt.output);
      if (opt.write_generated)
        std::printf("sweep file: %s (%s)\n", opt.sweep_file.c_str(),
                    util::path_exists(opt.sweep_file) ? "exists" : "written when the sweep runs");
    }
    return util::kExitOk;
  }

  // Rank 0 decides whether the run can start (output rules) and tells the others.
  OpenedOutput output;
  Table resumed;  // a resumed file's results, for the rounds of a precision-driven sweep
  if (mpi.rank() == 0) {
    code = util::guarded([&] {
      if (opt.output.empty()) throw InputError("-o", 0, 0, "missing output file (expected -o OUT.h5)");
      std::vector<std::string> inputs = {spec->path, spec->base_path};
      inputs.insert(inputs.end(), spec->trace_paths.begin(), spec->trace_paths.end());
      inputs.insert(inputs.end(), spec->design_paths.begin(), spec->design_paths.end());
      for (const std::string& in : inputs)
        if (util::same_file(opt.output, in))
          throw InputError("-o", 0, 0, "'" + opt.output + "' is an input of this sweep (" + in +
                                           "); it is never overwritten (expected a result file path)");
      OutputRequest rq;
      rq.path = opt.output;
      rq.resume = opt.resume;
      rq.force = opt.force;
      rq.save_jobs = opt.save_jobs;
      rq.durable = opt.durable;
      rq.layout = "ranks=" + std::to_string(mpi.ranks()) + " threads=" + std::to_string(threads);
      rq.version = opt.version;
      if (spec->replication && opt.resume && util::path_exists(opt.output)) resumed = read_results(opt.output);
      // A generated sweep file is written (to its temporary file now, renamed once the output
      // is open) only when everything else was accepted: a refused command writes nothing.
      std::unique_ptr<util::OutputFile> generated =
          prepare_generated_sweep(opt, std::vector<std::string>(inputs.begin() + 1, inputs.end()));  // all but spec->path
      output = open_output(rq, *spec, plan);
      if (generated) generated->commit();
      return util::kExitOk;
    });
  }
  if (mpi.broadcast(code) != util::kExitOk) return code;

  if (mpi.rank() != 0) {
    const std::string where = "rank " + std::to_string(mpi.rank());
    if (!spec->replication) {
      code = util::guarded([&] { return run_worker(cx); }, {true, where});
      if (code == util::kExitInternal) mpi.abort(code);
      return code;
    }
    // Rounds: rank 0 says before each whether one follows.
    code = util::kExitOk;
    while (mpi.broadcast(0) == 1) {
      const int c = util::guarded([&] { return run_worker(cx); }, {true, where});
      if (c == util::kExitInternal) mpi.abort(c);
      if (c != util::kExitOk) code = c;
    }
    return code;
  }
  if (spec->replication) return run_rounds(opt, cx, *spec, plan, output, resumed, mpi, threads);
  // What a resumed output holds and what this run adds, said before and after (docs/sweep-runner.md).
  const auto accounting = [&](std::uint64_t to_run) {
    std::string s = "reused " + std::to_string(output.done.size()) + ", to run " + std::to_string(to_run) +
                    ", no longer in the sweep " + std::to_string(output.retired);
    if (!output.retired_path.empty()) s += " (moved to " + output.retired_path + ")";
    return s;
  };
  const std::uint64_t to_run = plan.shard_total() - output.done.size();
  if (!opt.quiet && !spec->checked_all)
    std::cerr << checked_note(*spec) << "\n";
  if (!opt.quiet)
    std::cerr << "geopipe sweep '" << spec->name << "': " << plan.shard_total() << " scenarios"
              << (output.resumed ? " (" + accounting(to_run) + ")" : "") << ", " << mpi.ranks() << " rank(s) x "
              << threads << " thread(s) -> " << opt.output << "\n";
  MasterOutcome outcome;
  code = util::guarded(
      [&] {
        if (started) {
          if (output.resumed || !output.done.empty())
            throw std::logic_error("geopipe sweep: the output holds results, but the run started as a new one");
          outcome = started->run(*output.sink);
          started.reset();
        } else {
          outcome = run_master(opt, cx, *output.sink, output.done, mpi.ranks(), threads, mpi.used());
        }
        return outcome.exit_code;
      },
      {true, mpi.used() ? "rank 0" : ""});
  output.sink.reset();  // close the output first: it stays resumable whatever happens next
  if (!opt.quiet && output.resumed)
    std::cerr << "geopipe sweep '" << spec->name << "': " << opt.output << " holds "
              << output.done.size() + outcome.computed << " of " << plan.shard_total() << " scenarios: reused "
              << output.done.size() << ", computed " << outcome.computed << " ("
              << outcome.failed << " failed), not yet run " << to_run - outcome.computed << ", no longer in the sweep "
              << output.retired << (output.retired_path.empty() ? "" : " (in " + output.retired_path + ")") << "\n";
  // Workers stuck after a stop request, or an internal error: end the whole job.
  if (outcome.abandoned_workers || (code == util::kExitInternal && mpi.used())) mpi.abort(code);
  return code;
}

}  // namespace geopipe::sweep
