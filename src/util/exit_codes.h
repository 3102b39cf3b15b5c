// Process exit codes of every geopipe command (documented in README.md, "Exit codes"), and
// the one mapping from what a command body throws to a code and a message on stderr.
#pragma once

#include <exception>
#include <iostream>
#include <string_view>

#include "util/input_error.h"

namespace geopipe::util {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;      ///< a bug: any exception other than InputError
inline constexpr int kExitInput = 2;         ///< bad input; nothing was run or written
inline constexpr int kExitFailures = 3;      ///< sweep finished, but some scenarios failed (see /errors)
inline constexpr int kExitInterrupted = 75;  ///< sweep stopped by a signal; file closed, rerun with --resume

/// How guarded() reports what it caught.
struct Report {
  bool print = true;      ///< false: only map to a code (MPI ranks > 0 fail like rank 0, which reports)
  std::string_view where; ///< "" or e.g. "rank 3": "geopipe: error (rank 3): ..."
};

/// Runs `body` (returning an exit code) and maps what it throws: InputError ("file:line:col:
/// what") -> kExitInput, any other std::exception -> kExitInternal; the message goes to stderr
/// as "geopipe: error: <what>" on one line (control characters escaped, util::printable_text).
template <class Body>
int guarded(Body&& body, Report report = {}) {
  auto say = [&](const char* what) {
    if (!report.print) return;
    std::cerr << "geopipe: error";
    if (!report.where.empty()) std::cerr << " (" << report.where << ")";
    std::cerr << ": " << printable_text(what) << "\n";
  };
  try {
    return body();
  } catch (const InputError& e) {
    say(e.what());
    return kExitInput;
  } catch (const std::exception& e) {
    say(e.what());
    return kExitInternal;
  }
}

}  // namespace geopipe::util
