// Fuzz target: the points-file design (config/sweep_points_file.cpp: an RFC 4180 CSV of points).
// Each input is written to <tmp>/points.csv next to a fixed sweep file that reads it
// (design = "points_file", base six-regions.toml), then the sweep is loaded; a sweep that loads
// also builds its first point. Seeds: the CSV files the repository ships. The tree is removed at
// exit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "config/sweep_loader.h"
#include "fuzz_target.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "points";

namespace {

namespace fs = std::filesystem;

const fs::path& sweep_path() {
  static const fs::path sweep = [] {
    const fs::path tree = geopipe::fuzz::temp_tree("points");
    const fs::path base = fs::path(geopipe::fuzz::source_dir()) / "sweeps/base/six-regions.toml";
    std::ofstream out(tree / "sweep.toml");
    out << "[sweep]\nname = \"fuzz\"\nbase = \"" << base.string()
        << "\"\nschedulers = [\"bace-pipe\"]\nseeds = 1\ndesign = \"points_file\"\n\n[points_file]\npath = "
           "\"points.csv\"\n";
    if (!out) throw std::runtime_error("fuzz_points: cannot write the sweep file");
    return tree / "sweep.toml";
  }();
  return sweep;
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const fs::path& sweep = sweep_path();
  {
    std::ofstream out(geopipe::fuzz::temp_tree_path() / "points.csv", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw std::runtime_error("fuzz_points: cannot write points.csv");
  }
  try {
    geopipe::config::SweepLoadOptions bounded;  // a CSV of many rows: each row is built
    bounded.max_points = 10'000;
    const geopipe::config::SweepSpec spec = geopipe::config::load_sweep_file(sweep.string(), {}, bounded);
    if (spec.num_points() > 0) {
      const geopipe::config::ScenarioFactory factory(spec);
      (void)factory.make(0);
    }
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  return 0;
}
