// Shared pieces of the sweep loader (sweepfile/parse.h).
#include "sweepfile/parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "util/input_error.h"
#include "config/toml_error.h"
#include "config/toml_text.h"

namespace geopipe::config::sweep_internal {
namespace {

std::string table_text(const toml::table& t) {
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : t) {
    s += first ? " " : ", ";
    first = false;
    s += toml_quote(std::string(k.str())) + " = " + toml_text(v);
  }
  return s + (first ? "}" : " }");
}

void flatten(const SweepFile& file, const toml::table& t, const std::string& prefix, std::vector<Entry>& out,
             std::map<std::string, Pos>& seen, const std::string& where) {
  for (const auto& [k, v] : in_file_order(t)) {
    const std::string key(k->str());
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (const toml::table* sub = v->as_table()) {
      flatten(file, *sub, path, out, seen, where);
      continue;
    }
    Entry e;
    e.path = path;
    e.value.text = toml_text(*v);
    e.value.numeric = v->is_number();
    e.value.number = number_of(*v);
    e.value.pos = pos_of(*v);
    if (auto it = seen.find(path); it != seen.end())
      file.fail(e.value.pos, where + ": parameter '" + path + "' is set twice (first at line " +
                                 std::to_string(it->second.line) + ")");
    seen.emplace(path, e.value.pos);
    out.push_back(std::move(e));
  }
}

}  // namespace

Pos pos_of(const toml::source_region& r) {
  if (r.begin.line == 0) return {};
  return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}
Pos pos_of(const toml::node& n) { return pos_of(n.source()); }
Pos pos_of(const toml::key& k, const toml::node& v) {
  const Pos p = pos_of(k.source());
  return k.source().begin.line == 0 ? pos_of(v) : p;
}

std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s = ec == std::errc() ? std::string(buf, end) : std::to_string(v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string toml_text(const toml::node& n) {
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) return float_text(f->get());
  if (const auto* s = n.as_string()) return toml_quote(s->get());
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* a = n.as_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < a->size(); ++i) s += (i ? ", " : "") + toml_text(*a->get(i));
    return s + "]";
  }
  if (const auto* t = n.as_table()) return table_text(*t);
  std::ostringstream os;  // dates and times
  n.visit([&](const auto& v) {
    if constexpr (toml::is_date<decltype(v)> || toml::is_time<decltype(v)> || toml::is_date_time<decltype(v)>)
      os << v;
  });
  return os.str();
}


std::string type_of(const toml::node& n) { return type_phrase(n.type()); }

std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> keys;
  for (const auto& [k, v] : t) keys.emplace_back(&k, &v);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    const Pos pa = pos_of(*a.first, *a.second), pb = pos_of(*b.first, *b.second);
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return keys;
}

void SweepFile::fail(Pos p, const std::string& msg) const { throw InputError(path_, p.line, p.column, msg); }
void SweepFile::fail(const toml::node& n, const std::string& msg) const { fail(pos_of(n), msg); }

void SweepFile::check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where,
                           const std::string& hint) const {
  for (const auto& [k, v] : in_file_order(t)) {
    const std::string key(k->str());
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "' " + where;
    if (auto s = util::did_you_mean(key, allowed)) {
      msg += " (did you mean '" + *s + "'?)";
    } else {
      msg += " (expected one of " + util::quoted_list(allowed) + ")";
      if (!hint.empty()) msg += "; " + hint;
    }
    fail(pos_of(*k, *v), msg);
  }
}

void SweepFile::array_of_tables(const toml::table& root, const std::string& key,
                                std::vector<const toml::table*>& out) const {
  const toml::node* n = root.get(key);
  if (!n) return;
  const toml::array* a = n->as_array();
  if (!a)
    fail(*n, key + ": expected an array of tables [[" + key + "]], got " + type_of(*n) +
                 (n->is_table() ? " (write [[" + key + "]], not [" + key + "])" : ""));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    if (!e.is_table()) fail(e, key + "[" + std::to_string(i) + "]: expected a table, got " + type_of(e));
    out.push_back(e.as_table());
  }
}

std::vector<Entry> SweepFile::parse_entries(const toml::table& t, const std::string& where) const {
  std::vector<Entry> out;
  std::map<std::string, Pos> seen;
  flatten(*this, t, "", out, seen, where);
  return out;
}

Override SweepFile::override_of(const std::string& param, const Value& v) const {
  Override o;
  o.path = param;
  o.value = v.text;
  o.origin = v.origin.empty() ? path_ : v.origin;
  o.line = v.pos.line;
  o.column = v.pos.column;
  return o;
}

}  // namespace geopipe::config::sweep_internal
