// Where the results of a sweep go: the seam between the runner (which produces results) and
// an output format (which stores them). The runner and the commands that read or join result
// files never name a format; they go through results/output.h, which picks one from the table of
// formats in results/output.cpp; docs/design.md explains how to add another.
#pragma once

#include <cstdint>

#include "results/result.h"

namespace geopipe::sweep {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  /// One scenario's result (ok: metrics and, with --save-jobs, job rows; failed: the error).
  /// Called by one thread (the master). Results come in id order in an uninterrupted run; after
  /// a stop request the ones still in flight may come in any order. A sink may buffer.
  virtual void append(const ScenarioResult& result) = 0;
  /// Makes every result appended so far durable: a crash after flush() must not lose them,
  /// and the output must stay resumable.
  virtual void flush() = 0;
  /// Every scenario of the run has been appended: complete the output (e.g. sort it, mark it
  /// complete). Not called when the run was interrupted; destroying the sink then must leave a
  /// resumable output.
  virtual void finalize() = 0;
};

}  // namespace geopipe::sweep
