#include "sweep/runner.h"

#include <mpi.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <map>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "config/sweep_loader.h"
#include "util/input_error.h"
#include "sweep/execute.h"
#include "sweep/h5store.h"
#include "sweep/plan.h"
#include "sweep/progress.h"
#include "sweep/serialize.h"
#include "util/hash.h"
#include "util/exit_codes.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- signals
std::atomic<int> g_signal{0};
extern "C" void on_signal(int s) { g_signal.store(s); }

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int s : {SIGTERM, SIGUSR1, SIGINT}) sigaction(s, &sa, nullptr);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

// ---------------------------------------------------------------- MPI tags
constexpr int kTagResults = 1;       // worker -> master: results of the last batch (+ "give me more")
constexpr int kTagBatch = 2;         // master -> worker: id ranges
constexpr int kTagStop = 3;          // master -> worker: no more work
constexpr int kTagResultsFinal = 4;  // worker -> master: results, and I am leaving (I got a signal)

// ---------------------------------------------------------------- ids to run
// Walks the ids of our shard in increasing order, skipping those already done (sorted list),
// without materialising the id list: memory does not grow with the number of scenarios.
class IdCursor {
 public:
  IdCursor(const Plan& plan, const std::vector<std::int64_t>& done) : plan_(plan), done_(done) {
    remaining_ = plan.shard_total();
    for (std::int64_t d : done)
      if (d >= 0 && static_cast<std::uint64_t>(d) < plan.total() && plan.in_shard(static_cast<std::uint64_t>(d))) --remaining_;
    advance();
  }
  bool empty() const { return next_ >= plan_.total(); }
  std::uint64_t remaining() const { return remaining_; }
  /// Appends up to n ids as ranges; returns how many.
  std::uint64_t take(std::uint64_t n, std::vector<IdRange>& out) {
    std::uint64_t got = 0;
    while (got < n && !empty()) {
      const auto id = static_cast<std::int64_t>(next_);
      if (!out.empty() && out.back().last == id)
        ++out.back().last;
      else
        out.push_back({id, id + 1});
      ++got;
      ++next_;
      advance();
    }
    remaining_ -= got;
    return got;
  }

 private:
  // Move next_ to the first id >= next_ that is in the shard and not done.
  void advance() {
    const std::uint64_t S = plan_.schedulers();
    while (next_ < plan_.total()) {
      if (!plan_.in_shard(next_)) {  // jump to the first id of the next pair in our shard
        const std::uint64_t pair = next_ / S, N = plan_.shards(), K = plan_.shard();
        const std::uint64_t next_pair = pair + ((K + N - pair % N) % N);
        next_ = next_pair * S;
        continue;
      }
      while (dpos_ < done_.size() && done_[dpos_] < static_cast<std::int64_t>(next_)) ++dpos_;
      if (dpos_ < done_.size() && done_[dpos_] == static_cast<std::int64_t>(next_)) {
        ++next_;
        continue;
      }
      return;
    }
  }
  const Plan& plan_;
  const std::vector<std::int64_t>& done_;
  std::uint64_t next_ = 0, remaining_ = 0;
  size_t dpos_ = 0;
};

std::uint64_t count(const std::vector<IdRange>& rs) {
  std::uint64_t n = 0;
  for (const IdRange& r : rs) n += static_cast<std::uint64_t>(r.last - r.first);
  return n;
}

// ---------------------------------------------------------------- running batches
struct Context {
  const config::SweepSpec* spec;
  const config::ScenarioFactory* factory;
  const Plan* plan;
  ExecuteOptions exec;
  tbb::task_arena* arena;
};

// Runs every id of the batch on the arena's threads; stops early (dropping the rest) when a
// stop signal arrives. Results are delivered in chunks through `sink` (called concurrently).
template <class Sink>
void run_batch(const Context& cx, const std::vector<IdRange>& batch, Sink&& sink) {
  // Flat index k -> id through the prefix sums of the ranges (no per-id list).
  std::vector<std::int64_t> prefix(batch.size() + 1, 0);
  for (size_t r = 0; r < batch.size(); ++r) prefix[r + 1] = prefix[r] + (batch[r].last - batch[r].first);
  const auto n = static_cast<size_t>(prefix.back());
  auto id_of = [&](size_t k) {
    const auto kk = static_cast<std::int64_t>(k);
    const size_t r = static_cast<size_t>(std::upper_bound(prefix.begin(), prefix.end(), kk) - prefix.begin()) - 1;
    return batch[r].first + (kk - prefix[r]);
  };
  cx.arena->execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n), [&](const tbb::blocked_range<size_t>& rg) {
      std::vector<ScenarioResult> out;
      out.reserve(rg.size());
      for (size_t k = rg.begin(); k != rg.end(); ++k) {
        if (stop_requested()) break;
        out.push_back(execute_scenario(*cx.spec, *cx.factory, *cx.plan, id_of(k), cx.exec));
      }
      if (!out.empty()) sink(std::move(out));
    });
  });
}

// Rank 0's own worker: runs batches on a background thread, hands results to the writer.
class LocalExecutor {
 public:
  explicit LocalExecutor(const Context& cx) : cx_(cx), thread_([this] { loop(); }) {}
  ~LocalExecutor() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool idle() {
    std::lock_guard<std::mutex> lk(mu_);
    return !busy_;
  }
  void submit(std::vector<IdRange> batch) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      batch_ = std::move(batch);
      busy_ = true;
    }
    cv_.notify_all();
  }
  /// Moves finished results out; waits up to `wait` for some if there are none.
  void drain(std::vector<ScenarioResult>& out, std::chrono::microseconds wait) {
    std::unique_lock<std::mutex> lk(mu_);
    if (results_.empty() && wait.count() > 0) done_cv_.wait_for(lk, wait, [&] { return !results_.empty() || !busy_; });
    for (auto& r : results_) out.push_back(std::move(r));
    results_.clear();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (true) {
      cv_.wait(lk, [&] { return quit_ || !batch_.empty(); });
      if (quit_) return;
      std::vector<IdRange> b = std::move(batch_);
      batch_.clear();
      lk.unlock();
      run_batch(cx_, b, [&](std::vector<ScenarioResult>&& chunk) {
        std::lock_guard<std::mutex> g(mu_);
        for (auto& r : chunk) results_.push_back(std::move(r));
        done_cv_.notify_all();
      });
      lk.lock();
      busy_ = false;
      done_cv_.notify_all();
    }
  }
  Context cx_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<IdRange> batch_;
  std::deque<ScenarioResult> results_;
  bool busy_ = false, quit_ = false;
  std::thread thread_;
};

// Batch size from a running mean of scenario run time: ~target seconds of work for `threads`
// threads, at least `threads`, at most half of the remaining work per executor.
class BatchSizer {
 public:
  BatchSizer(int threads, int executors) : threads_(threads), executors_(executors) {}
  void observe(double scenario_s) {
    const double s = std::max(scenario_s, 1e-7);
    mean_s_ = n_ == 0 ? s : 0.9 * mean_s_ + 0.1 * s;
    ++n_;
  }
  std::uint64_t next(std::uint64_t remaining) const {
    const double per_exec = n_ == 0 ? 1.0 : kTargetS * threads_ / mean_s_;
    const double tail = static_cast<double>(remaining) / (2.0 * executors_);
    double b = std::min(per_exec, std::max(tail, static_cast<double>(threads_)));
    b = std::clamp(b, 1.0, kMaxBatch);
    return static_cast<std::uint64_t>(b);
  }

 private:
  static constexpr double kTargetS = 0.25;
  // Caps the memory of one batch's results (~300 B each) whatever the scenario size.
  static constexpr double kMaxBatch = 16384;
  int threads_, executors_;
  double mean_s_ = 0;
  long n_ = 0;
};

// Holds results that arrive before earlier-dispatched ones (see master_loop).
class Reorder {
 public:
  void dispatched(const std::vector<IdRange>& b) {
    for (const IdRange& r : b) order_.push_back(r);
  }
  void add(ScenarioResult&& r, ResultStore& store) {
    if (!order_.empty() && r.id == order_.front().first) {
      store.append(r);
      advance(store);
    } else {
      early_.emplace(r.id, std::move(r));
    }
  }
  void release_all(ResultStore& store) {
    for (auto& [id, r] : early_) store.append(r);
    early_.clear();
  }

 private:
  // Pops the head id, then writes every waiting result that is now at the head.
  void advance(ResultStore& store) {
    while (true) {
      if (++order_.front().first == order_.front().last) order_.pop_front();
      if (order_.empty() || early_.empty() || early_.begin()->first != order_.front().first) return;
      store.append(early_.begin()->second);
      early_.erase(early_.begin());
    }
  }
  std::deque<IdRange> order_;
  std::map<std::int64_t, ScenarioResult> early_;
};

struct RunStats {
  std::uint64_t done = 0, failed = 0;
};

void print_dry_run(const config::SweepSpec& spec, const Plan& plan, const std::string& output) {
  std::printf("sweep '%s': %zu points x %zu seeds x %zu schedulers = %llu scenarios", spec.name.c_str(),
              spec.points.size(), spec.seeds.size(), spec.schedulers.size(),
              static_cast<unsigned long long>(plan.total()));
  if (plan.shards() > 1)
    std::printf(" (shard %llu/%llu: %llu)", static_cast<unsigned long long>(plan.shard()),
                static_cast<unsigned long long>(plan.shards()), static_cast<unsigned long long>(plan.shard_total()));
  std::printf("\nbase: %s\nschedulers:", spec.base_path.c_str());
  for (const auto& s : spec.schedulers) std::printf(" %s", s.c_str());
  std::printf("\nseeds: %zu (", spec.seeds.size());
  for (size_t k = 0; k < spec.seeds.size() && k < 10; ++k) std::printf("%s%llu", k ? " " : "", static_cast<unsigned long long>(spec.seeds[k]));
  std::printf("%s)\n", spec.seeds.size() > 10 ? " ..." : "");
  for (const auto& o : spec.fixed) std::printf("fixed: %s = %s\n", o.path.c_str(), o.value.c_str());
  const size_t show = std::min<size_t>(spec.points.size(), 10);
  std::printf("first %zu of %zu points:\n", show, spec.points.size());
  for (size_t p = 0; p < show; ++p) {
    std::printf("  point %zu:", p);
    for (size_t c = 0; c < spec.columns.size(); ++c)
      if (!spec.points[p].text[c].empty()) std::printf(" %s=%s", spec.columns[c].param.c_str(), spec.points[p].text[c].c_str());
    std::printf("\n");
  }
  std::printf("output: %s (%s)\n", output.c_str(), output.empty() ? "none" : util::path_exists(output) ? "exists" : "new");
}

// ---------------------------------------------------------------- master
struct MasterSetup {
  std::unique_ptr<ResultStore> store;
  std::vector<std::int64_t> done;  // sorted
};

// Checks the output file rules and opens the store. Throws InputError.
MasterSetup open_store(const SweepOptions& opt, const config::SweepSpec& spec, const Plan& plan, int ranks, int threads) {
  MasterSetup m;
  const std::string layout = "ranks=" + std::to_string(ranks) + " threads=" + std::to_string(threads);
  const std::string hash = util::hex16(spec.hash);
  const std::string shard = plan.shards() > 1 ? std::to_string(plan.shard()) + "/" + std::to_string(plan.shards()) : "";
  if (util::path_exists(opt.output) && opt.resume) {
    StoreContents c = ResultStore::read(opt.output);
    if (c.meta.sweep_hash != hash && !opt.force)
      throw InputError(opt.output, 0, 0,
                       "was written by a different sweep (hash " + c.meta.sweep_hash + ", now " + hash +
                           "): the sweep file, its base scenario or --set changed (expected the same sweep; use --force with --resume to continue anyway)");
    if (c.meta.shard != shard)
      throw InputError(opt.output, 0, 0, "holds shard '" + c.meta.shard + "' (expected '" + shard + "')");
    m.done = c.done_ids;
    m.store = ResultStore::resume(opt.output, c, layout);
    return m;
  }
  if (util::path_exists(opt.output)) {
    if (!opt.force)
      throw InputError(opt.output, 0, 0, "output file exists (expected a new file; use --resume to continue it or --force to overwrite it)");
    if (std::remove(opt.output.c_str()) != 0) throw InputError(opt.output, 0, 0, "cannot remove the existing file for --force");
  }
  StoreMeta meta;
  meta.geopipe_version = opt.version;
  meta.created_utc = util::utc_now_iso8601();
  meta.sweep_name = spec.name;
  meta.sweep_toml = spec.text;
  meta.base_toml = spec.base_text;
  meta.sweep_hash = hash;
  meta.layout = layout;
  meta.num_scenarios = plan.shard_total();
  meta.total_scenarios = plan.total();
  meta.shard = shard;
  meta.schedulers = spec.schedulers;
  for (const auto& c : spec.columns) meta.axes.push_back(c.param);
  m.store = ResultStore::create(opt.output, meta, spec, plan, opt.save_jobs);
  return m;
}

int master_loop(const SweepOptions& opt, const Context& cx, ResultStore& store, const std::vector<std::int64_t>& done,
                int ranks, int threads, bool mpi) {
  IdCursor cursor(*cx.plan, done);
  const std::uint64_t todo = cursor.remaining();
  Progress progress(todo, cx.plan->shard_total() - todo, opt.quiet, opt.progress_interval_s);
  BatchSizer sizer(threads, ranks);
  LocalExecutor local(cx);
  RunStats st;
  int workers_left = ranks - 1;
  std::vector<char> inbox, outbox;
  std::vector<ScenarioResult> results;
  std::vector<IdRange> batch;
  auto last_flush = Clock::now();
  std::optional<Clock::time_point> stop_since;
  std::uint64_t dispatched = 0;
  bool abandoned_workers = false;

  // Results reach the store in dispatch (= id) order: out-of-order ones wait in `early` until
  // every id dispatched before them has come back. The window is bounded by what is in flight,
  // and the file needs no sorting at the end of an uninterrupted run.
  Reorder reorder;
  auto record = [&](std::vector<ScenarioResult>& rs) {
    for (ScenarioResult& r : rs) {
      if (r.ok) sizer.observe(r.metrics.wall_s);
      ++st.done;
      if (!r.ok) ++st.failed;
      reorder.add(std::move(r), store);
    }
    rs.clear();
  };
  auto next_batch = [&] {
    batch.clear();
    if (!stop_requested()) cursor.take(sizer.next(cursor.remaining()), batch);
    reorder.dispatched(batch);
  };

  while (true) {
    bool activity = false;
    if (mpi && workers_left > 0) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
      if (flag) {
        activity = true;
        int nbytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &nbytes);
        inbox.resize(static_cast<size_t>(std::max(nbytes, 1)));
        MPI_Recv(inbox.data(), nbytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        decode_results(inbox.data(), static_cast<size_t>(nbytes), results);
        record(results);
        if (status.MPI_TAG == kTagResultsFinal) {
          // A worker was signalled (scancel, time limit): the whole sweep stops, resumably.
          --workers_left;
          if (!stop_requested()) g_signal.store(SIGTERM);
          continue;
        }
        next_batch();
        if (batch.empty()) {
          MPI_Send(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kTagStop, MPI_COMM_WORLD);
          --workers_left;
        } else {
          encode_ranges(batch, outbox);
          MPI_Send(outbox.data(), static_cast<int>(outbox.size()), MPI_BYTE, status.MPI_SOURCE, kTagBatch, MPI_COMM_WORLD);
          dispatched += count(batch);
        }
      }
    }
    // Local executor: collect, then refill when idle.
    // When nothing happened, wait for local results for up to 1 ms (this is also the MPI polling
    // period: a worker waits at most ~1 ms for its next batch, against ~0.25 s batches, and the
    // dispatcher thread stays off the cores the executors need).
    local.drain(results, activity ? std::chrono::microseconds(0) : std::chrono::microseconds(1000));
    if (!results.empty()) {
      activity = true;
      record(results);
    }
    const bool local_idle = local.idle();
    if (local_idle) {
      local.drain(results, std::chrono::microseconds(0));  // results that raced with idleness
      record(results);
      next_batch();
      if (!batch.empty()) {
        dispatched += count(batch);
        local.submit(batch);
        activity = true;
      }
    }
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_flush).count() >= opt.flush_interval_s) {
      store.flush();
      last_flush = now;
    }
    progress.update(st.done, st.failed);
    if (local.idle() && (cursor.empty() || stop_requested()) && workers_left == 0) {
      local.drain(results, std::chrono::microseconds(0));
      record(results);
      break;
    }
    if (stop_requested()) {
      if (!stop_since) stop_since = now;
      // Workers still computing get a grace period to return their batch; then we stop anyway.
      if (std::chrono::duration<double>(now - *stop_since).count() > 30.0 && local.idle()) {
        abandoned_workers = workers_left > 0;
        break;
      }
    }
  }

  // Every dispatched id must have come back; otherwise the file is incomplete (resumable).
  const bool interrupted = stop_requested() || !cursor.empty() || st.done != dispatched;
  reorder.release_all(store);  // interrupted: whatever order; complete: already empty
  if (interrupted) {
    store.flush();
    progress.finish(st.done, st.failed, "interrupted (signal " + std::to_string(g_signal.load()) + "): " + opt.output +
                                            " closed; rerun with --resume to finish");
    if (abandoned_workers) {
      std::cerr << "geopipe: workers did not return within 30 s; aborting them\n";
      return -util::kExitInterrupted;  // caller aborts the MPI job after closing the file
    }
    return util::kExitInterrupted;
  }
  store.finalize();
  progress.finish(st.done, st.failed, "-> " + opt.output);
  return st.failed ? util::kExitFailures : util::kExitOk;
}

// ---------------------------------------------------------------- worker
int worker_loop(const Context& cx) {
  std::vector<ScenarioResult> results;
  std::vector<char> outbox, inbox;
  std::vector<IdRange> batch;
  std::mutex mu;
  while (true) {
    encode_results(results, outbox);
    MPI_Send(outbox.data(), static_cast<int>(outbox.size()), MPI_BYTE, 0, kTagResults, MPI_COMM_WORLD);
    results.clear();
    MPI_Status status;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    int nbytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &nbytes);
    inbox.resize(static_cast<size_t>(std::max(nbytes, 1)));
    MPI_Recv(inbox.data(), nbytes, MPI_BYTE, 0, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kTagStop) return stop_requested() ? util::kExitInterrupted : util::kExitOk;
    decode_ranges(inbox.data(), static_cast<size_t>(nbytes), batch);
    run_batch(cx, batch, [&](std::vector<ScenarioResult>&& chunk) {
      std::lock_guard<std::mutex> lk(mu);
      for (auto& r : chunk) results.push_back(std::move(r));
    });
    if (stop_requested()) {  // hand back what we have and leave
      encode_results(results, outbox);
      MPI_Send(outbox.data(), static_cast<int>(outbox.size()), MPI_BYTE, 0, kTagResultsFinal, MPI_COMM_WORLD);
      return util::kExitInterrupted;
    }
  }
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

int run_sweep(const SweepOptions& opt) {
  // Handlers first: a signal that arrives during start-up (MPI_Init can take a second under
  // srun) must also end the run resumably instead of killing the process.
  install_signal_handlers();
  const bool use_mpi = opt.mpi == 1 || (opt.mpi == -1 && launched_by_mpi());
  int rank = 0, ranks = 1;
  if (use_mpi) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
  auto finish = [&](int code) {
    if (use_mpi) MPI_Finalize();
    return code;
  };
  const int threads = opt.threads > 0 ? opt.threads : tbb::info::default_concurrency();
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads) + 1);
  tbb::task_arena arena(threads);

  // Every rank validates the same input (cheap); only rank 0 reports. Rank 0 then decides
  // whether the run can start (output file rules) and tells the others.
  std::optional<config::SweepSpec> spec;
  int code = util::kExitOk;
  try {
    spec = config::load_sweep_file(opt.sweep_file, opt.sets);
  } catch (const InputError& e) {
    if (rank == 0) std::cerr << "geopipe: error: " << e.what() << "\n";
    return finish(util::kExitInput);
  }
  if (opt.shards == 0 || opt.shard >= opt.shards) {
    if (rank == 0) std::cerr << "geopipe: error: --shard: expected K/N with 0 <= K < N\n";
    return finish(util::kExitInput);
  }
  const Plan plan(spec->points.size(), spec->seeds.size(), spec->schedulers.size(), opt.shard, opt.shards);
  if (opt.dry_run) {
    if (rank == 0) print_dry_run(*spec, plan, opt.output);
    return finish(util::kExitOk);
  }
  config::ScenarioFactory factory(*spec);
  Context cx{&*spec, &factory, &plan, ExecuteOptions{opt.save_jobs, opt.null_scenarios}, &arena};

  MasterSetup setup;
  if (rank == 0) {
    try {
      if (opt.output.empty()) throw InputError("-o", 0, 0, "missing output file (expected -o OUT.h5)");
      setup = open_store(opt, *spec, plan, ranks, threads);
    } catch (const InputError& e) {
      std::cerr << "geopipe: error: " << e.what() << "\n";
      code = util::kExitInput;
    } catch (const std::exception& e) {
      std::cerr << "geopipe: error: " << e.what() << "\n";
      code = util::kExitInternal;
    }
  }
  if (use_mpi) MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (code != util::kExitOk) return finish(code);

  try {
    if (rank == 0) {
      if (!opt.quiet)
        std::cerr << "geopipe sweep '" << spec->name << "': " << plan.shard_total() << " scenarios"
                  << (setup.done.empty() ? "" : " (" + std::to_string(setup.done.size()) + " already in the file)")
                  << ", " << ranks << " rank(s) x " << threads << " thread(s) -> " << opt.output << "\n";
      code = master_loop(opt, cx, *setup.store, setup.done, ranks, threads, use_mpi);
      setup.store.reset();
      if (code < 0) {  // workers stuck after a stop request: the file is closed, end the job
        MPI_Abort(MPI_COMM_WORLD, -code);
        return -code;
      }
    } else {
      code = worker_loop(cx);
    }
  } catch (const std::exception& e) {
    std::cerr << "geopipe: error (rank " << rank << "): " << e.what() << "\n";
    setup.store.reset();  // close the file cleanly: it stays resumable
    if (use_mpi) MPI_Abort(MPI_COMM_WORLD, util::kExitInternal);
    return util::kExitInternal;
  }
  return finish(code);
}

}  // namespace geopipe::sweep
