// toml++-specific error helpers (internal to src/config and src/sweep): turn toml++ source
// regions and parse errors into geopipe::InputError.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "config/error.h"

namespace geopipe::config {

/// A source path ending in this character denotes text without a meaningful line number
/// (a --set override on the command line): errors there are reported as "origin: msg",
/// without line/column. The marker itself is never shown.
inline constexpr char kNoLineMarker = '\x1f';

struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

/// File/line/column of a toml++ source region; `fallback_file` when the region has no path.
SourceLoc location_of(const toml::source_region& r, const std::string& fallback_file);

/// InputError located at a toml++ source region.
InputError error_at(const toml::source_region& r, const std::string& fallback_file, const std::string& msg);

/// InputError for a toml++ syntax error.
InputError from_parse_error(const toml::parse_error& e, const std::string& fallback_file);

/// "an integer", "a float", "a string", "a boolean", "an array", "a table", "a date", ...
std::string type_phrase(toml::node_type t);

/// Parses TOML text; syntax errors become InputError "file:line:col: <description>".
toml::table parse_toml(std::string_view text, const std::string& file);

}  // namespace geopipe::config
