// toml-level entry points of the scenario loader (internal to src/config and src/sweepfile).
// load_scenario_string() = parse_scenario_toml() + apply_overrides() + build_scenario().
#pragma once

#include <string>

#include <toml++/toml.h>

#include "config/scenario_loader.h"

namespace geopipe::config {

/// Message for a document without any table or key.
inline constexpr const char kEmptyScenarioMessage[] =
    "empty scenario (expected at least [scenario] with name, [cluster] with [[cluster.region]] entries, and "
    "[workload] with [[workload.mix]] entries)";

/// parse_toml() of a scenario file's text; an empty document is an InputError at file:1:1.
toml::table parse_scenario_toml(std::string_view text, const std::string& file);

/// Validates a parsed scenario document against the schema and the semantic rules and
/// converts it (units once, here) into a Scenario. `file` is used in messages for nodes
/// without a source path and stored as Scenario::source_path; `base_dir` resolves
/// workload.trace. Throws InputError.
Scenario build_scenario(const toml::table& root, const std::string& file, const std::string& base_dir);

}  // namespace geopipe::config
