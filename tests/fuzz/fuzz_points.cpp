// Fuzz target: the points-file design (sweepfile/points_file.cpp over util/csv_read.h, the
// one CSV syntax). Each input is written to <tmp>/points.csv next to a fixed sweep file that
// reads it (design = "points_file", base six-regions.toml), then the sweep is loaded; a sweep
// that loads also builds its first point. An input whose first byte is below 0x10 takes it as
// mutation flags for the rest: 1 a UTF-8 byte-order mark first, 2 CRLF line ends, 4 the header's
// region paths respelt by index (cluster.region.us-east. -> cluster.region[0].), 8 the header's
// first column repeated in that other spelling (two spellings of one parameter). Seeds: the CSV
// files the repository ships. The tree is removed at exit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <algorithm>
#include <string>

#include "sweepfile/loader.h"
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

/// The CSV text of one input, with its mutations (see the header comment).
std::string points_text(const std::uint8_t* data, std::size_t size) {
  unsigned flags = 0;
  if (size > 0 && data[0] < 0x10) {
    flags = data[0];
    ++data;
    --size;
  }
  std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = std::min(text.find('\n'), text.size());
  std::string header = text.substr(0, eol), rest = text.substr(eol);
  if (flags & 4u)
    for (std::size_t at; (at = header.find("cluster.region.us-east.")) != std::string::npos;)
      header.replace(at, 23, "cluster.region[0].");
  if (flags & 8u) {
    std::string first = header.substr(0, std::min(header.find(','), header.size()));
    const std::size_t at = first.find("cluster.region.");
    if (at != std::string::npos) {
      const std::size_t dot = first.find('.', at + 15);
      if (dot != std::string::npos) first = first.substr(0, at) + "cluster.region[0]" + first.substr(dot);
    }
    header += "," + first;
  }
  text = header + rest;
  if (flags & 2u)
    for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 2) text.insert(at, "\r");
  if (flags & 1u) text = "\xEF\xBB\xBF" + text;
  return text;
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const fs::path& sweep = sweep_path();
  {
    const std::string text = points_text(data, size);
    std::ofstream out(geopipe::fuzz::temp_tree_path() / "points.csv", std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::runtime_error("fuzz_points: cannot write points.csv");
  }
  try {
    geopipe::config::SweepLoadOptions bounded;  // a CSV of many rows: each row is built
    bounded.max_points = 500;                   // (fuzz_sweep.cpp says why 500)
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
