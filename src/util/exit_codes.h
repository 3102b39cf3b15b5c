// Process exit codes of every geopipe command (documented in README.md, "Exit codes"), and
// the one mapping from what a command body throws to a code and a message on stderr.
#pragma once

#include <exception>
#include <iostream>

#include "util/input_error.h"

namespace geopipe::util {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;      ///< a bug: any exception other than InputError
inline constexpr int kExitInput = 2;         ///< bad input; nothing was run or written
inline constexpr int kExitFailures = 3;      ///< sweep finished, but some scenarios failed (see /errors)
inline constexpr int kExitInterrupted = 75;  ///< sweep stopped by a signal; file closed, rerun with --resume

/// Runs `body` (returning an exit code) and maps what it throws: InputError ("file:line:col:
/// what") -> kExitInput, any other std::exception -> kExitInternal; the message goes to stderr
/// as "geopipe: error: <what>".
template <class Body>
int guarded(Body&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "geopipe: error: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "geopipe: error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace geopipe::util
