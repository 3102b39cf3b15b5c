// Internal to src/sweepfile (includes toml++). Owns the parsing of one swept parameter of a sweep
// file, an [[axis]] or a [[zip.axis]]: `param`, then its values from `values = [...]` or from
// `range = { start, stop, num, log }`, optionally rounded by `integer = true`, with every error
// about them. How members combine into points is the design's business (sweepfile/design.h).
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "sweepfile/parse.h"

namespace geopipe::config::sweep_internal {

/// One [[axis]] or [[zip.axis]].
struct Member {
  std::string name;  ///< "axis[0]", "zip[1].axis[0]" (for messages)
  std::string param;
  Pos param_pos;
  Pos data_pos;      ///< values array or range table
  bool from_range = false;
  bool integer = false;
  std::vector<Value> values;
};

/// Parses table `t` named `name`. A standalone [[axis]] (`in_zip` false) must not repeat a value.
Member parse_member(const SweepFile& file, const toml::table& t, const std::string& name, bool in_zip);

}  // namespace geopipe::config::sweep_internal
