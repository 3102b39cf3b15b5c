// Fuzz target: the sweep loader (config/sweep_loader.h). It reads a file, so each input is
// written to <tmp>/s/t/input.toml in a private temporary tree that holds copies of the shipped
// base scenarios where the shipped sweeps look for them ("base/X", "../base/X",
// "../../sweeps/base/X", and the trace that trace-base.toml names), then loaded; a sweep that
// loads also builds its first point through a ScenarioFactory. Seeds: the shipped sweep files.
// Sweeps of more than 10,000 points are refused (SweepLoadOptions), so each input is fast.
// The tree is removed at exit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "config/sweep_loader.h"
#include "fuzz_target.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "sweep";

namespace {

namespace fs = std::filesystem;

fs::path g_tree;

void remove_tree() {
  std::error_code ec;
  if (!g_tree.empty()) fs::remove_all(g_tree, ec);
}

/// Creates the temporary tree once; returns the input file's path.
const fs::path& input_path() {
  static const fs::path input = [] {
    std::string templ = (fs::temp_directory_path() / "geopipe-fuzz-sweep-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("fuzz_sweep: mkdtemp failed");
    g_tree = templ;
    std::atexit(remove_tree);
    const fs::path src = geopipe::fuzz::source_dir();
    const fs::path bases[] = {src / "sweeps/base/six-regions.toml", src / "tests/config/sweeps/base/two-regions.toml",
                              src / "tests/config/sweeps/base/trace-base.toml"};
    for (const char* dir : {"s/t/base", "s/base", "sweeps/base"}) {
      fs::create_directories(g_tree / dir);
      for (const fs::path& b : bases) fs::copy_file(b, g_tree / dir / b.filename());
    }
    fs::create_directories(g_tree / "good");  // trace-base.toml: trace = "../../good/trace.csv"
    fs::copy_file(src / "tests/config/good/trace.csv", g_tree / "good/trace.csv");
    return g_tree / "s/t/input.toml";
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
    // Every point is built at load time (~120 µs each): at most 10,000 points keeps one input
    // near a second (a valid million-point sweep takes two minutes: a libFuzzer timeout).
    geopipe::config::SweepLoadOptions bounded;
    bounded.max_points = 10'000;
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
