// Sweep files (TOML) -> SweepSpec, and ScenarioFactory (config/sweep_loader.h). The format is
// documented in docs/sweep-format.md.
//
// Parameter values reach the scenario through the --set machinery (config/overrides.h): every
// axis / zip / point / [sweep.set] value becomes an Override whose origin, line and column are
// those of the value in the sweep file, so type and range errors found by the scenario
// validator point into the sweep file. load_sweep_file() builds every point's scenario once.
// It tries a fast path first (copy of the pre-parsed base table). That path loses the source
// regions of the base file's own nodes (toml++ does not copy them). So when it fails, the point
// is rebuilt on a freshly parsed base, and that error is reported with exact locations.
#include "config/sweep_loader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "config/error.h"
#include "config/overrides.h"
#include "config/toml_error.h"
#include "config/toml_scenario.h"
#include "sched/registry.h"
#include "util/hash.h"

namespace geopipe::config {
namespace {

namespace fs = std::filesystem;

/// Scenario ids must stay below 2^40 (DESIGN.md §4; plan.h packs them into 40 bits).
constexpr std::uint64_t kMaxScenarios = std::uint64_t{1} << 40;
/// Points and seeds are materialised (and every point is validated) before any work.
constexpr std::uint64_t kMaxPoints = 1'000'000;
constexpr std::uint64_t kMaxSeeds = 10'000'000;

const char* const kEmptyMsg =
    "empty sweep file (expected a [sweep] table with name, base, schedulers and seeds)";

struct Pos {
  int line = 1;
  int column = 1;
};

Pos pos_of(const toml::source_region& r) {
  if (r.begin.line == 0) return {};
  return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}
Pos pos_of(const toml::node& n) { return pos_of(n.source()); }
Pos pos_of(const toml::key& k, const toml::node& v) {
  const Pos p = pos_of(k.source());
  return k.source().begin.line == 0 ? pos_of(v) : p;
}

// ---- TOML text of values --------------------------------------------------------------------


/// Shortest text that reads back to `v`, always a TOML float ("1.0", "0.5", "1e-05", "inf").
std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s = ec == std::errc() ? std::string(buf, end) : std::to_string(v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string toml_text(const toml::node& n);

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

double number_of(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  return std::numeric_limits<double>::quiet_NaN();
}

/// Rounds to 15 significant digits, so that generated values read as the decimals they stand
/// for (0.1 + 2 * 0.1 -> 0.3, not 0.30000000000000004).
double tidy(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return std::strtod(buf, nullptr);
}

/// Keys of a table in file order (toml::table iterates alphabetically).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> keys;
  for (const auto& [k, v] : t) keys.emplace_back(&k, &v);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    const Pos pa = pos_of(*a.first, *a.second), pb = pos_of(*b.first, *b.second);
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return keys;
}

// ---- intermediate representation ------------------------------------------------------------

struct Value {
  std::string text;                                          ///< TOML text
  double number = std::numeric_limits<double>::quiet_NaN();  ///< numeric value (NaN: not a number)
  bool numeric = false;
  Pos pos;                                                   ///< where it is (or its range) in the file
};

/// One [[axis]] or [[zip.axis]].
struct Member {
  std::string name;  ///< "axis[0]", "zip[1].axis[0]" (for messages)
  std::string param;
  Pos param_pos;
  Pos data_pos;          ///< values array or range table
  bool from_range = false;
  bool integer = false;
  std::vector<Value> values;
};

/// One dimension of the product: a single [[axis]], or a [[zip]] group.
struct Dim {
  std::vector<Member> members;
  Pos pos;
  std::size_t size() const { return members.front().values.size(); }
};

/// One explicit [[point]] (or the [sweep.set] table): flattened path = value entries.
struct Entry {
  std::string path;
  Value value;
};

std::string type_of(const toml::node& n) { return type_phrase(n.type()); }

// ---- file reading ----------------------------------------------------------------------------

enum class ReadStatus { kOk, kDirectory, kMissing, kUnreadable };

ReadStatus read_text(const std::string& path, std::string& out) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return ReadStatus::kDirectory;
  std::ifstream f(path, std::ios::binary);
  if (!f) return fs::exists(path, ec) ? ReadStatus::kUnreadable : ReadStatus::kMissing;
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return ReadStatus::kUnreadable;
  out = ss.str();
  return ReadStatus::kOk;
}

std::string dir_of(const std::string& file) {
  std::string d = fs::path(file).parent_path().string();
  return d.empty() ? std::string(".") : d;
}

// ---- point construction and validation (shared by load_sweep_file and ScenarioFactory) -------

/// Base document with the fixed overrides applied, parsed once.
struct Prepared {
  toml::table pre;
  std::string base_path;
  std::string base_dir;

  Prepared(const std::string& base_text, std::string path, const std::vector<Override>& fixed)
      : base_path(std::move(path)), base_dir(dir_of(base_path)) {
    pre = parse_toml(base_text, base_path);
    apply_overrides(pre, fixed);
  }

  /// Fast: copies the pre-parsed table (base-file source regions are lost, see overrides.h).
  Scenario make(const std::vector<Override>& point) const {
    toml::table doc = pre;
    apply_overrides(doc, point);
    return build_scenario(doc, base_path, base_dir);
  }
};

/// Slow and exact: a freshly parsed base, so every error points at the right place.
Scenario make_fresh(const std::string& base_text, const std::string& base_path, const std::vector<Override>& fixed,
                    const std::vector<Override>& point) {
  toml::table doc = parse_scenario_toml(base_text, base_path);
  apply_overrides(doc, fixed);
  apply_overrides(doc, point);
  return build_scenario(doc, base_path, dir_of(base_path));
}

// ---- the loader -----------------------------------------------------------------------------

class Loader {
 public:
  Loader(std::string path, std::vector<Override> cli_sets) : path_(std::move(path)), cli_sets_(std::move(cli_sets)) {}

  SweepSpec load();

 private:
  std::string path_;
  std::vector<Override> cli_sets_;
  SweepSpec spec_;
  Pos base_pos_;
  Pos sweep_pos_;
  std::vector<Entry> set_;
  std::vector<Dim> dims_;
  std::vector<std::vector<Entry>> explicit_points_;

  [[noreturn]] void fail(Pos p, const std::string& msg) const { throw InputError(path_, p.line, p.column, msg); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { fail(pos_of(n), msg); }

  void check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where,
                  const std::string& hint = "") const;
  const toml::table* array_of_tables(const toml::table& root, const std::string& key,
                                     std::vector<const toml::table*>& out) const;
  Override override_of(const std::string& param, const Value& v) const {
    Override o;
    o.path = param;
    o.value = v.text;
    o.origin = path_;
    o.line = v.pos.line;
    o.column = v.pos.column;
    return o;
  }

  void parse_sweep(const toml::table& sweep);
  void parse_schedulers(const toml::node& n);
  void parse_seeds(const toml::node& n);
  void read_base(const toml::node& n);
  std::vector<Entry> parse_entries(const toml::table& t, const std::string& where);
  void flatten(const toml::table& t, const std::string& prefix, std::vector<Entry>& out,
               std::map<std::string, Pos>& seen, const std::string& where);
  Member parse_member(const toml::table& t, const std::string& name, bool in_zip);
  void parse_values(const toml::node& n, Member& m);
  void parse_range(const toml::node& n, Member& m);
  void apply_integer(const toml::node& flag, Member& m);
  void check_paths();
  void build_points(std::uint64_t product);
  void validate_points();
  [[noreturn]] void report_point_error(std::size_t i, const InputError& e) const;
};

void Loader::check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where,
                        const std::string& hint) const {
  for (const auto& [k, v] : in_file_order(t)) {
    const std::string key(k->str());
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "' " + where;
    if (auto s = did_you_mean(key, allowed)) {
      msg += " (did you mean '" + *s + "'?)";
    } else {
      msg += " (expected one of " + quoted_list(allowed) + ")";
      if (!hint.empty()) msg += "; " + hint;
    }
    fail(pos_of(*k, *v), msg);
  }
}

const toml::table* Loader::array_of_tables(const toml::table& root, const std::string& key,
                                           std::vector<const toml::table*>& out) const {
  const toml::node* n = root.get(key);
  if (!n) return nullptr;
  const toml::array* a = n->as_array();
  if (!a)
    fail(*n, key + ": expected an array of tables [[" + key + "]], got " + type_of(*n) +
                 (n->is_table() ? " (write [[" + key + "]], not [" + key + "])" : ""));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    if (!e.is_table())
      fail(e, key + "[" + std::to_string(i) + "]: expected a table, got " + type_of(e));
    out.push_back(e.as_table());
  }
  return &root;
}

SweepSpec Loader::load() {
  spec_.path = path_;
  switch (read_text(path_, spec_.text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kDirectory: throw InputError(path_, 0, 0, "cannot open sweep file: it is a directory");
    case ReadStatus::kMissing: throw InputError(path_, 0, 0, "cannot open sweep file (no such file)");
    case ReadStatus::kUnreadable: throw InputError(path_, 0, 0, "cannot read sweep file (not readable)");
  }
  const toml::table root = parse_toml(spec_.text, path_);
  if (root.empty()) fail(Pos{}, kEmptyMsg);
  check_keys(root, {"sweep", "axis", "zip", "point"}, "at the top level",
             "fixed parameters go in [sweep.set]");

  const toml::node* sweep = root.get("sweep");
  if (!sweep) fail(Pos{}, "missing required table [sweep] (expected name, base, schedulers and seeds)");
  if (!sweep->is_table()) fail(*sweep, "sweep: expected a table [sweep], got " + type_of(*sweep));
  parse_sweep(*sweep->as_table());

  // Dimensions: [[axis]] entries and [[zip]] groups, in file order.
  std::vector<const toml::table*> axes, zips, points;
  array_of_tables(root, "axis", axes);
  array_of_tables(root, "zip", zips);
  array_of_tables(root, "point", points);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    Dim d;
    d.members.push_back(parse_member(*axes[i], "axis[" + std::to_string(i) + "]", false));
    d.pos = pos_of(*axes[i]);
    dims_.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < zips.size(); ++i) {
    const toml::table& z = *zips[i];
    const std::string zname = "zip[" + std::to_string(i) + "]";
    check_keys(z, {"axis"}, "in [[zip]]", "a [[zip]] holds only [[zip.axis]] entries");
    std::vector<const toml::table*> members;
    const toml::node* an = z.get("axis");
    if (!an) fail(z, zname + ": [[zip]] needs at least one [[zip.axis]] entry (expected [[zip.axis]] with param and values)");
    const toml::array* aa = an->as_array();
    if (!aa)
      fail(*an, zname + ".axis: expected an array of tables [[zip.axis]], got " + type_of(*an) +
                    (an->is_table() ? " (write [[zip.axis]], not [zip.axis])" : ""));
    if (aa->empty()) fail(*an, zname + ".axis: empty (expected at least one [[zip.axis]] entry)");
    Dim d;
    d.pos = pos_of(z);
    for (std::size_t j = 0; j < aa->size(); ++j) {
      const toml::node& e = *aa->get(j);
      const std::string mname = zname + ".axis[" + std::to_string(j) + "]";
      if (!e.is_table()) fail(e, mname + ": expected a table, got " + type_of(e));
      Member m = parse_member(*e.as_table(), mname, true);
      for (const Member& prev : d.members)
        if (prev.param == m.param)
          fail(m.param_pos, mname + ".param: '" + m.param + "' appears twice in this [[zip]] (first as " + prev.name +
                                ")");
      if (!d.members.empty() && m.values.size() != d.size()) {
        const Member& first = d.members.front();
        fail(m.data_pos, mname + " ('" + m.param + "') has " + std::to_string(m.values.size()) +
                             (m.values.size() == 1 ? " value" : " values") + " but " + first.name + " ('" +
                             first.param + "') has " + std::to_string(first.values.size()) +
                             " (expected all members of a [[zip]] to have the same number of values)");
      }
      d.members.push_back(std::move(m));
    }
    dims_.push_back(std::move(d));
  }
  std::stable_sort(dims_.begin(), dims_.end(), [](const Dim& a, const Dim& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  // A parameter may be swept by one dimension only.
  {
    std::map<std::string, const Member*> owner;
    for (const Dim& d : dims_)
      for (const Member& m : d.members) {
        auto [it, fresh] = owner.emplace(m.param, &m);
        if (!fresh)
          fail(m.param_pos, m.name + ".param: '" + m.param + "' is already swept by " + it->second->name +
                                " (line " + std::to_string(it->second->param_pos.line) +
                                "; expected each parameter in one [[axis]] or [[zip]] only, use a [[zip]] to vary "
                                "parameters together)");
      }
  }
  for (std::size_t i = 0; i < points.size(); ++i)
    explicit_points_.push_back(parse_entries(*points[i], "point[" + std::to_string(i) + "]"));

  // Sizes (saturating at 2^40) before materialising anything.
  auto sat_mul = [](std::uint64_t a, std::uint64_t b) {
    return (b != 0 && a > kMaxScenarios / b) ? kMaxScenarios : std::min(kMaxScenarios, a * b);
  };
  std::uint64_t product = dims_.empty() ? 0 : 1;
  for (const Dim& d : dims_) product = sat_mul(product, d.size());
  const std::uint64_t n_points = (dims_.empty() && explicit_points_.empty())
                                     ? 1
                                     : std::min(kMaxScenarios, product + explicit_points_.size());
  const std::uint64_t n_seeds = spec_.seeds.size();
  const std::uint64_t n_sched = spec_.schedulers.size();
  const std::uint64_t n_total = sat_mul(sat_mul(n_points, n_seeds), n_sched);
  if (n_total >= kMaxScenarios) {
    double approx_points = dims_.empty() ? 0 : 1;  // for the message only
    for (const Dim& d : dims_) approx_points *= static_cast<double>(d.size());
    approx_points += static_cast<double>(explicit_points_.size());
    const auto count = [](std::uint64_t exact, double approx) {
      return exact < kMaxScenarios ? std::to_string(exact) : "about " + format_number(approx);
    };
    const double approx_total = approx_points * static_cast<double>(n_seeds) * static_cast<double>(n_sched);
    fail(sweep_pos_, "the sweep has " + count(n_points, approx_points) + " points x " + std::to_string(n_seeds) +
                         " seeds x " + std::to_string(n_sched) + " schedulers = " + count(n_total, approx_total) +
                         " scenarios (expected fewer than 2^40 = " + std::to_string(kMaxScenarios) + ")");
  }
  if (n_points > kMaxPoints)
    fail(sweep_pos_, "the sweep has " + std::to_string(n_points) + " points (expected at most " +
                         std::to_string(kMaxPoints) + "; use fewer axis values or split the sweep)");

  check_paths();
  build_points(product);

  // Fixed overrides: [sweep.set] then the command line.
  for (const Entry& e : set_) spec_.fixed.push_back(override_of(e.path, e.value));
  for (const Override& o : cli_sets_) spec_.fixed.push_back(o);

  validate_points();

  std::uint64_t h = util::fnv1a64(spec_.text);
  h = util::fnv1a64(std::string(1, '\0'), h);
  h = util::fnv1a64(spec_.base_text, h);
  for (const Override& o : cli_sets_) h = util::fnv1a64(std::string(1, '\0') + o.path + "=" + o.value, h);
  spec_.hash = h;
  return std::move(spec_);
}

void Loader::parse_sweep(const toml::table& sweep) {
  sweep_pos_ = pos_of(sweep);
  for (const char* top : {"axis", "zip", "point"})
    if (auto it = sweep.find(top); it != sweep.end()) {
      fail(pos_of(it->first, it->second), std::string("unknown key '") + top + "' in [sweep] (expected [[" + top +
                               "]] entries at the top level: write them after the [sweep] table and its keys)");
    }
  check_keys(sweep, {"name", "base", "schedulers", "seeds", "set"}, "in [sweep]");
  const struct {
    const char* key;
    const char* expect;
  } required[] = {
      {"name", "a non-empty string"},
      {"base", "the base scenario file, relative to the sweep file"},
      {"schedulers", "a list of scheduler presets, or \"all\""},
      {"seeds", "a seed count N (seeds 1..N) or a list of seeds"},
  };
  for (const auto& r : required)
    if (!sweep.contains(r.key))
      fail(sweep_pos_, std::string("[sweep] is missing required key '") + r.key + "' (expected " + r.expect + ")");

  const toml::node& name = *sweep.get("name");
  if (!name.is_string()) fail(name, "sweep.name: expected a string, got " + type_of(name));
  spec_.name = name.as_string()->get();
  if (spec_.name.empty()) fail(name, "sweep.name must not be empty (expected a name)");

  read_base(*sweep.get("base"));
  parse_schedulers(*sweep.get("schedulers"));
  parse_seeds(*sweep.get("seeds"));

  if (const toml::node* set = sweep.get("set")) {
    if (!set->is_table())
      fail(*set, "sweep.set: expected a table of parameter = value entries ([sweep.set]), got " + type_of(*set));
    set_ = parse_entries(*set->as_table(), "sweep.set");
  }
}

void Loader::read_base(const toml::node& n) {
  base_pos_ = pos_of(n);
  if (!n.is_string()) fail(n, "sweep.base: expected a string (the base scenario file), got " + type_of(n));
  const std::string given = n.as_string()->get();
  if (given.empty()) fail(n, "sweep.base must not be empty (expected the base scenario file)");
  const fs::path g(given);
  const fs::path resolved = g.is_absolute() ? g : (fs::path(path_).parent_path() / g).lexically_normal();
  spec_.base_path = resolved.string();
  std::error_code ec;
  fs::path shown = fs::absolute(resolved, ec);
  if (ec) shown = resolved;
  const std::string where = "'" + given + "' (resolved to '" + shown.lexically_normal().string() + "')";
  switch (read_text(spec_.base_path, spec_.base_text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kDirectory: fail(n, "base scenario " + where + " is a directory (expected a scenario file)");
    case ReadStatus::kMissing:
      fail(n, "cannot open base scenario " + where +
                  (g.is_absolute() ? "" : "; relative paths are resolved against the sweep file's directory"));
    case ReadStatus::kUnreadable: fail(n, "cannot read base scenario " + where);
  }
  try {
    if (parse_toml(spec_.base_text, spec_.base_path).empty())
      throw InputError(spec_.base_path, 1, 1, "empty scenario");
  } catch (const InputError& e) {
    fail(n, "base scenario '" + given + "' is invalid: " + e.what());
  }
}

void Loader::parse_schedulers(const toml::node& n) {
  const std::vector<std::string> names = preset_names();
  const std::string expect = "expected a list of scheduler presets such as [\"bace-pipe\", \"delay-first\"], or \"all\"";
  if (const auto* s = n.as_string()) {
    if (s->get() == "all") {
      spec_.schedulers = names;
      return;
    }
    if (find_preset(s->get()))
      fail(n, "sweep.schedulers: expected a list (write [\"" + s->get() + "\"] for one scheduler), or \"all\"");
    fail(n, "sweep.schedulers: unknown scheduler '" + s->get() + "'" + suggestion_suffix(s->get(), names) + " (" +
                expect + ")");
  }
  const toml::array* a = n.as_array();
  if (!a) fail(n, "sweep.schedulers: " + expect + ", got " + type_of(n));
  if (a->empty()) fail(n, "sweep.schedulers: empty list (" + expect + ")");
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const std::string p = "sweep.schedulers[" + std::to_string(i) + "]";
    if (!e.is_string()) fail(e, p + ": expected a scheduler preset name (a string), got " + type_of(e));
    const std::string name = e.as_string()->get();
    if (name == "all") fail(e, p + ": \"all\" must be given alone (write schedulers = \"all\")");
    if (!find_preset(name))
      fail(e, p + ": unknown scheduler '" + name + "'" + suggestion_suffix(name, names) + " (expected one of " +
                  quoted_list(names) + ")");
    if (auto it = seen.find(name); it != seen.end())
      fail(e, p + ": duplicate scheduler '" + name + "' (already sweep.schedulers[" + std::to_string(it->second) +
                  "]; expected each preset once)");
    seen.emplace(name, i);
    spec_.schedulers.push_back(name);
  }
}

void Loader::parse_seeds(const toml::node& n) {
  if (const auto* i = n.as_integer()) {
    const std::int64_t v = i->get();
    if (v < 1)
      fail(n, "sweep.seeds must be >= 1 (got " + std::to_string(v) +
                  ") (expected a seed count N meaning seeds 1..N, or a list of seeds)");
    if (static_cast<std::uint64_t>(v) > kMaxSeeds)
      fail(n, "sweep.seeds = " + std::to_string(v) + " is too many seeds (expected at most " +
                  std::to_string(kMaxSeeds) + ")");
    spec_.seeds.reserve(static_cast<std::size_t>(v));
    for (std::int64_t s = 1; s <= v; ++s) spec_.seeds.push_back(static_cast<std::uint64_t>(s));
    return;
  }
  const toml::array* a = n.as_array();
  if (!a)
    fail(n, "sweep.seeds: expected a seed count N (seeds 1..N) or a list of integer seeds, got " + type_of(n) +
                (n.is_floating_point() ? " (" + toml_text(n) + ")" : ""));
  if (a->empty()) fail(n, "sweep.seeds: empty list (expected at least one seed, or a count N meaning seeds 1..N)");
  if (a->size() > kMaxSeeds)
    fail(n, "sweep.seeds: " + std::to_string(a->size()) + " seeds (expected at most " + std::to_string(kMaxSeeds) + ")");
  std::map<std::int64_t, std::size_t> seen;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const std::string p = "sweep.seeds[" + std::to_string(i) + "]";
    const auto* iv = e.as_integer();
    if (!iv)
      fail(e, p + ": expected an integer seed >= 0, got " + type_of(e) +
                  (e.is_floating_point() ? " (" + toml_text(e) + ")" : ""));
    const std::int64_t v = iv->get();
    if (v < 0) fail(e, p + " must be >= 0 (got " + std::to_string(v) + ")");
    if (auto it = seen.find(v); it != seen.end())
      fail(e, p + ": duplicate seed " + std::to_string(v) + " (already sweep.seeds[" + std::to_string(it->second) +
                  "]; expected distinct seeds)");
    seen.emplace(v, i);
    spec_.seeds.push_back(static_cast<std::uint64_t>(v));
  }
}

void Loader::flatten(const toml::table& t, const std::string& prefix, std::vector<Entry>& out,
                     std::map<std::string, Pos>& seen, const std::string& where) {
  for (const auto& [k, v] : in_file_order(t)) {
    const std::string key(k->str());
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (const toml::table* sub = v->as_table()) {
      flatten(*sub, path, out, seen, where);
      continue;
    }
    Entry e;
    e.path = path;
    e.value.text = toml_text(*v);
    e.value.numeric = v->is_number();
    e.value.number = number_of(*v);
    e.value.pos = pos_of(*v);
    if (auto it = seen.find(path); it != seen.end())
      fail(e.value.pos, where + ": parameter '" + path + "' is set twice (first at line " +
                            std::to_string(it->second.line) + ")");
    seen.emplace(path, e.value.pos);
    out.push_back(std::move(e));
  }
}

std::vector<Entry> Loader::parse_entries(const toml::table& t, const std::string& where) {
  std::vector<Entry> out;
  std::map<std::string, Pos> seen;
  flatten(t, "", out, seen, where);
  return out;
}

Member Loader::parse_member(const toml::table& t, const std::string& name, bool in_zip) {
  const std::string kind = in_zip ? "[[zip.axis]]" : "[[axis]]";
  check_keys(t, {"param", "values", "range", "integer"}, "in " + kind);
  Member m;
  m.name = name;
  const toml::node* param = t.get("param");
  if (!param)
    fail(t, kind + " is missing required key 'param' (expected a scenario parameter path such as "
                   "'network.bandwidth_scale')");
  if (!param->is_string()) fail(*param, name + ".param: expected a parameter path (a string), got " + type_of(*param));
  m.param = param->as_string()->get();
  m.param_pos = pos_of(*param);
  if (m.param.empty()) fail(*param, name + ".param must not be empty (expected a path such as 'network.bandwidth_scale')");

  const toml::node* values = t.get("values");
  const toml::node* range = t.get("range");
  if (values && range) {
    const toml::node& later = pos_of(*range).line > pos_of(*values).line ||
                                      (pos_of(*range).line == pos_of(*values).line &&
                                       pos_of(*range).column > pos_of(*values).column)
                                  ? *range
                                  : *values;
    fail(later, name + " ('" + m.param + "'): give either values or range, not both");
  }
  if (!values && !range)
    fail(t, name + " ('" + m.param + "') has no values (expected values = [...] or range = { start = ..., stop = ..., "
                                      "num = ... })");
  if (values)
    parse_values(*values, m);
  else
    parse_range(*range, m);

  if (const toml::node* flag = t.get("integer")) {
    if (!flag->is_boolean()) fail(*flag, name + ".integer: expected a boolean (true or false), got " + type_of(*flag));
    if (flag->as_boolean()->get()) apply_integer(*flag, m);
  }

  if (!in_zip) {  // a standalone axis with a repeated value would run the same point twice
    for (std::size_t i = 1; i < m.values.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const Value& a = m.values[j];
        const Value& b = m.values[i];
        const bool same = a.numeric && b.numeric ? a.number == b.number : a.text == b.text;
        if (!same) continue;
        if (m.from_range)
          fail(m.data_pos, name + ".range gives the value " + b.text + " twice (expected distinct values; start == stop?)");
        fail(b.pos, name + ".values[" + std::to_string(i) + "]: duplicate value " + b.text + " (already values[" +
                        std::to_string(j) + "]; expected distinct values)");
      }
  }
  return m;
}

void Loader::parse_values(const toml::node& n, Member& m) {
  m.data_pos = pos_of(n);
  const toml::array* a = n.as_array();
  if (!a) fail(n, m.name + ".values: expected a list of values, got " + type_of(n));
  if (a->empty()) fail(n, m.name + ".values: empty list (expected at least one value)");
  if (a->size() > kMaxPoints)
    fail(n, m.name + ".values: " + std::to_string(a->size()) + " values (expected at most " + std::to_string(kMaxPoints) + ")");
  // One kind per axis: numbers (integers and floats mix), strings or booleans.
  auto kind_of = [](const toml::node& e) -> int {
    if (e.is_number()) return 0;
    if (e.is_string()) return 1;
    if (e.is_boolean()) return 2;
    return -1;
  };
  static const char* const kinds[] = {"a number", "a string", "a boolean"};
  const int first = kind_of(*a->get(0));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const std::string p = m.name + ".values[" + std::to_string(i) + "]";
    const int k = kind_of(e);
    if (k < 0)
      fail(e, p + ": expected a number, string or boolean, got " + type_of(e) +
                  (e.is_array() ? " (to vary an array-valued parameter, use [[point]] entries)" : ""));
    if (k != first)
      fail(e, p + ": expected " + kinds[first] + " like values[0], got " + type_of(e) +
                  " (expected all values of an axis to be of one kind)");
    Value v;
    v.text = toml_text(e);
    v.numeric = k == 0;
    v.number = number_of(e);
    v.pos = pos_of(e);
    m.values.push_back(std::move(v));
  }
}

void Loader::parse_range(const toml::node& n, Member& m) {
  m.data_pos = pos_of(n);
  m.from_range = true;
  const std::string p = m.name + ".range";
  const toml::table* t = n.as_table();
  if (!t) fail(n, p + ": expected a table { start = ..., stop = ..., num = ... }, got " + type_of(n));
  check_keys(*t, {"start", "stop", "num", "log"}, "in " + p);
  for (const char* k : {"start", "stop", "num"})
    if (!t->contains(k))
      fail(n, p + " is missing required key '" + k + "' (expected range = { start = ..., stop = ..., num = ... })");
  auto finite_number = [&](const char* key) {
    const toml::node& v = *t->get(key);
    if (!v.is_number()) fail(v, p + "." + key + ": expected a number, got " + type_of(v));
    const double d = number_of(v);
    if (!std::isfinite(d)) fail(v, p + "." + key + " must be a finite number (got " + toml_text(v) + ")");
    return d;
  };
  const double start = finite_number("start");
  const double stop = finite_number("stop");
  const toml::node& numn = *t->get("num");
  if (!numn.is_integer())
    fail(numn, p + ".num: expected an integer >= 1, got " + type_of(numn) +
                   (numn.is_floating_point() ? " (" + toml_text(numn) + ")" : ""));
  const std::int64_t num = numn.as_integer()->get();
  if (num < 1) fail(numn, p + ".num must be >= 1 (got " + std::to_string(num) + ")");
  if (static_cast<std::uint64_t>(num) > kMaxPoints)
    fail(numn, p + ".num = " + std::to_string(num) + " is too large (expected at most " + std::to_string(kMaxPoints) + ")");
  bool log = false;
  if (const toml::node* ln = t->get("log")) {
    if (!ln->is_boolean()) fail(*ln, p + ".log: expected a boolean (true or false), got " + type_of(*ln));
    log = ln->as_boolean()->get();
  }
  if (log) {
    if (!(start > 0)) fail(*t->get("start"), p + ".start must be > 0 when log = true (got " + format_number(start) + ")");
    if (!(stop > 0)) fail(*t->get("stop"), p + ".stop must be > 0 when log = true (got " + format_number(stop) + ")");
  }
  const std::size_t count = static_cast<std::size_t>(num);
  std::vector<double> out(count);
  if (count == 1) {
    out[0] = start;
  } else {
    const double div = static_cast<double>(count - 1);
    if (log) {
      const double ratio = stop / start;
      for (std::size_t i = 0; i < count; ++i)
        out[i] = tidy(start * std::pow(ratio, static_cast<double>(i) / div));
    } else {
      const double step = (stop - start) / div;  // as numpy.linspace
      for (std::size_t i = 0; i < count; ++i) out[i] = tidy(start + static_cast<double>(i) * step);
    }
    out.front() = start;
    out.back() = stop;
  }
  for (double d : out) {
    if (!std::isfinite(d)) fail(n, p + " gives a value that is not finite (expected a smaller range)");
    Value v;
    v.text = float_text(d);
    v.numeric = true;
    v.number = d;
    v.pos = m.data_pos;
    m.values.push_back(std::move(v));
  }
}

void Loader::apply_integer(const toml::node& flag, Member& m) {
  constexpr double kLimit = 9007199254740992.0;  // 2^53: every integer below is exact
  std::vector<Value> rounded;
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    const Value& v = m.values[i];
    if (!v.numeric)
      fail(flag, m.name + ".integer = true needs numeric values (values[" + std::to_string(i) + "] is " + v.text + ")");
    const double r = std::round(v.number);
    if (!std::isfinite(r) || std::fabs(r) >= kLimit)
      fail(m.from_range ? m.data_pos : v.pos,
           m.name + ": value " + v.text + " is too large to round to an integer (expected |value| < 2^53)");
    for (std::size_t j = 0; j < rounded.size(); ++j)
      if (rounded[j].number == r && m.values[j].number != v.number)
        fail(m.from_range ? m.data_pos : v.pos,
             m.name + ": integer = true rounds " + m.values[j].text + " and " + v.text + " to the same value " +
                 std::to_string(static_cast<long long>(r)) + " (expected values that stay distinct; use fewer "
                 "points or a wider range)");
    Value w = v;
    w.number = r;
    w.text = std::to_string(static_cast<long long>(r));
    rounded.push_back(std::move(w));
  }
  m.values = std::move(rounded);
  m.integer = true;
}

/// Every parameter path is resolved against the base document first, so an unknown path is
/// reported (with did-you-mean) at the parameter, before any point is built.
void Loader::check_paths() {
  const toml::table base = parse_toml(spec_.base_text, spec_.base_path);
  auto check = [&](const std::string& param, const std::string& value, Pos at) {
    toml::table doc = base;
    Value v;
    v.text = value;
    v.pos = at;
    apply_override(doc, override_of(param, v));
  };
  for (const Entry& e : set_) check(e.path, e.value.text, e.value.pos);
  for (const Dim& d : dims_)
    for (const Member& m : d.members) check(m.param, m.values.front().text, m.param_pos);
  for (const auto& pt : explicit_points_)
    for (const Entry& e : pt) check(e.path, e.value.text, e.value.pos);
}

void Loader::build_points(std::uint64_t product) {
  // Columns: swept parameters in order of first appearance.
  std::map<std::string, std::size_t> col;
  auto column = [&](const std::string& param, bool numeric) {
    auto [it, fresh] = col.emplace(param, spec_.columns.size());
    if (fresh) spec_.columns.push_back(SweepColumn{param, numeric});
    else spec_.columns[it->second].numeric = spec_.columns[it->second].numeric && numeric;
    return it->second;
  };
  for (const Dim& d : dims_)
    for (const Member& m : d.members) {
      bool numeric = true;
      for (const Value& v : m.values) numeric = numeric && v.numeric;
      column(m.param, numeric);
    }
  for (const auto& pt : explicit_points_)
    for (const Entry& e : pt) column(e.path, e.value.numeric);

  const std::size_t ncol = spec_.columns.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto set_value = [&](SweepPoint& p, const std::string& param, const Value& v) {
    p.overrides.push_back(override_of(param, v));
    const std::size_t c = col.at(param);
    p.numeric[c] = v.numeric ? v.number : nan;
    p.text[c] = v.text;
  };
  const std::size_t total = (dims_.empty() && explicit_points_.empty())
                                ? 1
                                : static_cast<std::size_t>(product) + explicit_points_.size();
  spec_.points.reserve(total);
  if (dims_.empty() && explicit_points_.empty()) {
    spec_.points.push_back(SweepPoint{{}, {}, {}});
    return;
  }
  std::vector<std::size_t> idx(dims_.size(), 0);  // odometer, last dimension fastest
  for (std::uint64_t k = 0; k < product; ++k) {
    SweepPoint p;
    p.numeric.assign(ncol, nan);
    p.text.assign(ncol, "");
    for (std::size_t d = 0; d < dims_.size(); ++d)
      for (const Member& m : dims_[d].members) set_value(p, m.param, m.values[idx[d]]);
    spec_.points.push_back(std::move(p));
    for (std::size_t d = dims_.size(); d-- > 0;) {
      if (++idx[d] < dims_[d].size()) break;
      idx[d] = 0;
    }
  }
  for (const auto& pt : explicit_points_) {
    SweepPoint p;
    p.numeric.assign(ncol, nan);
    p.text.assign(ncol, "");
    for (const Entry& e : pt) set_value(p, e.path, e.value);
    spec_.points.push_back(std::move(p));
  }
}

void Loader::validate_points() {
  // The pre-parsed document is only used when every fixed override applies cleanly; otherwise
  // the exact (fresh) path below reports the problem.
  std::unique_ptr<Prepared> prep;
  try {
    prep = std::make_unique<Prepared>(spec_.base_text, spec_.base_path, spec_.fixed);
  } catch (const InputError&) {
    prep.reset();
  }
  for (std::size_t i = 0; i < spec_.points.size(); ++i) {
    const std::vector<Override>& ov = spec_.points[i].overrides;
    if (prep) {
      try {
        (void)prep->make(ov);
        continue;
      } catch (const InputError&) {
      }
    }
    try {
      (void)make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, ov);
    } catch (const InputError& e) {
      report_point_error(i, e);
    }
    // The fast path failed but the exact one did not (should not happen): report the fast one.
    try {
      if (prep) (void)prep->make(ov);
    } catch (const InputError& e) {
      report_point_error(i, e);
    }
  }
}

void Loader::report_point_error(std::size_t i, const InputError& e) const {
  if (e.file() == path_) {
    // A value of the sweep file. Give range users a hint for integer parameters.
    for (const Dim& d : dims_)
      for (const Member& m : d.members)
        if (m.from_range && !m.integer && e.line() == m.data_pos.line && e.column() == m.data_pos.column &&
            e.message().find("expected an integer") != std::string::npos)
          throw InputError(path_, e.line(), e.column(),
                           e.message() + " (add integer = true to " + m.name + " to round range values)");
    throw e;
  }
  if (e.file() != spec_.base_path) throw e;  // --set on the command line
  // The error is in the base file: is the base (with the fixed overrides) invalid on its own?
  bool base_itself = spec_.points[i].overrides.empty();
  if (!base_itself) {
    try {
      (void)make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, {});
    } catch (const InputError& b) {
      base_itself = std::string(b.what()) == e.what();
    }
  }
  if (base_itself) {
    const std::string with = spec_.fixed.empty() ? "" : " (with the fixed overrides)";
    fail(base_pos_, "base scenario" + with + " is invalid: " + e.what());
  }
  const SweepPoint& p = spec_.points[i];
  std::string desc;
  Pos at = base_pos_;
  bool located = false;
  for (const Override& o : p.overrides) {
    desc += (desc.empty() ? "" : ", ") + o.path + " = " + o.value;
    if (!located && o.line > 0) {
      at = Pos{o.line, o.column};
      located = true;
    }
  }
  fail(at, "sweep point " + std::to_string(i) + " (" + desc + ") gives an invalid scenario: " + e.what());
}

}  // namespace

// ============================================================================================
// Public API
// ============================================================================================

SweepSpec load_sweep_file(const std::string& path, const std::vector<Override>& cli_sets) {
  try {
    return Loader(path, cli_sets).load();
  } catch (const InputError&) {
    throw;
  } catch (const toml::parse_error& e) {
    throw from_parse_error(e, path);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path, 0, 0, std::string("unexpected error while loading the sweep: ") + e.what());
  }
}

struct ScenarioFactory::Impl {
  Prepared prepared;
  std::vector<std::vector<Override>> points;

  explicit Impl(const SweepSpec& spec) : prepared(spec.base_text, spec.base_path, spec.fixed) {
    points.reserve(spec.points.size());
    for (const SweepPoint& p : spec.points) points.push_back(p.overrides);
  }
};

ScenarioFactory::ScenarioFactory(const SweepSpec& spec) : impl_(std::make_unique<Impl>(spec)) {}
ScenarioFactory::~ScenarioFactory() = default;

Scenario ScenarioFactory::make(std::size_t point) const {
  if (point >= impl_->points.size())
    throw std::out_of_range("ScenarioFactory::make: point " + std::to_string(point) + " out of range (" +
                            std::to_string(impl_->points.size()) + " points)");
  return impl_->prepared.make(impl_->points[point]);
}

}  // namespace geopipe::config
