// Generic validation of a scenario document against the schema (config/schema_check.h).
#include "config/schema_check.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "util/input_error.h"
#include "config/schema.h"
#include "config/toml_error.h"

namespace geopipe::config {
namespace {

using schema::Field;
using schema::Kind;
using schema::TableSpec;

/// Where a value sits ("cluster.region[2].gpus"), spelled out only when a message needs it: a
/// valid scenario builds no path strings. A step is a key under `parent`, an entry `[index]` of
/// `parent`, or a caller's ready-made path (`whole`); the root is none of these. Each step
/// lives on the stack of the call that checks it, below its children's.
struct PathRef {
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  const PathRef* parent = nullptr;
  std::string_view key;
  std::size_t index = kNoIndex;
  const std::string* whole = nullptr;

  PathRef key_step(std::string_view k) const { return {this, k, kNoIndex, nullptr}; }
  PathRef entry_step(std::size_t i) const { return {this, {}, i, nullptr}; }
  bool is_root() const { return whole ? whole->empty() : parent == nullptr; }
  std::string str() const {
    if (whole) return *whole;
    if (!parent) return "";
    std::string s = parent->str();
    if (index != kNoIndex) return s + "[" + std::to_string(index) + "]";
    return s.empty() ? std::string(key) : s + "." + std::string(key);
  }
};

/// A value as it reads in a message ("3.5", "\"x\"", "true").
std::string value_text(const toml::node& n) {
  if (const auto* i = n.as_integer()) return std::to_string(i->get());  // exactly, not through a double
  if (n.is_number()) return util::format_number(number_of(n));
  if (const auto* s = n.as_string()) return "\"" + s->get() + "\"";
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  return "";
}

class SchemaCheck {
 public:
  explicit SchemaCheck(const std::string& file) : file_(file) {}

  void check_table(const toml::table& t, const TableSpec& spec, const PathRef& path, bool entry);
  void check_leaf(const toml::node& n, const Field& f, const PathRef& path);

 private:
  const std::string& file_;

  [[noreturn]] void fail(const toml::source_region& r, const std::string& msg) const { throw error_at(r, file_, msg); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { fail(region_of(n), msg); }
  toml::source_region region_of(const toml::node& n) const { return config::region_of(n, file_); }

  void check_number(const toml::node& n, const Field& f, const PathRef& path, bool integer);
};


void SchemaCheck::check_number(const toml::node& n, const Field& f, const PathRef& path, bool int_only) {
  if (int_only) {
    if (!n.is_integer()) {
      std::string got = type_phrase(n.type());
      if (n.is_floating_point()) got += " (" + value_text(n) + ")";
      fail(n, path.str() + ": expected an integer, got " + got);
    }
  } else if (!n.is_number()) {
    if (const auto* w = n.as_string(); w && f.accepts_word(w->get())) return;
    if (!f.words_[0].empty()) {
      std::string ws = "\"" + std::string(f.words_[0]) + "\"";
      if (!f.words_[1].empty()) ws += " or \"" + std::string(f.words_[1]) + "\"";
      fail(n, path.str() + ": expected a number or " + ws + ", got " +
                  (n.is_string() ? value_text(n) : type_phrase(n.type())));
    }
    fail(n, path.str() + ": expected a number, got " + type_phrase(n.type()));
  }
  const double v = number_of(n);
  const bool bad = !std::isfinite(v) || (f.lo && (f.lo->inclusive ? !(v >= f.lo->value) : !(v > f.lo->value))) ||
                   (f.hi && (f.hi->inclusive ? !(v <= f.hi->value) : !(v < f.hi->value)));
  if (bad) fail(n, path.str() + " " + schema::bound_phrase(f, v) + " (got " + value_text(n) + ")");
}

void SchemaCheck::check_leaf(const toml::node& n, const Field& f, const PathRef& path) {
  switch (f.kind) {
    case Kind::kInt: check_number(n, f, path, true); return;
    case Kind::kFloat: check_number(n, f, path, false); return;
    case Kind::kString:
      if (!n.is_string()) fail(n, path.str() + ": expected a string, got " + type_phrase(n.type()));
      return;
    case Kind::kFloatArray:
    case Kind::kStringArray: {
      const toml::array* a = n.as_array();
      if (!a) fail(n, path.str() + ": expected " + schema::expectation_phrase(f) + ", got " + type_phrase(n.type()));
      if (f.length && a->size() != f.length) {
        fail(n, path.str() + ": expected " + schema::expectation_phrase(f) + ", got " + std::to_string(a->size()) +
                    (a->size() == 1 ? " value" : " values"));
      }
      for (std::size_t i = 0; i < a->size(); ++i) {
        const toml::node& e = *a->get(i);
        const PathRef ep = path.entry_step(i);
        if (f.kind == Kind::kFloatArray) {
          check_number(e, f, ep, false);
        } else if (!e.is_string()) {
          fail(e, ep.str() + ": expected a string, got " + type_phrase(e.type()));
        }
      }
      return;
    }
    case Kind::kTable:
    case Kind::kTableArray: break;
  }
}

void SchemaCheck::check_table(const toml::table& t, const TableSpec& spec, const PathRef& path, bool entry) {
  // How messages name this table: where an unknown key is, whose required key is missing.
  auto where = [&] {
    return path.is_root() ? std::string("at the top level") : entry ? "in " + path.str() : "in [" + path.str() + "]";
  };
  auto noun = [&] { return path.is_root() ? std::string("the scenario") : entry ? path.str() : "[" + path.str() + "]"; };

  // Keys in file order (toml::table iterates alphabetically).
  std::vector<std::pair<const toml::key*, const toml::node*>> keys;
  for (const auto& [k, v] : t) keys.emplace_back(&k, &v);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    const auto& ra = a.first->source().begin;
    const auto& rb = b.first->source().begin;
    return ra.line != rb.line ? ra.line < rb.line : ra.column < rb.column;
  });

  for (const auto& [k, v] : keys) {
    if (spec.find(k->str())) continue;
    std::string msg = "unknown key '" + std::string(k->str()) + "' " + where();
    const std::vector<std::string> names = spec.names();
    if (auto s = util::did_you_mean(k->str(), names)) {
      msg += " (did you mean '" + *s + "'?)";
    } else {
      msg += " (expected one of " + util::quoted_list(names) + ")";
    }
    toml::source_region r = k->source();
    if (r.begin.line == 0) r = region_of(*v);
    fail(r, msg);
  }

  for (const auto& [k, v] : keys) {
    const Field& f = *spec.find(k->str());
    const PathRef pr = path.key_step(f.name);
    if (f.kind == Kind::kTable) {
      const toml::table* sub = v->as_table();
      if (!sub) {
        const std::string p = pr.str();
        fail(*v, p + ": expected a table [" + p + "], got " + type_phrase(v->type()));
      }
      check_table(*sub, *f.table, pr, false);
    } else if (f.kind == Kind::kTableArray) {
      const toml::array* a = v->as_array();
      if (!a) {
        const std::string p = pr.str();
        fail(*v, p + ": expected an array of tables [[" + p + "]], got " + type_phrase(v->type()) +
                     (v->is_table() ? " (write [[" + p + "]], not [" + p + "])" : ""));
      }
      if (a->size() < f.min_entries) {
        const std::string p = pr.str();
        fail(*v, p + ": expected at least " + std::to_string(f.min_entries) + " [[" + p + "]] entries, got " +
                     std::to_string(a->size()));
      }
      if (f.max_entries && a->size() > f.max_entries) {
        const std::string p = pr.str();
        fail(*v, p + ": expected at most " + std::to_string(f.max_entries) + " [[" + p + "]] entries, got " +
                     std::to_string(a->size()));
      }
      for (std::size_t i = 0; i < a->size(); ++i) {
        const toml::node& e = *a->get(i);
        const PathRef ep = pr.entry_step(i);
        if (!e.is_table()) fail(e, ep.str() + ": expected a table, got " + type_phrase(e.type()));
        check_table(*e.as_table(), *f.table, ep, true);
      }
    } else {
      check_leaf(*v, f, pr);
    }
  }

  for (const auto& f : spec.fields) {
    if (!f.required || t.contains(f.name)) continue;
    const std::string p = path.key_step(f.name).str();
    if (f.kind == Kind::kTable) fail(region_of(t), "missing required table [" + p + "]");
    if (f.kind == Kind::kTableArray)
      fail(region_of(t), noun() + " is missing required [[" + p + "]] entries (expected at least " +
                             std::to_string(std::max<std::size_t>(1, f.min_entries)) + ")");
    fail(region_of(t), noun() + " is missing required key '" + f.name + "' (expected " +
                           schema::expectation_phrase(f) + ")");
  }
}

}  // namespace

toml::source_region region_of(const toml::node& n, const std::string& file) {
  toml::source_region r = n.source();
  if (r.begin.line == 0) {
    r.begin = {1, 1};
    if (!r.path) r.path = std::make_shared<const std::string>(file);
  }
  return r;
}


void check_schema(const toml::table& root, const std::string& file) {
  SchemaCheck(file).check_table(root, schema::scenario_root(), PathRef{}, false);
}

void check_leaf(const toml::node& n, const schema::Field& f, const std::string& path, const std::string& file) {
  SchemaCheck(file).check_leaf(n, f, PathRef{nullptr, {}, PathRef::kNoIndex, &path});
}

}  // namespace geopipe::config
