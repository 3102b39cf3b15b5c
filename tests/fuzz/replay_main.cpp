// Runs a fuzz target (fuzz_target.h) once on each file named on the command line, or on each
// file of a directory (sorted; names starting with '.' are skipped), without libFuzzer: the
// ctest fuzz.replay.* replays tests/fuzz/regressions/<target>/ in every build.
//
//   replay_<target> PATH...     exit 0: every input ran; 1: an uncaught exception (the file is
//                               named); a crash ends the process (the last "run:" line names it)
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay_%s: no such file or directory: %s\n", kFuzzTargetName, argv[i]);
      return 2;
    }
  }
  int failed = 0;
  for (const fs::path& f : files) {
    std::fprintf(stderr, "run: %s\n", f.c_str());
    std::ifstream in(f, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      fuzz_one(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FINDING: %s: uncaught exception: %s\n", f.c_str(), e.what());
      ++failed;
    } catch (...) {
      std::fprintf(stderr, "FINDING: %s: uncaught non-standard exception\n", f.c_str());
      ++failed;
    }
  }
  std::fprintf(stderr, "replay_%s: %zu inputs, %d findings\n", kFuzzTargetName, files.size(), failed);
  return failed == 0 ? 0 : 1;
}
