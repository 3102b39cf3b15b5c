// Internal to src/sweepfile (includes toml++). Owns the construction of a sweep point's scenario:
// base text + fixed overrides ([sweep.set], then --set) + the point's overrides, validated by
// the scenario loader. Used by ScenarioFactory and by the validation of every point at load
// time (both in scenario_factory.cpp and sweepfile/validate.cpp).
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/scenario_loader.h"

namespace geopipe::config::sweep_internal {

/// The base document with the fixed overrides applied, parsed once.
struct PreparedBase {
  toml::table pre;
  std::string base_path;
  std::string base_dir;

  /// Throws InputError if the base does not parse or a fixed override does not apply.
  PreparedBase(const std::string& base_text, std::string path, const std::vector<Override>& fixed);

  /// Fast: copies the pre-parsed table. The copy loses the source regions of the base file's
  /// own nodes (see config/overrides.h), so an error about them lacks its exact location.
  Scenario make(const std::vector<Override>& point) const;
};

/// Slow and exact: a freshly parsed base, so every error points at the right place.
Scenario make_fresh(const std::string& base_text, const std::string& base_path, const std::vector<Override>& fixed,
                    const std::vector<Override>& point);

}  // namespace geopipe::config::sweep_internal
