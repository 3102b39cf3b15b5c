// libFuzzer's entry point for a fuzz target (see fuzz_target.h). An exception that escapes
// fuzz_one (anything but InputError) is printed and turned into an abort, which libFuzzer
// reports as a crash with the input saved.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    return fuzz_one(data, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_%s: FINDING: uncaught exception: %s\n", kFuzzTargetName, e.what());
  } catch (...) {
    std::fprintf(stderr, "fuzz_%s: FINDING: uncaught non-standard exception\n", kFuzzTargetName);
  }
  std::abort();
}
