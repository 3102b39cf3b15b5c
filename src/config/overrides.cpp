// The scenario schema (config/schema.h), scenario_paths(), and "--set path=value" overrides
// (config/overrides.h).
#include "config/overrides.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "config/error.h"
#include "config/schema.h"
#include "config/toml_error.h"

namespace geopipe::config {

// ============================================================================================
// Schema
// ============================================================================================
namespace schema {
namespace {

Field F(std::string name, Kind kind) {
  Field f;
  f.name = std::move(name);
  f.kind = kind;
  return f;
}

Field T(std::string name, const TableSpec* t, Kind kind = Kind::kTable) {
  Field f = F(std::move(name), kind);
  f.table = t;
  return f;
}

Field TA(std::string name, const TableSpec* t, std::string address_key) {
  Field f = T(std::move(name), t, Kind::kTableArray);
  f.address_key = std::move(address_key);
  return f;
}

// Safety limits (keep every integer inside int and every loop bounded).
// The pathfinder keeps the set of used regions in a 64-bit mask (src/sched/pathfinder.cpp).
constexpr double kMaxRegions = 64;
constexpr double kMaxGpusPerRegion = 1'000'000;

}  // namespace

const TableSpec& scenario_root() {
  using K = Kind;
  static const TableSpec scenario{{
      F("name", K::kString).req().says("scenario name, stored with the results"),
      F("seed", K::kInt).ge(0).def("1").says("default seed of `geopipe run` (sweeps set their own)"),
  }};
  static const TableSpec sim{{
      F("mfu", K::kFloat).gt(0).le(1).def("0.4").says("model FLOP utilisation: achieved / peak FLOP/s"),
      F("tp_efficiency", K::kFloat).gt(0).le(1).def("0.9")
          .says("speed factor of a tensor-parallel stage with gpus_per_stage > 1"),
      F("optimizer_step_s", K::kFloat).ge(0).def("0").in("s").says("constant added to every iteration"),
  }};
  static const TableSpec link{{
      F("regions", K::kStringArray).req().len(2).says("the two (distinct, known) regions it connects"),
      F("bandwidth_gbps", K::kFloat).req().gt(0).in("Gbit/s")
          .says("capacity of direction regions[0] -> regions[1] (and back, unless reverse_bandwidth_gbps)"),
      F("reverse_bandwidth_gbps", K::kFloat).gt(0).in("Gbit/s").def("= bandwidth_gbps")
          .says("capacity of direction regions[1] -> regions[0]"),
      F("latency_ms", K::kFloat).req().ge(0).in("ms").says("one-way latency, both directions"),
  }};
  static const TableSpec network{{
      F("bandwidth_scale", K::kFloat).gt(0).def("1.0").says("multiplies every inter-region link capacity"),
      F("intra_bandwidth_gbps", K::kFloat).gt(0).def("100").in("Gbit/s")
          .says("bandwidth of a same-region hop (not contended)"),
      F("intra_latency_ms", K::kFloat).ge(0).def("0.01").in("ms").says("one-way latency of a same-region hop"),
      TA("link", &link, "regions").says("inter-region links; region pairs without one are not connected"),
  }};
  static const TableSpec region{{
      F("name", K::kString).req().says("unique, non-empty"),
      F("gpu", K::kString).req().says("GPU type: a built-in name or a [[gpu]] of this file"),
      F("gpus", K::kInt).req().ge(1).le(kMaxGpusPerRegion).says("GPU count before cluster.capacity_scale"),
      F("price_usd_per_kwh", K::kFloat).gt(0).in("USD/kWh")
          .says("flat electricity price (exactly one of this and price_profile_usd_per_kwh)"),
      F("price_profile_usd_per_kwh", K::kFloatArray).gt(0).len(24).in("USD/kWh")
          .says("24 hourly prices indexed by local hour"),
      F("utc_offset_h", K::kFloat).ge(-12).le(14).def("0").in("h").says("local time = UTC + offset"),
      F("pue", K::kFloat).ge(1).le(3).def("1.0").says("power usage effectiveness"),
      F("carbon_g_per_kwh", K::kFloat).ge(0).def("0 (unknown)").in("gCO2/kWh").says("grid carbon intensity"),
  }};
  static const TableSpec cluster{{
      F("capacity_scale", K::kFloat).gt(0).def("1.0")
          .says("region GPU count = max(0, round(gpus * capacity_scale))"),
      TA("region", &region, "name").req().entries(1, static_cast<std::size_t>(kMaxRegions)).says("the regions"),
  }};
  static const TableSpec gpu{{
      F("name", K::kString).req().says("unique; must not clash with a built-in GPU type"),
      F("peak_tflops", K::kFloat).req().gt(0).in("TFLOP/s").says("peak dense bf16/fp16 tensor throughput"),
      F("memory_gb", K::kFloat).req().gt(0).in("GB (1e9 bytes)").says("GPU memory"),
      F("busy_power_w", K::kFloat).req().gt(0).in("W").says("board power while computing"),
      F("idle_power_w", K::kFloat).req().gt(0).in("W").says("board power while idle (<= busy_power_w)"),
  }};
  static const TableSpec model{{
      F("name", K::kString).req().says("unique; must not clash with a built-in model"),
      F("layers", K::kInt).req().ge(1).le(1024).says("transformer blocks L"),
      F("hidden", K::kInt).req().ge(1).le(1 << 20).says("model width h"),
      F("vocab", K::kInt).req().ge(1).le(1 << 24).says("vocabulary size V"),
      F("seq_len", K::kInt).req().ge(1).le(1 << 20).says("training sequence length s (tokens)"),
      F("bytes_per_elem", K::kInt).ge(1).le(8).def("2").in("bytes").says("activation element size (2 = bf16)"),
  }};
  static const TableSpec mix{{
      F("model", K::kString).req().says("a built-in model or a [[model]] of this file"),
      F("weight", K::kFloat).gt(0).def("1.0").says("relative frequency"),
      F("gpus_per_stage", K::kInt).ge(1).le(4096).def("1").says("tensor-parallel width g of a stage"),
      F("micro_batch_size", K::kInt).ge(1).le(1 << 20).def("1").says("sequences per micro-batch b"),
      F("micro_batches", K::kInt).ge(1).le(1 << 20).def("16").says("micro-batches per iteration m"),
      F("stage_multiplier", K::kFloat).ge(1).le(1024).def("1.0")
          .says("S = ceil(minimum feasible S * multiplier), at most L"),
  }};
  static const TableSpec workload{{
      F("num_jobs", K::kInt).ge(1).le(10'000'000).def("200").says("jobs to generate"),
      F("arrival_rate_per_hour", K::kFloat).gt(0).def("4.0").in("jobs/h").says("Poisson arrival rate"),
      F("load_scale", K::kFloat).gt(0).def("1.0").says("multiplies the arrival rate"),
      F("duration_min_h", K::kFloat).gt(0).def("0.5").in("h").says("shortest run length on reference_gpu"),
      F("duration_max_h", K::kFloat).gt(0).def("72").in("h").says("longest run length (> duration_min_h)"),
      F("duration_pareto_alpha", K::kFloat).gt(0).def("1.1").says("bounded-Pareto shape (smaller = heavier tail)"),
      F("reference_gpu", K::kString).def("\"A100-80GB\"").says("GPU type run lengths are measured on"),
      F("trace", K::kString).def("none")
          .says("CSV job trace (relative to this file) replayed instead of the generator"),
      TA("mix", &mix, "model").says("model mix (at least one entry unless trace is given)"),
  }};
  static const TableSpec scheduler{{
      F("preset", K::kString).def("\"bace-pipe\"").says("scheduler preset of `geopipe run`"),
      F("max_region_switches", K::kInt).ge(0).le(1024).def("3").says("pathfinder: max cross-region hops"),
      F("epsilon", K::kFloat).ge(0).def("0.1")
          .says("cost-min accepts estimated iteration time <= (1 + epsilon) * best"),
      F("priority_runtime_weight", K::kFloat).ge(0).def("1.0").says("dynamic priority: weight of run time"),
      F("priority_network_weight", K::kFloat).ge(0).def("1.0").says("dynamic priority: weight of network pressure"),
      F("priority_aging", K::kFloat).ge(0).def("1.0").says("dynamic priority: score removed per second waited"),
      F("view_staleness_s", K::kFloat).ge(0).def("0").in("s").says("scheduler's bandwidth view refresh period (0 = live)"),
      F("view_noise_sigma", K::kFloat).ge(0).lt(1).def("0").says("relative noise on the viewed bandwidth"),
  }};
  static const TableSpec root{{
      T("scenario", &scenario).req(),
      T("sim", &sim),
      T("network", &network),
      T("cluster", &cluster).req(),
      TA("gpu", &gpu, "name").says("custom GPU types"),
      TA("model", &model, "name").says("custom LLMs"),
      T("workload", &workload).req(),
      T("scheduler", &scheduler),
  }};
  return root;
}

std::string address_placeholder(const Field& f) {
  if (f.address_key == "regions") return "<a>/<b>";
  return "<" + f.address_key + ">";
}

namespace {
std::string bound_text(const Bound& b, bool lower) {
  return std::string(lower ? (b.inclusive ? ">= " : "> ") : (b.inclusive ? "<= " : "< ")) + format_number(b.value);
}
bool violates_lo(const Bound& b, double v) { return b.inclusive ? !(v >= b.value) : !(v > b.value); }
bool violates_hi(const Bound& b, double v) { return b.inclusive ? !(v <= b.value) : !(v < b.value); }

std::string range_text(const Field& f) {
  if (f.lo && f.hi) {
    return std::string("in ") + (f.lo->inclusive ? "[" : "(") + format_number(f.lo->value) + ", " +
           format_number(f.hi->value) + (f.hi->inclusive ? "]" : ")");
  }
  if (f.lo) return bound_text(*f.lo, true);
  if (f.hi) return bound_text(*f.hi, false);
  return "";
}
}  // namespace

std::string bound_phrase(const Field& f, double v) {
  if (!std::isfinite(v)) return "must be a finite number";
  if (f.lo && f.hi) {
    // Natural intervals read best as intervals; guard-rail upper bounds as a single bound.
    if (violates_lo(*f.lo, v)) return "must be " + bound_text(*f.lo, true);
    if (violates_hi(*f.hi, v)) return "must be " + bound_text(*f.hi, false);
    return "must be " + range_text(f);
  }
  if (f.lo && violates_lo(*f.lo, v)) return "must be " + bound_text(*f.lo, true);
  if (f.hi && violates_hi(*f.hi, v)) return "must be " + bound_text(*f.hi, false);
  return "is out of range";
}

std::string expectation_phrase(const Field& f) {
  const std::string r = range_text(f);
  const std::string rs = r.empty() ? "" : " " + r;
  switch (f.kind) {
    case Kind::kInt: return "an integer" + rs;
    case Kind::kFloat: return "a number" + rs;
    case Kind::kString: return "a string";
    case Kind::kFloatArray:
      return "an array of " + (f.length ? std::to_string(f.length) + " " : std::string()) + "numbers" + rs;
    case Kind::kStringArray:
      return "an array of " + (f.length ? std::to_string(f.length) + " " : std::string()) + "strings";
    case Kind::kTable: return "a table";
    case Kind::kTableArray: return "an array of tables";
  }
  return "a value";
}

}  // namespace schema

// ============================================================================================
// Paths
// ============================================================================================
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


/// Parses `value_text` as the value of one TOML key, positioned so that toml++'s source
/// region points at the override (origin, line, column). Returns false if it is not a single
/// valid TOML value.
bool parse_value(const Override& o, const std::string& value_text, toml::table& holder) {
  std::string text;
  const int line = o.line > 0 ? o.line : 1;
  text.append(static_cast<std::size_t>(line - 1), '\n');
  text += "x";
  if (o.column > 3) text.append(static_cast<std::size_t>(o.column - 3), ' ');
  text += "=" + value_text;
  std::string src = o.origin.empty() ? std::string("--set") : o.origin;
  if (o.line <= 0) src += kNoLineMarker;
  try {
    holder = toml::parse(text, std::move(src));
  } catch (const toml::parse_error&) {
    return false;
  }
  return holder.size() == 1 && holder.get("x") != nullptr;
}

}  // namespace

std::vector<std::string> scenario_paths() {
  std::vector<std::string> out;
  collect_paths(schema::scenario_root(), nullptr, "", out);
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

void apply_override(toml::table& root, const Override& o) {
  const std::string origin = o.origin.empty() ? std::string("--set") : o.origin;
  auto fail = [&](const std::string& msg) -> InputError { return InputError(origin, o.line, o.column, msg); };

  std::vector<Token> toks;
  if (std::string err = tokenize(o.path, toks); !err.empty()) throw fail(err);

  auto unknown = [&](const TableSpec& level, const std::string& level_path) -> InputError {
    std::string msg = "unknown parameter '" + o.path + "'";
    const std::vector<std::string> all = document_paths(root);
    if (auto s = did_you_mean(o.path, all)) {
      msg += " (did you mean '" + *s + "'?)";
    } else {
      std::vector<std::string> keys;
      for (const auto& f : level.fields)
        keys.push_back(level_path.empty() ? f.name : level_path + "." + f.name);
      msg += " (expected one of " + quoted_list(keys) + ")";
    }
    return fail(msg);
  };

  const TableSpec* spec = &schema::scenario_root();
  toml::table* tbl = &root;
  std::string walked;  // canonical path walked so far
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.index) throw unknown(*spec, walked);
    const Field* f = spec->find(t.key);
    if (!f) throw unknown(*spec, walked);
    const std::string here = walked.empty() ? f->name : walked + "." + f->name;
    const bool last = i + 1 == toks.size();

    if (f->is_leaf()) {
      if (!last) throw unknown(*spec, walked);
      toml::table holder;
      const bool ok = parse_value(o, o.value, holder);
      toml::node* v = ok ? holder.get("x") : nullptr;
      if (f->expects_string() && (!v || !v->is_string())) {
        // Bare word for a string key: use the raw text as the string.
        Override q = o;
        if (q.column > 1) q.column -= 1;  // the added opening quote sits just before the value
        if (!parse_value(q, toml_quote(o.value), holder)) throw fail(here + ": cannot use '" + o.value + "' as a string");
        v = holder.get("x");
      }
      if (!v) {
        throw fail(here + ": '" + o.value + "' is not a valid TOML value (expected " +
                   schema::expectation_phrase(*f) + ")");
      }
      v->visit([&](auto& node) { tbl->insert_or_assign(f->name, std::move(node)); });
      return;
    }
    if (last) {
      throw fail("'" + here + "' is a table, not a parameter (expected a path such as '" +
                 (f->kind == Kind::kTableArray ? here + "." + schema::address_placeholder(*f) : here) + "." +
                 first_leaf(*f->table) + "')");
    }
    if (f->kind == Kind::kTable) {
      toml::node* n = tbl->get(f->name);
      if (!n) {
        tbl->insert(f->name, toml::table{});
        n = tbl->get(f->name);
      }
      if (!n->is_table())
        throw error_at(n->source(), origin,
                       "cannot apply override '" + o.path + "': " + here + " is " + type_phrase(n->type()) +
                           " in the scenario (expected a table)");
      tbl = n->as_table();
      spec = f->table;
      walked = here;
      continue;
    }
    // Array of tables: the next token names (or indexes) an entry.
    toml::node* n = tbl->get(f->name);
    toml::array* arr = n ? n->as_array() : nullptr;
    if (!arr || arr->empty())
      throw fail("cannot apply override '" + o.path + "': the scenario has no [[" + here + "]] entries");
    // The entry name may itself contain dots (model "gpt3-1.3b"): join tokens until an entry
    // matches, leaving at least one token for the key.
    Token sel = toks[++i];
    if (!sel.index) {
      for (std::size_t j = i; j + 1 < toks.size() && !toks[j].index; ++j) {
        std::string joined = toks[i].key;
        for (std::size_t k = i + 1; k <= j; ++k) joined += "." + toks[k].key;
        bool any = false;
        for (const auto& e : *arr) any = any || entry_matches(e, *f, joined);
        if (any) {
          sel.key = joined;
          i = j;
          break;
        }
      }
    }
    if (i + 1 == toks.size())
      throw fail("'" + o.path + "' names an entry of [[" + here + "]], not a parameter (expected a path such as '" +
                 o.path + "." + first_leaf(*f->table) + "')");
    toml::node* entry = nullptr;
    std::string entry_seg;
    if (sel.index) {
      if (sel.n >= arr->size())
        throw fail("cannot apply override '" + o.path + "': " + here + "[" + std::to_string(sel.n) +
                   "] does not exist (the scenario has " + std::to_string(arr->size()) + " entries)");
      entry = arr->get(sel.n);
      entry_seg = "[" + std::to_string(sel.n) + "]";
    } else {
      std::vector<std::string> names;
      std::size_t count = 0, first_ix = 0;
      for (std::size_t k = 0; k < arr->size(); ++k) {
        const std::string nm = entry_name(*arr->get(k), *f);
        if (!nm.empty()) names.push_back(nm);
        if (entry_matches(*arr->get(k), *f, sel.key)) {
          if (count++ == 0) {
            entry = arr->get(k);
            first_ix = k;
          }
        }
      }
      if (!entry) {
        throw fail("cannot apply override '" + o.path + "': no [[" + here + "]] entry with " + f->address_key +
                   " '" + sel.key + "'" + suggestion_suffix(sel.key, names) + " (entries: " + quoted_list(names) +
                   ")");
      }
      if (count > 1) {
        throw fail("cannot apply override '" + o.path + "': " + std::to_string(count) + " [[" + here +
                   "]] entries have " + f->address_key + " '" + sel.key + "' (address one by index, e.g. " + here +
                   "[" + std::to_string(first_ix) + "]." + toks.back().key + ")");
      }
      entry_seg = "." + segment(sel.key);
    }
    if (!entry->is_table())
      throw error_at(entry->source(), origin,
                     "cannot apply override '" + o.path + "': " + here + " entry is " + type_phrase(entry->type()) +
                         " (expected a table)");
    tbl = entry->as_table();
    spec = f->table;
    walked = here + entry_seg;
  }
  throw unknown(*spec, walked);  // unreachable for non-empty paths
}

void apply_overrides(toml::table& root, const std::vector<Override>& overrides) {
  for (const auto& o : overrides) apply_override(root, o);
}

/// Escapes text as a TOML basic string.
std::string toml_quote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      q += "\\u00";
      q += hex[c >> 4];
      q += hex[c & 15];
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

}  // namespace geopipe::config
