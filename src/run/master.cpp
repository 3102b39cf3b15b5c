#include "run/master.h"

#include <signal.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "plan/dispatch.h"
#include "run/mpi_api.h"
#include "run/mpi_protocol.h"
#include "run/progress.h"
#include "run/signals.h"
#include "util/exit_codes.h"

namespace geopipe::sweep {
namespace {

using Clock = std::chrono::steady_clock;

/// Workers still computing after a stop request get this long to return their batch.
constexpr double kStopGraceS = 30.0;

/// How long the master waits for its local executor when it has no MPI worker to serve. An
/// executor that runs low on ids or becomes idle wakes it at once (LocalExecutor::drain); this
/// only bounds how late results reach the output and how late a flush or a progress line
/// comes. Every wake-up takes a core from the computing threads for a moment, hence not the MPI
/// polling period of 1 ms.
constexpr std::chrono::microseconds kLocalWait{50'000};
/// The MPI polling period: a worker waits at most ~1 ms for its next batch.
constexpr std::chrono::microseconds kMpiPoll{1'000};
/// (point, seed) pairs per thread in the batch a StartedMaster computes before its output exists.
constexpr int kStartPairsPerThread = 4;

}  // namespace

// Not in the anonymous namespace: StartedMaster::Impl holds a Master.
namespace master_internal {

/// The output of a master, given at its construction or later (StartedMaster): nothing is
/// appended, flushed or finalized before it is set.
class SinkSlot final : public ResultSink {
 public:
  void set(ResultSink& sink) { to_ = &sink; }
  void append(const ScenarioResult& r) override { target().append(r); }
  void flush() override { target().flush(); }
  void finalize() override { target().finalize(); }

 private:
  ResultSink& target() {
    if (!to_) throw std::logic_error("sweep master: results before the output was given");
    return *to_;
  }
  ResultSink* to_ = nullptr;
};

class Master {
 public:
  /// `sink`: the output, or null until attach().
  Master(const SweepOptions& opt, const ExecContext& cx, ResultSink* sink, const std::vector<std::int64_t>& done,
         int ranks, int threads, bool mpi, const RoundOptions& round)
      : opt_(opt), round_(round), cursor_(*cx.plan, done, round.allowance),
        progress_(cursor_.remaining(), total_of(cx, round) - cursor_.remaining(), opt.quiet, opt.progress_interval_s),
        sizer_(threads, ranks), local_(cx), reorder_(sink_), mpi_(mpi), workers_left_(ranks - 1) {
    if (sink) sink_.set(*sink);
  }

  void attach(ResultSink& sink) { sink_.set(sink); }

  /// Gives the local executor a first batch of `ids` now, before run() (StartedMaster).
  void start(std::uint64_t ids) {
    take_batch(ids);
    submit_local();
  }

  MasterOutcome run() {
    while (true) {
      bool activity = mpi_ && workers_left_ > 0 && serve_a_worker();
      // When nothing happened, wait for the local executor: up to 1 ms while MPI workers may
      // call (the polling period: a worker waits at most ~1 ms for its next batch, against
      // ~0.25 s batches), else until it wants work or is done, or kLocalWait has passed.
      activity = serve_local(activity) || activity;
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - last_flush_).count() >= opt_.flush_interval_s) {
        sink_.flush();
        last_flush_ = now;
      }
      progress_.update(done_, failed_);
      if (local_.idle() && (cursor_.empty() || stop_requested()) && workers_left_ == 0) {
        local_.drain(results_, std::chrono::microseconds(0), false);
        record();
        break;
      }
      if (stop_requested() && grace_over(now)) break;
    }
    return finish();
  }

 private:
  /// Receives one worker message, if any, and answers it. Returns whether there was one.
  bool serve_a_worker() {
    const MpiApi& mpi = mpi_api();
    int source = 0, tag = 0, nbytes = 0;
    if (!mpi.iprobe(kAnySource, kAnyTag, &source, &tag, &nbytes)) return false;
    inbox_.resize(static_cast<size_t>(std::max(nbytes, 1)));
    mpi.recv(inbox_.data(), nbytes, source, tag);
    decode_results(inbox_.data(), static_cast<size_t>(nbytes), results_);
    if (tag == kTagResultsFinal) {
      // A worker was signalled (scancel, time limit): the whole sweep stops, resumably.
      record();
      --workers_left_;
      if (!stop_requested()) request_stop(SIGTERM);
      return true;
    }
    count_results();  // the batch size learns from them; the worker gets its next batch first
    next_batch();
    if (batch_.empty()) {
      mpi.send(nullptr, 0, source, kTagStop);
      --workers_left_;
    } else {
      encode_ranges(batch_, outbox_);
      mpi.send(outbox_.data(), static_cast<int>(outbox_.size()), source, kTagBatch);
      dispatched_ += count(batch_);
    }
    record();
    return true;
  }

  /// Collects the local executor's results, refills its queue when it runs low, then writes
  /// the results (the executor computes meanwhile). Returns whether anything happened.
  bool serve_local(bool activity) {
    const bool more = !cursor_.empty() && !stop_requested();
    // An idle executor with nothing more to get has nothing to wait for (a StartedMaster's may
    // have finished its whole sweep before run()); with MPI workers out, the poll period still
    // paces the loop.
    const auto wait = activity                      ? std::chrono::microseconds(0)
                      : (mpi_ && workers_left_ > 0) ? kMpiPoll
                      : (!more && local_.idle())    ? std::chrono::microseconds(0)
                                                    : kLocalWait;
    local_.drain(results_, wait, more);
    bool any = !results_.empty();
    if (more && local_.wants_work()) {
      count_results();  // the batch size learns from them
      next_batch();
      any = submit_local() || any;
    }
    record();
    return any;
  }

  /// Counts the results of results_ not counted yet and lets the batch sizer observe them.
  void count_results() {
    for (; counted_ < results_.size(); ++counted_) {
      const ScenarioResult& r = results_[counted_];
      if (r.ok) sizer_.observe(r.metrics.wall_s);
      ++done_;
      if (!r.ok) ++failed_;
    }
  }

  /// Counts results_ (count_results) and hands them to the output in id order (Reorder).
  void record() {
    count_results();
    for (ScenarioResult& r : results_) reorder_.add(std::move(r));
    results_.clear();
    counted_ = 0;
  }

  void next_batch() { take_batch(sizer_.next(cursor_.remaining())); }

  /// batch_ = up to n ids of the cursor (none after a stop request), dispatched in Reorder.
  void take_batch(std::uint64_t n) {
    batch_.clear();
    if (!stop_requested()) cursor_.take(n, batch_);
    reorder_.dispatched(batch_);
  }

  /// Hands batch_ to the local executor; whether it held any id.
  bool submit_local() {
    if (batch_.empty()) return false;
    dispatched_ += count(batch_);
    local_.submit(batch_);
    return true;
  }

  /// After a stop request: have the workers had their grace period (and is the local
  /// executor idle)? Then the master stops without them.
  bool grace_over(Clock::time_point now) {
    if (!stop_since_) stop_since_ = now;
    if (std::chrono::duration<double>(now - *stop_since_).count() > kStopGraceS && local_.idle()) {
      abandoned_workers_ = workers_left_ > 0;
      return true;
    }
    return false;
  }

  MasterOutcome finish() {
    // Every dispatched id must have come back; otherwise the output is incomplete (resumable).
    const bool interrupted = stop_requested() || !cursor_.empty() || done_ != dispatched_;
    reorder_.release_all();  // interrupted: whatever order; complete: already empty
    if (interrupted) {
      sink_.flush();
      progress_.finish(done_, failed_, "interrupted (signal " + std::to_string(stop_signal()) + "): " + opt_.output +
                                           " closed; rerun with --resume to finish");
      if (abandoned_workers_) std::cerr << "geopipe: workers did not return within 30 s; aborting them\n";
      return {util::kExitInterrupted, abandoned_workers_, done_, failed_};
    }
    if (round_.final) sink_.finalize();
    else sink_.flush();
    progress_.finish(done_, failed_, "-> " + opt_.output);
    return {failed_ ? util::kExitFailures : util::kExitOk, false, done_, failed_};
  }

  /// Scenarios of the round: the shard's, or those of the allowance.
  static std::uint64_t total_of(const ExecContext& cx, const RoundOptions& round) {
    if (!round.allowance) return cx.plan->shard_total();
    std::uint64_t n = 0;
    for (const std::uint32_t a : *round.allowance) n += a;
    return n * cx.plan->schedulers();
  }

  const SweepOptions& opt_;
  SinkSlot sink_;  // before reorder_, which holds it
  RoundOptions round_;
  IdCursor cursor_;
  Progress progress_;
  BatchSizer sizer_;
  LocalExecutor local_;
  Reorder reorder_;
  bool mpi_;
  int workers_left_;
  std::uint64_t done_ = 0, failed_ = 0, dispatched_ = 0;
  std::vector<char> inbox_, outbox_;
  std::vector<ScenarioResult> results_;  ///< received, not yet written
  std::size_t counted_ = 0;              ///< of results_, counted and observed (count_results)
  std::vector<IdRange> batch_;
  Clock::time_point last_flush_ = Clock::now();
  std::optional<Clock::time_point> stop_since_;
  bool abandoned_workers_ = false;
};

}  // namespace master_internal

using master_internal::Master;

MasterOutcome run_master(const SweepOptions& opt, const ExecContext& cx, ResultSink& sink,
                         const std::vector<std::int64_t>& done, int ranks, int threads, bool mpi,
                         const RoundOptions& round) {
  Master m(opt, cx, &sink, done, ranks, threads, mpi, round);
  return m.run();
}

struct StartedMaster::Impl {
  Impl(const SweepOptions& opt, const ExecContext& cx, int ranks, int threads, bool mpi)
      : master(opt, cx, nullptr, none, ranks, threads, mpi, RoundOptions{}) {}
  const std::vector<std::int64_t> none;  ///< the ids done: none (the master's cursor refers to it)
  Master master;
};

StartedMaster::StartedMaster(const SweepOptions& opt, const ExecContext& cx, int ranks, int threads, bool mpi)
    : impl_(std::make_unique<Impl>(opt, cx, ranks, threads, mpi)) {
  // No run time is known yet to size the batch (the sizer's first is one id) and nothing refills
  // the queue until run(): a few (point, seed) pairs per thread, to outlast the caller's few ms.
  impl_->master.start(static_cast<std::uint64_t>(kStartPairsPerThread) * static_cast<std::uint64_t>(threads) *
                      cx.plan->schedulers());
}

StartedMaster::~StartedMaster() = default;

MasterOutcome StartedMaster::run(ResultSink& sink) {
  impl_->master.attach(sink);
  return impl_->master.run();
}

int run_worker(const ExecContext& cx) {
  std::vector<ScenarioResult> results;
  std::vector<char> outbox, inbox;
  std::vector<IdRange> batch;
  std::mutex mu;
  const MpiApi& mpi = mpi_api();
  while (true) {
    encode_results(results, outbox);
    mpi.send(outbox.data(), static_cast<int>(outbox.size()), 0, kTagResults);
    results.clear();
    int tag = 0, nbytes = 0;
    mpi.probe(0, kAnyTag, &tag, &nbytes);
    inbox.resize(static_cast<size_t>(std::max(nbytes, 1)));
    mpi.recv(inbox.data(), nbytes, 0, tag);
    if (tag == kTagStop) return stop_requested() ? util::kExitInterrupted : util::kExitOk;
    decode_ranges(inbox.data(), static_cast<size_t>(nbytes), batch);
    run_batch(cx, batch, [&](std::vector<ScenarioResult>&& chunk) {
      std::lock_guard<std::mutex> lk(mu);
      for (auto& r : chunk) results.push_back(std::move(r));
    });
    if (stop_requested()) {  // hand back what we have and leave
      encode_results(results, outbox);
      mpi.send(outbox.data(), static_cast<int>(outbox.size()), 0, kTagResultsFinal);
      return util::kExitInterrupted;
    }
  }
}

}  // namespace geopipe::sweep
