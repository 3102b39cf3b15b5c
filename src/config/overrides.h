// Applying "--set path=value" overrides to a parsed scenario document (toml::table) before it
// is validated. Internal to src/config and src/sweepfile (this header includes toml++).
//
// Value nodes inserted by an override carry a source region pointing at the override
// (origin, line, column), so later validation errors about them point at the override rather
// than at the scenario file. Note that toml++ does not copy source regions when a table is
// copied: to keep error locations, apply overrides to a freshly parsed document.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/scenario_loader.h"
#include "config/schema.h"
#include "config/toml_text.h"  // toml_quote(), used with overrides

namespace geopipe::config {

/// Sets the value at `o.path` (see Override) in `root`, creating intermediate tables (not
/// entries of arrays of tables) as needed. Throws InputError(o.origin, o.line, column, ...) for
/// an unknown path ("unknown parameter 'x.y' (did you mean 'x.z'?)"), an array entry that does
/// not exist, a path that names a table rather than a value, or a value that is not valid TOML
/// (unless the key expects a string, in which case the raw text is used as the string).
void apply_override(toml::table& root, const Override& o);

/// Where an override lands in a document: the table whose key it sets. Two overrides with equal
/// targets in the same document set the same parameter, however their paths are spelled
/// ("cluster.region[0].gpus" and "cluster.region.us-east.gpus").
struct OverrideTarget {
  const toml::table* table = nullptr;
  std::string key;
  std::string path;                      ///< entries by index: "cluster.region[0].gpus"
  const schema::Field* field = nullptr;  ///< the leaf's schema
  bool operator==(const OverrideTarget& o) const { return table == o.table && key == o.key; }
};

/// Resolves `o.path` in `root` as apply_override() would, without setting the value (missing
/// intermediate tables are created, as apply_override() does). Throws the same errors for a
/// path that does not name a parameter.
OverrideTarget override_target(toml::table& root, const Override& o);

/// Applies overrides in order (a later one wins over an earlier one for the same path).
void apply_overrides(toml::table& root, const std::vector<Override>& overrides);

/// Every settable path of this document with array entries expanded by name
/// ("cluster.region.us-east.gpus", ...), plus the schema's non-array paths. Used for
/// did-you-mean suggestions and by the sweep runner to list valid axis parameters.
std::vector<std::string> document_paths(const toml::table& root);

}  // namespace geopipe::config
