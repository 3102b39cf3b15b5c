// Progress and ETA on stderr: a live bar on a terminal, a plain line every few seconds
// otherwise (Slurm logs), nothing with --quiet. Single-threaded: only the writer thread calls it.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace geopipe::sweep {

class Progress {
 public:
  /// total: scenarios this run must finish; already: of those, finished before (resume).
  Progress(std::uint64_t total, std::uint64_t already, bool quiet, double line_interval_s, std::FILE* out = stderr);
  /// Called often; prints when due. done/failed count this run's scenarios.
  void update(std::uint64_t done, std::uint64_t failed);
  /// Final line (always printed unless quiet).
  void finish(std::uint64_t done, std::uint64_t failed, const std::string& note);
  static std::string format_duration(double s);

 private:
  std::string line(std::uint64_t done, std::uint64_t failed, double elapsed) const;
  std::uint64_t total_, already_;
  bool quiet_, tty_;
  double interval_s_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_print_;
  bool printed_any_ = false;
};

}  // namespace geopipe::sweep
