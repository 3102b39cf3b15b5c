// toml++ source regions and parse errors as InputError (config/toml_error.h).
#include "config/toml_error.h"

#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include "config/toml_limits.h"

namespace geopipe::config {

std::string placed_source_path(const std::string& origin, int line, int column) {
  if (line <= 0) return origin + kNoLineMarker;
  return origin + kPlacedMarker + std::to_string(line) + ":" + std::to_string(column);
}

SourceLoc location_of(const toml::source_region& r, const std::string& fallback_file) {
  SourceLoc loc;
  loc.file = (r.path && !r.path->empty()) ? *r.path : fallback_file;
  loc.line = static_cast<int>(r.begin.line);
  loc.column = static_cast<int>(r.begin.column);
  if (!loc.file.empty() && loc.file.back() == kNoLineMarker) {
    loc.file.pop_back();
    loc.line = 0;
  } else if (const auto at = loc.file.find(kPlacedMarker); at != std::string::npos) {
    int line = 0, column = 0;
    const std::string place = loc.file.substr(at + 1);
    const auto colon = place.find(':');
    std::from_chars(place.data(), place.data() + colon, line);
    std::from_chars(place.data() + colon + 1, place.data() + place.size(), column);
    loc.file.resize(at);
    if (loc.line == 1) {
      loc.column = column + loc.column - 3;  // "x=" precedes the value
    }
    loc.line = loc.line > 0 ? line + loc.line - 1 : 0;
  }
  if (loc.line <= 0) loc.line = loc.column = 0;
  if (loc.column < 0) loc.column = 0;
  return loc;
}

InputError error_at(const toml::source_region& r, const std::string& fallback_file, const std::string& msg) {
  SourceLoc loc = location_of(r, fallback_file);
  return InputError(loc.file, loc.line, loc.column, msg);
}

InputError from_parse_error(const toml::parse_error& e, const std::string& fallback_file) {
  std::string desc(e.description());
  if (desc.empty()) desc = "syntax error";
  return error_at(e.source(), fallback_file, "TOML syntax error: " + desc);
}

double number_of(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  return std::numeric_limits<double>::quiet_NaN();
}

std::string type_phrase(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

void refuse_nul(const toml::node& n, const std::string& file, const std::string& where) {
  if (const toml::table* t = n.as_table()) {
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      const std::string path = where.empty() ? key : where + "." + key;
      if (key.find('\0') != std::string::npos)
        throw error_at(k.source(), file, "the key '" + path + "' contains U+0000 (NUL), which no name may (expected printable text)");
      refuse_nul(v, file, path);
    }
  } else if (const toml::array* a = n.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) refuse_nul(*a->get(i), file, where + "[" + std::to_string(i) + "]");
  } else if (const auto* s = n.as_string()) {
    if (s->get().find('\0') != std::string::npos)
      throw error_at(n.source(), file, (where.empty() ? std::string("a string") : where) +
                                           " contains U+0000 (NUL), which no text value may (expected printable text)");
  }
}

bool may_hold_nul(std::string_view text) {
  return text.find('\0') != std::string_view::npos || text.find("\\u0000") != std::string_view::npos ||
         text.find("\\U00000000") != std::string_view::npos;
}

toml::table parse_toml(std::string_view text, const std::string& file) {
  // Before toml++: a key nested too deep would crash it. The same pass lists the comments toml++
  // can be spared (a third of a commented scenario's bytes; toml++ reads ~100 instructions per
  // byte): without them every node keeps its line and column (config/toml_limits.h).
  std::vector<TomlCommentSpan> comments;
  check_toml_limits(text, file, comments);
  std::string shorter;
  if (!comments.empty()) shorter = without_comments(text, comments);
  toml::table t;
  try {
    t = toml::parse(comments.empty() ? text : std::string_view(shorter), file);
  } catch (const toml::parse_error& e) {
    throw from_parse_error(e, file);
  }
  // The walk builds every node's path (a tenth of a scenario's load); a text that cannot hold
  // U+0000 skips it.
  if (may_hold_nul(text)) refuse_nul(t, file, "");
  return t;
}

}  // namespace geopipe::config
