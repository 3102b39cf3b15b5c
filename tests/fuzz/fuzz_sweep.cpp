// Fuzz target: the sweep loader (sweepfile/loader.h). It reads a file, so each input is
// written to <tmp>/s/t/input.toml in a private temporary tree that holds copies of the shipped
// base scenarios where the shipped sweeps look for them ("base/X", "../base/X",
// "../../sweeps/base/X", and the trace that trace-base.toml names), then loaded; a sweep that
// loads also builds its first point through a ScenarioFactory. Seeds: the shipped sweep files.
// Sweeps of more than 500 points are refused (SweepLoadOptions), so each input is fast.
// The tree is removed at exit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sweepfile/loader.h"
#include "fuzz_target.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "sweep";

namespace {

namespace fs = std::filesystem;

const fs::path& input_path() {
  static const fs::path input = [] {
    const fs::path tree = geopipe::fuzz::temp_tree("sweep");
    const fs::path src = geopipe::fuzz::source_dir();
    const fs::path bases[] = {src / "sweeps/base/six-regions.toml", src / "tests/config/sweeps/base/two-regions.toml",
                              src / "tests/config/sweeps/base/trace-base.toml"};
    for (const char* dir : {"s/t/base", "s/base", "sweeps/base"}) {
      fs::create_directories(tree / dir);
      for (const fs::path& b : bases) fs::copy_file(b, tree / dir / b.filename());
    }
    fs::create_directories(tree / "good");  // trace-base.toml: trace = "../../good/trace.csv"
    fs::copy_file(src / "tests/config/good/trace.csv", tree / "good/trace.csv");
    return tree / "s/t/input.toml";
  }();
  return input;
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const fs::path& path = input_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw std::runtime_error("fuzz_sweep: cannot write " + path.string());
  }
  try {
    // Every point is built at load time: ~130 µs each in a release build but ~3.8 ms in this
    // ASan+UBSan build (a 5,120-point Sobol' design of the six-region base: 19 s). At most 500
    // points keeps one input under 2 s, a fifth of the 10 s timeout, on a loaded machine too
    // (10,000 let a mutated sweeps/studies seed run past libFuzzer's slow-unit report in CI).
    geopipe::config::SweepLoadOptions bounded;
    bounded.max_points = 500;
    const geopipe::config::SweepSpec spec = geopipe::config::load_sweep_file(path.string(), {}, bounded);
    if (spec.num_points() > 0 && spec.test_function) {  // no scenarios: the function of point 0's inputs
      const geopipe::config::SweepPoint p = spec.point(0);
      if (p.numeric.size() != spec.test_function->dimension())
        throw std::logic_error("fuzz_sweep: a test function's point has " + std::to_string(p.numeric.size()) + " inputs");
      (void)(*spec.test_function)(p.numeric.data());
    } else if (spec.num_points() > 0) {
      const geopipe::config::ScenarioFactory factory(spec);
      (void)factory.make(0);
    }
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  return 0;
}
