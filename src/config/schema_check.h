// Internal to src/config (includes toml++). Owns the generic validation of a parsed scenario
// document against the schema data of config/schema.h: unknown keys (with did-you-mean), value
// types, numeric ranges, array lengths, entry counts and missing required keys, with their
// error messages. The cross-field and semantic rules are scenario_loader.cpp's.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "config/schema.h"

namespace geopipe::config {

/// Source region of a node; the root table (which has none) is 1:1 of `file`.
toml::source_region region_of(const toml::node& n, const std::string& file);

/// Checks `root` against schema::scenario_root(). Keys are checked in file order: first every
/// unknown key of a table, then each known key's value (recursing into tables), then the
/// required keys. Throws InputError at the first problem (file/line/column of the node; `file`
/// for nodes without a source path).
void check_schema(const toml::table& root, const std::string& file);

/// Checks one value `n` of the leaf `f` (its type, range and length, as check_schema does), named
/// `path` in messages. Throws InputError at `n` (`file` if it has no source).
void check_leaf(const toml::node& n, const schema::Field& f, const std::string& path, const std::string& file);

}  // namespace geopipe::config
