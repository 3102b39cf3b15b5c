// Rank 0 of a sweep: dispatches batches of ids to the MPI workers and to its own local
// executor (dynamic self-scheduling, plan/dispatch.h), hands results to the output in id
// order, flushes it periodically, prints progress, and stops cleanly on a stop request.
// Internal to src/run.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "run/batch_executor.h"
#include "results/result_sink.h"
#include "run/runner.h"

namespace geopipe::sweep {

struct MasterOutcome {
  int exit_code = 0;             ///< util/exit_codes.h: ok, failures, or interrupted
  bool abandoned_workers = false;  ///< workers did not return their batch after a stop: abort them
  std::uint64_t computed = 0;      ///< scenarios run and written by this run
  std::uint64_t failed = 0;        ///< of those, failed
};

/// How run_master() runs one round of a sweep.
struct RoundOptions {
  const std::vector<std::uint32_t>* allowance = nullptr;  ///< seeds per point (plan/replication.h), or all
  bool final = true;  ///< finalize the output when every scenario came back (else only flush it)
};

/// Runs the sweep's remaining scenarios (all of the plan's shard, or of `round.allowance`, but
/// `done`, sorted) with `ranks` − 1 MPI workers (if `mpi`) and the local executor of `threads`
/// threads. When every scenario came back, finalizes the output (round.final) or flushes it;
/// otherwise flushes it and reports interrupted.
MasterOutcome run_master(const SweepOptions& opt, const ExecContext& cx, ResultSink& sink,
                         const std::vector<std::int64_t>& done, int ranks, int threads, bool mpi,
                         const RoundOptions& round = {});

/// Rank 0's master of a sweep that starts with no result (a new output: no id done, no rounds),
/// started before its output exists: the local executor computes the first batch while the
/// caller checks and creates the output (docs/sweep-runner.md, "Execution"). Destroyed without
/// run() (the output was refused), it drops the queued ids and waits for the scenarios at hand;
/// their results are dropped.
class StartedMaster {
 public:
  StartedMaster(const SweepOptions& opt, const ExecContext& cx, int ranks, int threads, bool mpi);
  ~StartedMaster();
  StartedMaster(const StartedMaster&) = delete;
  StartedMaster& operator=(const StartedMaster&) = delete;
  /// run_master() with no id done and the default RoundOptions, into `sink`. Once.
  MasterOutcome run(ResultSink& sink);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A worker rank: asks for batches, runs them, returns the results, until told to stop or
/// signalled. Returns the exit code.
int run_worker(const ExecContext& cx);

}  // namespace geopipe::sweep
