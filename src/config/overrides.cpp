// Parameter paths (scenario_paths(), document_paths()) and "--set path=value" overrides
// (config/overrides.h), resolved against the scenario schema (config/schema.h).
#include "config/overrides.h"

#include <cstddef>

#include "util/input_error.h"
#include "config/schema.h"
#include "config/toml_error.h"
#include "config/toml_limits.h"

namespace geopipe::config {
namespace {

using schema::Field;
using schema::Kind;
using schema::TableSpec;

struct Token {
  std::string key;    // key or entry name (unquoted)
  bool index = false; // [n]
  std::size_t n = 0;
};

bool is_bare_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '/';
}

/// Quotes a path segment unless it is made of bare characters only.
std::string segment(const std::string& s) {
  bool bare = !s.empty() && s.front() != '.' && s.back() != '.' && s.find("..") == std::string::npos;
  for (char c : s) bare = bare && (is_bare_char(c) || c == '.');  // dotted names resolve unquoted
  if (bare) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

/// Splits "a.b[0].\"x.y\"" into tokens; returns an error text or "".
std::string tokenize(const std::string& path, std::vector<Token>& out) {
  const std::string bad = "malformed parameter path '" + path + "' (expected dotted keys such as network.bandwidth_scale)";
  std::size_t i = 0;
  if (path.empty()) return "empty parameter path (expected dotted keys such as network.bandwidth_scale)";
  while (true) {
    Token t;
    if (i < path.size() && path[i] == '"') {
      ++i;
      bool closed = false;
      while (i < path.size()) {
        char c = path[i++];
        if (c == '\\' && i < path.size()) {
          t.key += path[i++];
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          t.key += c;
        }
      }
      if (!closed) return "unterminated quote in parameter path '" + path + "'";
    } else {
      while (i < path.size() && path[i] != '.' && path[i] != '[') {
        if (!is_bare_char(path[i]) && path[i] != '+' && path[i] != ':') return bad;
        t.key += path[i++];
      }
      if (t.key.empty()) return bad;
    }
    out.push_back(t);
    if (out.size() > static_cast<std::size_t>(kMaxTomlDepth))
      return "parameter path '" + path + "' has more than " + std::to_string(kMaxTomlDepth) +
             " parts (expected dotted keys such as network.bandwidth_scale)";
    while (i < path.size() && path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) return bad;
      Token ix;
      ix.index = true;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (path[k] < '0' || path[k] > '9' || ix.n > 100'000'000) return bad;
        ix.n = ix.n * 10 + static_cast<std::size_t>(path[k] - '0');
      }
      out.push_back(ix);
      i = close + 1;
    }
    if (i == path.size()) return "";
    if (path[i] != '.') return bad;
    ++i;
    if (i == path.size()) return bad;
  }
}

/// Name of an array-of-tables entry for path addressing, or "" if it has none.
std::string entry_name(const toml::node& entry, const Field& f) {
  const toml::table* t = entry.as_table();
  if (!t) return "";
  const toml::node* n = t->get(f.address_key);
  if (!n) return "";
  if (const auto* s = n->as_string()) return s->get();
  if (const auto* a = n->as_array(); a && a->size() == 2 && (*a)[0].is_string() && (*a)[1].is_string())
    return (*a)[0].as_string()->get() + "/" + (*a)[1].as_string()->get();
  return "";
}

bool entry_matches(const toml::node& entry, const Field& f, const std::string& name) {
  const std::string own = entry_name(entry, f);
  if (own.empty()) return false;
  if (own == name) return true;
  if (f.address_key == "regions") {  // a link matches "a/b" and "b/a"
    const auto slash = own.find('/');
    return own.substr(slash + 1) + "/" + own.substr(0, slash) == name;
  }
  return false;
}

void collect_paths(const TableSpec& spec, const toml::table* doc, const std::string& prefix,
                   std::vector<std::string>& out) {
  for (const auto& f : spec.fields) {
    const std::string p = prefix.empty() ? f.name : prefix + "." + f.name;
    if (f.is_leaf()) {
      out.push_back(p);
    } else if (f.kind == Kind::kTable) {
      const toml::table* sub = doc ? doc->get_as<toml::table>(f.name) : nullptr;
      collect_paths(*f.table, sub, p, out);
    } else {
      const toml::array* arr = doc ? doc->get_as<toml::array>(f.name) : nullptr;
      if (!doc) {
        collect_paths(*f.table, nullptr, p + "." + schema::address_placeholder(f), out);
      } else if (arr) {
        for (const auto& e : *arr) {
          const std::string name = entry_name(e, f);
          if (!name.empty()) collect_paths(*f.table, e.as_table(), p + "." + segment(name), out);
        }
      }
    }
  }
}

/// Name of the first plain value of a table (for "expected a path such as ..." hints).
std::string first_leaf(const TableSpec& t) {
  for (const auto& f : t.fields)
    if (f.is_leaf() && f.name != "name" && f.name != "model" && f.name != "regions") return f.name;  // skip selectors
  return t.fields.front().name;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}


/// Parses `value_text` as the value of one TOML key, with toml++'s source regions pointing at
/// the override (origin, line, column; see kPlacedMarker). Returns false if it is not a single
/// valid TOML value; `why` then says so if the text breaks a limit of config/toml_limits.h.
bool parse_value(const Override& o, const std::string& value_text, toml::table& holder, std::string* why = nullptr) {
  const std::string text = "x=" + value_text;
  if (auto v = scan_toml_limits(text)) {
    if (why) *why = v->message;
    return false;
  }
  const std::string shown = o.origin.empty() ? std::string("--set") : o.origin;
  try {
    holder = toml::parse(text, placed_source_path(shown, o.line, o.column));
  } catch (const toml::parse_error&) {
    return false;
  }
  if (holder.size() != 1 || holder.get("x") == nullptr) return false;
  refuse_nul(*holder.get("x"), shown, o.path);
  return true;
}

/// Applies one override: walks its path token by token through the schema and the document,
/// descending into tables and selecting entries of arrays of tables, then sets the leaf value.
class OverrideWalk {
 public:
  OverrideWalk(toml::table& root, const Override& o)
      : root_(root), o_(o), origin_(o.origin.empty() ? std::string("--set") : o.origin), tbl_(&root) {
    if (std::string err = tokenize(o.path, toks_); !err.empty()) throw fail(err);
  }

  /// Resolves the path without setting anything: where apply() would set the value.
  OverrideTarget target() {
    target_only_ = true;
    apply();
    return target_;
  }

  void apply() {
    for (; i_ < toks_.size(); ++i_) {
      const Token& t = toks_[i_];
      const Field* f = t.index ? nullptr : spec_->find(t.key);
      if (!f) throw unknown();
      const std::string here = walked_.empty() ? f->name : walked_ + "." + f->name;
      const bool last = i_ + 1 == toks_.size();
      if (f->is_leaf()) {
        if (!last) throw unknown();
        set_leaf(*f, here);
        return;
      }
      if (last) throw not_a_parameter(*f, here);
      if (f->kind == Kind::kTable) {
        descend_table(*f, here);
      } else {
        select_entry(*f, here);
      }
    }
    throw unknown();  // unreachable for non-empty paths
  }

 private:
  /// An entry of an array of tables and its canonical path segment ("[2]" or ".name").
  struct Selected {
    toml::node* entry = nullptr;
    std::string segment;
    std::size_t index = 0;  ///< position in the array
  };

  toml::table& root_;
  const Override& o_;
  std::string origin_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;                                 ///< token being resolved
  const TableSpec* spec_ = &schema::scenario_root();  ///< schema of tbl_
  toml::table* tbl_;                                  ///< table reached so far
  std::string walked_;                                ///< canonical path of tbl_
  std::string indexed_;                               ///< the same with every entry by index
  bool target_only_ = false;                          ///< target(): record, do not set
  OverrideTarget target_;

  InputError fail(const std::string& msg) const { return InputError(origin_, o_.line, o_.column, msg); }

  InputError unknown() const {
    std::string msg = "unknown parameter '" + o_.path + "'";
    if (auto s = util::did_you_mean(o_.path, document_paths(root_))) {
      msg += " (did you mean '" + *s + "'?)";
    } else {
      std::vector<std::string> keys;
      for (const auto& f : spec_->fields) keys.push_back(walked_.empty() ? f.name : walked_ + "." + f.name);
      msg += " (expected one of " + util::quoted_list(keys) + ")";
    }
    return fail(msg);
  }

  InputError not_a_parameter(const Field& f, const std::string& here) const {
    return fail("'" + here + "' is a table, not a parameter (expected a path such as '" +
                (f.kind == Kind::kTableArray ? here + "." + schema::address_placeholder(f) : here) + "." +
                first_leaf(*f.table) + "')");
  }

  /// Resolves the override's value for leaf `f` and sets it in the current table.
  void set_leaf(const Field& f, const std::string& here) {
    if (target_only_) {
      target_ = OverrideTarget{tbl_, f.name, (indexed_.empty() ? "" : indexed_ + ".") + f.name, &f};
      return;
    }
    toml::table holder;
    std::string why;
    const bool ok = parse_value(o_, o_.value, holder, &why);
    toml::node* v = ok ? holder.get("x") : nullptr;
    if (f.expects_string() && (!v || !v->is_string())) {
      // Bare word for a string key: use the raw text as the string.
      Override q = o_;
      if (q.column > 1) q.column -= 1;  // the added opening quote sits just before the value
      if (!parse_value(q, toml_quote(o_.value), holder)) throw fail(here + ": cannot use '" + o_.value + "' as a string");
      v = holder.get("x");
    }
    if (!v && !why.empty()) throw fail(here + ": " + why);
    if (!v) {
      throw fail(here + ": '" + o_.value + "' is not a valid TOML value (expected " + schema::expectation_phrase(f) +
                 ")");
    }
    v->visit([&](auto& node) { tbl_->insert_or_assign(f.name, std::move(node)); });
  }

  /// Descends into plain table `f`, creating it if the document has none.
  void descend_table(const Field& f, const std::string& here) {
    toml::node* n = tbl_->get(f.name);
    if (!n) {
      tbl_->insert(f.name, toml::table{});
      n = tbl_->get(f.name);
    }
    if (!n->is_table())
      throw error_at(n->source(), origin_,
                     "cannot apply override '" + o_.path + "': " + here + " is " + type_phrase(n->type()) +
                         " in the scenario (expected a table)");
    tbl_ = n->as_table();
    spec_ = f.table;
    walked_ = here;
    indexed_ += (indexed_.empty() ? "" : ".") + f.name;
  }

  /// Descends into the entry of array of tables `f` that the next token(s) select.
  void select_entry(const Field& f, const std::string& here) {
    toml::node* n = tbl_->get(f.name);
    toml::array* arr = n ? n->as_array() : nullptr;
    if (!arr || arr->empty())
      throw fail("cannot apply override '" + o_.path + "': the scenario has no [[" + here + "]] entries");
    const Token sel = selector(*arr, f);
    if (i_ + 1 == toks_.size())
      throw fail("'" + o_.path + "' names an entry of [[" + here + "]], not a parameter (expected a path such as '" +
                 o_.path + "." + first_leaf(*f.table) + "')");
    const Selected s = sel.index ? by_index(*arr, sel.n, here) : by_name(*arr, f, sel.key, here);
    if (!s.entry->is_table())
      throw error_at(s.entry->source(), origin_,
                     "cannot apply override '" + o_.path + "': " + here + " entry is " + type_phrase(s.entry->type()) +
                         " (expected a table)");
    tbl_ = s.entry->as_table();
    spec_ = f.table;
    walked_ = here + s.segment;
    indexed_ += (indexed_.empty() ? "" : ".") + f.name + "[" + std::to_string(s.index) + "]";
  }

  /// Consumes the selector token(s) after an array of tables. The entry name may itself contain
  /// dots (model "gpt3-1.3b"): tokens are joined until an entry matches, leaving at least one
  /// token for the key.
  Token selector(const toml::array& arr, const Field& f) {
    Token sel = toks_[++i_];
    if (sel.index) return sel;
    for (std::size_t j = i_; j + 1 < toks_.size() && !toks_[j].index; ++j) {
      std::string joined = toks_[i_].key;
      for (std::size_t k = i_ + 1; k <= j; ++k) joined += "." + toks_[k].key;
      bool any = false;
      for (const auto& e : arr) any = any || entry_matches(e, f, joined);
      if (any) {
        sel.key = joined;
        i_ = j;
        break;
      }
    }
    return sel;
  }

  Selected by_index(toml::array& arr, std::size_t n, const std::string& here) const {
    if (n >= arr.size())
      throw fail("cannot apply override '" + o_.path + "': " + here + "[" + std::to_string(n) +
                 "] does not exist (the scenario has " + std::to_string(arr.size()) + " entries)");
    return {arr.get(n), "[" + std::to_string(n) + "]", n};
  }

  Selected by_name(toml::array& arr, const Field& f, const std::string& name, const std::string& here) const {
    std::vector<std::string> names;
    toml::node* entry = nullptr;
    std::size_t count = 0, first_ix = 0;
    for (std::size_t k = 0; k < arr.size(); ++k) {
      const std::string nm = entry_name(*arr.get(k), f);
      if (!nm.empty()) names.push_back(nm);
      if (entry_matches(*arr.get(k), f, name) && count++ == 0) {
        entry = arr.get(k);
        first_ix = k;
      }
    }
    if (!entry) {
      throw fail("cannot apply override '" + o_.path + "': no [[" + here + "]] entry with " + std::string(f.address_key) + " '" +
                 name + "'" + util::suggestion_suffix(name, names) + " (entries: " + util::quoted_list(names) + ")");
    }
    if (count > 1) {
      throw fail("cannot apply override '" + o_.path + "': " + std::to_string(count) + " [[" + here +
                 "]] entries have " + std::string(f.address_key) + " '" + name + "' (address one by index, e.g. " + here + "[" +
                 std::to_string(first_ix) + "]." + toks_.back().key + ")");
    }
    return {entry, "." + segment(name), first_ix};
  }
};

}  // namespace

std::vector<std::string> scenario_paths() {
  std::vector<std::string> out;
  for (const schema::Parameter& p : schema::parameters()) out.push_back(p.path);
  return out;
}

std::vector<std::string> document_paths(const toml::table& root) {
  std::vector<std::string> out;
  collect_paths(schema::scenario_root(), &root, "", out);
  return out;
}

Override parse_override(const std::string& arg) {
  const std::string usage = " (expected path=value, e.g. network.bandwidth_scale=2)";
  bool quoted = false;
  std::size_t eq = std::string::npos;
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] == '"') quoted = !quoted;
    if (arg[i] == '=' && !quoted) {
      eq = i;
      break;
    }
  }
  if (eq == std::string::npos) throw InputError("--set", 0, 0, "malformed override '" + arg + "'" + usage);
  Override o;
  o.origin = "--set";
  o.path = trim(arg.substr(0, eq));
  if (o.path.empty()) throw InputError("--set", 0, 1, "malformed override '" + arg + "': empty parameter path" + usage);
  std::vector<Token> toks;
  if (std::string err = tokenize(o.path, toks); !err.empty()) throw InputError("--set", 0, 1, err);
  const std::string raw = arg.substr(eq + 1);
  const auto first = raw.find_first_not_of(" \t");
  o.value = trim(raw);
  o.column = static_cast<int>(eq + 2 + (first == std::string::npos ? raw.size() : first));
  return o;
}

void apply_override(toml::table& root, const Override& o) { OverrideWalk(root, o).apply(); }

OverrideTarget override_target(toml::table& root, const Override& o) { return OverrideWalk(root, o).target(); }

void apply_overrides(toml::table& root, const std::vector<Override>& overrides) {
  for (const auto& o : overrides) apply_override(root, o);
}

}  // namespace geopipe::config
