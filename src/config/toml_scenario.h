// toml-level entry points of the scenario loader (internal to src/config and src/sweep).
// load_scenario_string() = parse_toml() + apply_overrides() + build_scenario().
#pragma once

#include <string>

#include <toml++/toml.h>

#include "config/scenario_loader.h"

namespace geopipe::config {

/// Validates a parsed scenario document against the schema and the semantic rules and
/// converts it (units once, here) into a Scenario. `file` is used in messages for nodes
/// without a source path and stored as Scenario::source_path; `base_dir` resolves
/// workload.trace. Throws InputError.
Scenario build_scenario(const toml::table& root, const std::string& file, const std::string& base_dir);

}  // namespace geopipe::config
