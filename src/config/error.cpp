#include "config/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "config/toml_error.h"
#include "config/toml_limits.h"

namespace geopipe::config {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: skip what cannot be close (and keeps a
    // megabyte-long key from costing its length times every candidate's).
    const std::size_t diff = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (diff >= best_d) continue;
    const std::size_t d = edit_distance(word, c);
    if (c == word) continue;  // the word itself is no suggestion (a case variant is)
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto s = did_you_mean(word, candidates)) return " (did you mean '" + *s + "'?)";
  return "";
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t max_items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i == max_items) {
      out += ", ...";
      break;
    }
    if (i) out += ", ";
    out += "'" + items[i] + "'";
  }
  return out;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return std::to_string(v);
  return std::string(buf, p);
}

// ---- toml++ helpers (config/toml_error.h) ----

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

toml::table parse_toml(std::string_view text, const std::string& file) {
  check_toml_limits(text, file);  // before toml++: a key nested too deep would crash it
  toml::table t;
  try {
    t = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw from_parse_error(e, file);
  }
  refuse_nul(t, file, "");
  return t;
}

}  // namespace geopipe::config
