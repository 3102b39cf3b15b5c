// One fuzz target = one definition of fuzz_one (fuzz_scenario.cpp, fuzz_sweep.cpp,
// fuzz_trace.cpp), linked with one of two drivers:
//  * libfuzzer_main.cpp: LLVMFuzzerTestOneInput for libFuzzer (clang, GEOPIPE_FUZZ=ON,
//    scripts/fuzz.sh);
//  * replay_main.cpp: a plain main() that runs the files and directories given on the command
//    line once each, so tests/fuzz/regressions/ replays in every build (gcc included).
//
// fuzz_one runs the input through a loader and returns 0. Bad input is expected: it catches
// geopipe::InputError and nothing else. Any other exception, crash or sanitizer report is a
// finding (a bug in geopipe or in a library it uses).
#pragma once

#include <stdlib.h>  // mkdtemp

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

int fuzz_one(const std::uint8_t* data, std::size_t size);

/// A short name of the target ("scenario", "sweep", "trace") for messages.
extern const char* const kFuzzTargetName;

namespace geopipe::fuzz {

/// The repository's root, where the targets find their fixed inputs (a base scenario, a trace).
inline std::string source_dir() { return GEOPIPE_SOURCE_DIR; }

/// The process's temporary directory (see temp_tree()).
inline std::filesystem::path& temp_tree_path() {
  static std::filesystem::path p;
  return p;
}

/// Creates a temporary directory geopipe-fuzz-NAME-XXXXXX for the target's files and returns
/// it; it is removed at exit. Call once per process.
inline std::filesystem::path temp_tree(const std::string& name) {
  std::string templ = (std::filesystem::temp_directory_path() / ("geopipe-fuzz-" + name + "-XXXXXX")).string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("fuzz_" + name + ": mkdtemp failed");
  temp_tree_path() = templ;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(temp_tree_path(), ec);
  });
  return templ;
}

}  // namespace geopipe::fuzz
