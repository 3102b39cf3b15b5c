// A sweep written from the command line (`geopipe sweep --base S.toml --axis p=v1,v2 ...`,
// docs/sweep-format.md, "A sweep from the command line"): the sweep file those flags stand for,
// as text. The runner writes it next to the output and loads it like any sweep file, so it is
// stored in the result file (sweep_toml) and `--resume` with the same flags finds the same sweep.
#pragma once

#include <string>
#include <vector>

namespace geopipe::config {

/// How every generated sweep file starts: a file at OUT.sweep.toml that does not is the user's,
/// and is never replaced (not even with --force).
inline constexpr const char* kGeneratedSweepMarker = "# Written by: geopipe sweep";

struct QuickSweep {
  std::string base;                      ///< the base scenario file, absolute
  std::vector<std::string> axes;         ///< "path=v1,v2,...", in order (the last varies fastest)
  std::string schedulers = "bace-pipe";  ///< "a,b" or "all"
  std::string seeds = "1";               ///< N (seeds 1..N)
  std::string name;                      ///< default: the base file's stem + "-sweep"
  std::vector<std::string> sets;         ///< "path=value" of --set: the file's [sweep.set]
  std::string command;                   ///< the command line, written as a comment
};

/// The sweep file's text. Each value becomes the TOML value it spells (a number, true/false, an
/// array) or else a string; values are split at commas (an array value needs a sweep file).
/// InputError("--axis" / "--schedulers" / "--set", ...) for an axis or set without `=`, an empty
/// value, or an empty name.
std::string quick_sweep_text(const QuickSweep& q);

}  // namespace geopipe::config
