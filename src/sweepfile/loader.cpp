// Sweep files (TOML) -> SweepSpec (sweepfile/loader.h): the entry point, the [sweep] table
// (name, base, schedulers, seeds, [sweep.set]), the size limits and the sweep hash. The format
// is documented in docs/sweep-format.md.
//
// Parameter values reach the scenario through the --set machinery (config/overrides.h): every
// axis / zip / point / [sweep.set] value becomes an Override whose origin, line and column are
// those of the value in the sweep file, so type and range errors found by the scenario
// validator point into the sweep file. The other parts of the loader are listed in
// sweepfile/parse.h.
#include "sweepfile/loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <unordered_map>
#include <utility>

#include "util/input_error.h"
#include "config/input_file.h"
#include "config/overrides.h"
#include "sweepfile/design.h"
#include "sweepfile/factors.h"
#include "sweepfile/parse.h"
#include "sweepfile/validate.h"
#include "config/toml_error.h"
#include "config/toml_limits.h"
#include "sched/registry.h"
#include "sim/metrics.h"
#include "util/hash.h"

namespace geopipe::config {
namespace {

namespace fs = std::filesystem;
using namespace sweep_internal;

const char* const kEmptyMsg =
    "empty sweep file (expected a [sweep] table with name, base, schedulers and seeds)";

/// `seeds = { min = 5, max = 200, rel_ci = 0.02, metric = "avg_jct_s", paired_vs = "..." }`.
ReplicationRule parse_replication_rule(const SweepFile& file_, const toml::table& t, const std::vector<std::string>& schedulers) {
  const std::string w = "sweep.seeds";
  file_.check_keys(t, {"min", "max", "rel_ci", "abs_ci", "confidence", "metric", "paired_vs"}, "in " + w);
  ReplicationRule r;
  const auto integer = [&](const char* key, std::uint64_t lo, std::uint64_t hi, const std::string& what) {
    return count_key(file_, t, key, w, lo, hi, what);
  };
  const auto number = [&](const char* key, bool positive_below_one) -> double {
    const toml::node* n = t.get(key);
    if (!n->is_number()) file_.fail(*n, w + "." + key + ": expected a number, got " + type_of(*n));
    const double v = n->value<double>().value_or(0);
    if (!std::isfinite(v) || !(v > 0) || (positive_below_one && !(v < 1)))
      file_.fail(*n, w + "." + key + " must be " + (positive_below_one ? "in (0, 1)" : "> 0") + " (got " + float_text(v) + ")");
    return v;
  };
  if (!t.get("max")) file_.fail(pos_of(t), w + ": missing 'max' (expected the most seeds per point)");
  r.max = integer("max", 2, kMaxSeeds, "the most seeds per point, at least 2");
  if (t.get("min")) r.min = integer("min", 2, kMaxSeeds, "the seeds of the first round, at least 2 (a CI needs two)");
  if (r.min > r.max) {
    if (t.get("min"))
      file_.fail(*t.get("min"), w + ".min = " + std::to_string(r.min) + " is more than max = " + std::to_string(r.max) +
                                    " (expected min <= max)");
    file_.fail(*t.get("max"), w + ".max = " + std::to_string(r.max) + " is less than the default min = " +
                                  std::to_string(r.min) + " (expected max >= min; set min too)");
  }
  if (!t.get("rel_ci") && !t.get("abs_ci"))
    file_.fail(pos_of(t), w + ": missing 'rel_ci' (expected the target half-width of the 95% CI relative to the mean, "
                        "e.g. rel_ci = 0.02; or abs_ci in the quantity's unit)");
  if (t.get("rel_ci")) r.rel_ci = number("rel_ci", false);
  if (t.get("abs_ci")) r.abs_ci = number("abs_ci", false);
  if (t.get("confidence")) r.confidence = number("confidence", true);
  if (const toml::node* m = t.get("metric")) {
    std::vector<std::string> names;
    for (const MetricDef& d : metric_defs())
      if (d.deterministic && d.source == MetricSource::kSimulation) names.emplace_back(d.name);
    if (!m->is_string()) file_.fail(*m, w + ".metric: expected a metric name (a string), got " + type_of(*m));
    r.metric = m->as_string()->get();
    if (const MetricDef* d = find_metric(r.metric); d && !d->deterministic)
      file_.fail(*m, w + ".metric: '" + r.metric + "' is a wall-clock measurement, not a result of the scenario (it "
                     "differs from run to run, so it cannot decide how many seeds a point needs; expected one of " +
                     util::quoted_list(names, 40) + ")");
    if (std::find(names.begin(), names.end(), r.metric) == names.end())
      file_.fail(*m, w + ".metric: unknown metric '" + r.metric + "'" + util::suggestion_suffix(r.metric, names) +
                   " (expected one of " + util::quoted_list(names, 40) + ")");
  }
  if (const toml::node* q = t.get("paired_vs")) {
    if (!q->is_string()) file_.fail(*q, w + ".paired_vs: expected a scheduler of the sweep (a string), got " + type_of(*q));
    r.paired_vs = q->as_string()->get();
    if (std::find(schedulers.begin(), schedulers.end(), r.paired_vs) == schedulers.end())
      file_.fail(*q, w + ".paired_vs: '" + r.paired_vs + "' is not a scheduler of this sweep" +
                   util::suggestion_suffix(r.paired_vs, schedulers) + " (expected one of " + util::quoted_list(schedulers) + ")");
    if (schedulers.size() < 2)
      file_.fail(*q, w + ".paired_vs: a paired change needs another scheduler (this sweep has only '" + r.paired_vs + "')");
  }
  return r;
}

// ---- the loader -----------------------------------------------------------------------------

class Loader {
 public:
  Loader(std::string path, std::vector<Override> cli_sets, const SweepLoadOptions& options)
      : file_(std::move(path)), cli_sets_(std::move(cli_sets)), options_(options) {}

  SweepSpec load();

 private:
  SweepFile file_;
  std::vector<Override> cli_sets_;
  SweepLoadOptions options_;
  SweepSpec spec_;
  Pos base_pos_;
  Pos sweep_pos_;
  std::vector<Entry> set_;
  const DesignKind* kind_ = nullptr;  ///< [sweep] design
  std::unique_ptr<SweepDesign> design_;

  [[noreturn]] void fail(Pos p, const std::string& msg) const { file_.fail(p, msg); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { file_.fail(n, msg); }
  void check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where) const {
    file_.check_keys(t, allowed, where);
  }

  toml::table read_file();
  const toml::table& sweep_table(const toml::table& root) const;
  void parse_sweep(const toml::table& sweep);
  void parse_design(const toml::table& sweep, const toml::table& root);
  void parse_schedulers(const toml::node& n);
  void parse_seeds(const toml::node& n);
  void parse_replication(const toml::table& t);
  void read_base(const toml::node& n);
  void check_size() const;
  void check_paths() const;
  void check_fixed_vs_swept() const;
  void resolve_parameters(PointKeyer& keyer);
  SweepSpec load_test_function();
  std::uint64_t hash() const;
};

SweepSpec Loader::load() {
  const toml::table root = read_file();
  spec_.test_function = parse_test_function(file_, root);
  parse_sweep(sweep_table(root));
  parse_design(sweep_table(root), root);
  design_ = kind_->parse(file_, root);
  spec_.design = kind_->name;
  check_size();
  if (spec_.test_function) return load_test_function();
  check_paths();
  design_->materialise(spec_);
  // Fixed overrides: [sweep.set] then the command line.
  for (const Entry& e : set_) spec_.fixed.push_back(file_.override_of(e.path, e.value));
  for (const Override& o : cli_sets_) spec_.fixed.push_back(o);
  check_fixed_vs_swept();
  // Every point's scenario, or a covering sample of a large sweep (seeded by the sweep text,
  // so a sweep file always checks the same points).
  const std::vector<std::size_t> check = points_to_check(spec_, options_, util::fnv1a64(spec_.text));
  PointFacts facts = validate_points(spec_, file_, base_pos_, *design_, check);
  if (check.size() < spec_.num_points()) check_values(spec_, file_, *design_);  // the values not built
  spec_.points_checked = facts.checked;
  spec_.checked_all = facts.checked == spec_.num_points();
  spec_.trace_paths = std::move(facts.trace_paths);
  spec_.job_text = facts.job_text;
  PointKeyer keyer(spec_.base_text, spec_.base_path, spec_.fixed);
  spec_.point_digests.reserve(spec_.num_points());
  for (std::size_t i = 0; i < spec_.num_points(); ++i) spec_.point_digests.push_back(keyer.digest(spec_.point(i).overrides));
  resolve_parameters(keyer);
  spec_.hash = hash();
  return std::move(spec_);
}

/// The rest of load() for a sweep of a [test_function]: no scenario to check, the points' content
/// is the function and their inputs (docs/hdf5-format.md, "Scenario keys").
SweepSpec Loader::load_test_function() {
  const analysis::TestFunction& tf = *spec_.test_function;
  if (spec_.design == "grid" || spec_.design == "points_file")
    fail(sweep_pos_, "a [test_function] needs a sampling design (design = \"sobol\", \"morris\", \"lhs\" or \"oat\"), "
                     "whose factors are its inputs; this sweep's design is '" + spec_.design + "'");
  if (!set_.empty()) fail(set_.front().value.pos, "a sweep with a [test_function] has no scenario parameters to set ([sweep.set])");
  if (!cli_sets_.empty())
    throw InputError("--set", 0, 0, "--set " + cli_sets_.front().path + ": a sweep with a [test_function] has no scenario parameters to set");
  design_->materialise(spec_);
  spec_.points_checked = spec_.num_points();
  spec_.checked_all = true;
  // The function and its constants are fixed parameters; the inputs are the columns.
  std::vector<std::pair<std::string, std::string>> constants = {{"test_function.name", "\"" + spec_.schedulers.front() + "\""}};
  if (tf.kind == analysis::TestFunctionKind::kIshigami) {
    constants.emplace_back("test_function.a", float_text(tf.a));
    constants.emplace_back("test_function.b", float_text(tf.b));
  } else {
    std::string list = "[";
    for (std::size_t i = 0; i < tf.g_coefficients.size(); ++i) list += (i ? ", " : "") + float_text(tf.g_coefficients[i]);
    constants.emplace_back("test_function.a", list + "]");
  }
  std::string prefix;
  for (const auto& [path, value] : constants) {
    spec_.parameters.push_back({path, value, -1});
    prefix += path + " = " + value + "\n";
  }
  for (std::size_t k = 0; k < spec_.columns.size(); ++k) {
    spec_.columns[k].canonical_path = spec_.columns[k].param;
    spec_.parameters.push_back({spec_.columns[k].param, "", static_cast<int>(k)});
  }
  std::sort(spec_.parameters.begin(), spec_.parameters.end(),
            [](const SweepParameter& a, const SweepParameter& b) { return a.path < b.path; });
  // A point's content: the constants and its inputs, as canonical text, hashed in two lanes.
  spec_.point_digests.reserve(spec_.num_points());
  for (std::size_t i = 0; i < spec_.num_points(); ++i) {
    std::string text = prefix;
    const SweepPoint p = spec_.point(i);
    for (std::size_t k = 0; k < spec_.columns.size(); ++k) text += spec_.columns[k].param + " = " + p.text[k] + "\n";
    spec_.point_digests.push_back(ContentDigest{util::fnv1a64(text), util::fnv1a64(text, util::fnv1a64("test function"))});
  }
  spec_.hash = hash();
  return std::move(spec_);
}

/// SweepSpec::parameters and each column's canonical path and fixed value (what a point that
/// does not set the column's parameter uses): the resolved values every row of the result file
/// records (docs/hdf5-format.md, "/parameters").
void Loader::resolve_parameters(PointKeyer& keyer) {
  std::map<std::string, int> column_of;  // canonical path -> column
  for (std::size_t k = 0; k < spec_.columns.size(); ++k) {
    SweepColumn& col = spec_.columns[k];
    const std::optional<Override> setter = spec_.points.first_setter(k, col.param);
    col.canonical_path = setter ? keyer.canonical_path(*setter) : col.param;
    const auto [it, fresh] = column_of.emplace(col.canonical_path, static_cast<int>(k));
    if (!fresh)  // two spellings of one parameter ("cluster.region.a.gpus", "cluster.region[0].gpus")
      fail(sweep_pos_, "'" + spec_.columns[static_cast<std::size_t>(it->second)].param + "' and '" + col.param +
                           "' are one parameter (" + col.canonical_path +
                           "), swept twice (expected each parameter in one axis, factor or points-file column, spelt one way)");
  }
  for (PointKeyer::Entry& e : keyer.fixed_entries()) {
    const auto c = column_of.find(e.path);
    if (c == column_of.end()) {
      spec_.parameters.push_back({std::move(e.path), std::move(e.value), -1});
    } else {
      spec_.columns[static_cast<std::size_t>(c->second)].fixed_text = e.text;
      spec_.parameters.push_back({std::move(e.path), "", c->second});
      column_of.erase(c);
    }
  }
  for (const auto& [path, k] : column_of) spec_.parameters.push_back({path, "", k});  // no fixed value
  std::sort(spec_.parameters.begin(), spec_.parameters.end(),
            [](const SweepParameter& a, const SweepParameter& b) { return a.path < b.path; });
}

/// Reads and parses the sweep file and checks its top-level keys.
toml::table Loader::read_file() {
  const std::string& path = file_.path();
  spec_.path = path;
  if (options_.text) {
    spec_.text = *options_.text;  // parse_toml() checks its limits
  } else if (auto why = read_input_file(path, kMaxTomlBytes, spec_.text)) {
    throw InputError(path, 0, 0, "cannot open sweep file: " + *why);
  }
  toml::table root = parse_toml(spec_.text, path);
  if (root.empty()) fail(Pos{}, kEmptyMsg);
  std::vector<std::string> top = {"sweep", "test_function"};
  for (const DesignKind& d : designs())
    for (const std::string& k : d.keys)
      if (std::find(top.begin(), top.end(), k) == top.end()) top.push_back(k);
  file_.check_keys(root, top, "at the top level", "fixed parameters go in [sweep.set]");
  return root;
}

const toml::table& Loader::sweep_table(const toml::table& root) const {
  const toml::node* sweep = root.get("sweep");
  if (!sweep) fail(Pos{}, "missing required table [sweep] (expected name, base, schedulers and seeds)");
  if (!sweep->is_table()) fail(*sweep, "sweep: expected a table [sweep], got " + type_of(*sweep));
  return *sweep->as_table();
}

/// Refuses a sweep too large to materialise (points) or to number (scenario ids < 2^40).
void Loader::check_size() const {
  const std::uint64_t n_points = design_->num_points();
  const std::uint64_t n_seeds = spec_.seeds.size();
  const std::uint64_t n_sched = spec_.schedulers.size();
  const std::uint64_t n_total = saturating_mul(saturating_mul(n_points, n_seeds), n_sched);
  if (n_total >= kMaxScenarios) {
    const double approx_points = design_->approx_points();
    const auto count = [](std::uint64_t exact, double approx) {
      return exact < kMaxScenarios ? std::to_string(exact) : "about " + util::format_number(approx);
    };
    const double approx_total = approx_points * static_cast<double>(n_seeds) * static_cast<double>(n_sched);
    fail(sweep_pos_, "the sweep has " + count(n_points, approx_points) + " points x " + std::to_string(n_seeds) +
                         " seeds x " + std::to_string(n_sched) + " schedulers = " + count(n_total, approx_total) +
                         " scenarios (expected fewer than 2^40 = " + std::to_string(kMaxScenarios) + ")");
  }
  const std::uint64_t max_points = std::min(kMaxPoints, options_.max_points);
  if (n_points > max_points)
    fail(sweep_pos_, "the sweep has " + std::to_string(n_points) + " points (expected at most " +
                         std::to_string(max_points) + "; use fewer axis values or split the sweep)");
}

/// Every parameter path is resolved against the base document first, so an unknown path is
/// reported (with did-you-mean) at the parameter, before any point is built.
void Loader::check_paths() const {
  const toml::table base = parse_toml(spec_.base_text, spec_.base_path);
  auto check = [&](const Entry& e) {
    toml::table doc = base;
    apply_override(doc, file_.override_of(e.path, e.value));
  };
  for (const Entry& e : set_) check(e);
  for (const Entry& e : design_->probes()) check(e);
}

/// A fixed value ([sweep.set] or --set) of a parameter the points set would be replaced by the
/// points' values without a word: a --set of any swept parameter is refused (at the first point
/// value that overrides it), and a [sweep.set] entry that every point overrides (an axis's or
/// a zip's parameter). A [sweep.set] value that only some [[point]]s override is their default.
/// Paths are compared by the parameter they name, however they are spelled.
void Loader::check_fixed_vs_swept() const {
  if (spec_.num_points() == 0 || spec_.fixed.empty()) return;
  toml::table scratch = parse_toml(spec_.base_text, spec_.base_path);
  std::unordered_map<std::string, OverrideTarget> by_path;
  auto target = [&](const Override& o) -> const OverrideTarget& {
    auto it = by_path.find(o.path);
    if (it == by_path.end()) it = by_path.emplace(o.path, override_target(scratch, o)).first;
    return it->second;
  };
  std::vector<OverrideTarget> fixed;
  for (const Override& o : spec_.fixed) fixed.push_back(target(o));
  std::vector<std::uint64_t> points_setting(fixed.size(), 0);
  std::vector<std::optional<Override>> first(fixed.size());
  std::vector<bool> here;
  spec_.points.for_each_setting([&](const std::vector<const Override*>& ov, std::uint64_t count) {
    here.assign(fixed.size(), false);
    for (const Override* o : ov) {
      const OverrideTarget& t = target(*o);
      for (std::size_t i = 0; i < fixed.size(); ++i)
        if (!here[i] && fixed[i] == t) {
          here[i] = true;
          points_setting[i] += count;
          if (!first[i]) first[i] = *o;
        }
    }
  });
  const auto at = [](const Override& o) { return Pos{o.line, o.column}; };
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    const Override& f = spec_.fixed[i];
    if (!first[i]) continue;
    if (f.origin == "--set")
      fail(at(*first[i]), "--set " + f.path + "=" + f.value + " changes '" + first[i]->path +
                              "', which this sweep varies here, so the --set would be ignored (expected a --set of "
                              "a parameter the sweep does not vary: change the values in the sweep file instead)");
    if (points_setting[i] == spec_.num_points())
      fail(at(f), "[sweep.set] '" + f.path + "' is also swept by this sweep ('" + first[i]->path + "' at line " +
                      std::to_string(first[i]->line) + ", column " + std::to_string(first[i]->column) +
                      "), whose values replace it at every point (expected each parameter either fixed or swept)");
  }
}

/// FNV-1a 64 of the sweep text, a NUL, the base text, then "\0path=value" per command-line set.
std::uint64_t Loader::hash() const {
  std::uint64_t h = util::fnv1a64(spec_.text);
  h = util::fnv1a64(std::string(1, '\0'), h);
  h = util::fnv1a64(spec_.base_text, h);
  for (const Override& o : cli_sets_) h = util::fnv1a64(std::string(1, '\0') + o.path + "=" + o.value, h);
  if (!spec_.design_text.empty()) h = util::fnv1a64(spec_.design_text, util::fnv1a64(std::string("\0design\0", 8), h));
  return h;
}

void Loader::parse_sweep(const toml::table& sweep) {
  sweep_pos_ = pos_of(sweep);
  for (const DesignKind& d : designs())
    for (const std::string& top : d.keys)
      if (auto it = sweep.find(top); it != sweep.end()) {
        fail(pos_of(it->first, it->second), "unknown key '" + top + "' in [sweep] (expected [[" + top +
                                                 "]] entries at the top level: write them after the [sweep] table "
                                                 "and its keys)");
      }
  check_keys(sweep, {"name", "base", "schedulers", "seeds", "set", "design"}, "in [sweep]");
  const struct {
    const char* key;
    const char* expect;
  } required[] = {
      {"name", "a non-empty string"},
      {"base", "the base scenario file, relative to the sweep file"},
      {"schedulers", "a list of scheduler presets, or \"all\""},
      {"seeds", "a seed count N (seeds 1..N), a list of seeds, or { min, max, rel_ci } (seeds until a precision)"},
  };
  const bool test = spec_.test_function.has_value();
  for (const auto& r : required) {
    const std::string key = r.key;
    if (test && (key == "base" || key == "schedulers")) {
      if (const toml::node* n = sweep.get(key))
        fail(*n, "sweep." + key + ": a sweep with a [test_function] has no " +
                     (key == "base" ? "base scenario" : "schedulers") + " (its points evaluate the function)");
      continue;
    }
    if (test && key == "seeds") continue;  // optional: the function does not depend on the seed
    if (!sweep.contains(r.key))
      fail(sweep_pos_, std::string("[sweep] is missing required key '") + r.key + "' (expected " + r.expect + ")");
  }

  const toml::node& name = *sweep.get("name");
  if (!name.is_string()) fail(name, "sweep.name: expected a string, got " + type_of(name));
  spec_.name = name.as_string()->get();
  if (spec_.name.empty()) fail(name, "sweep.name must not be empty (expected a name)");

  if (test) {
    spec_.schedulers = {std::string(analysis::test_function_name(spec_.test_function->kind))};
    if (const toml::node* seeds = sweep.get("seeds"))
      parse_seeds(*seeds);
    else
      spec_.seeds = {1};
  } else {
    read_base(*sweep.get("base"));
    parse_schedulers(*sweep.get("schedulers"));
    parse_seeds(*sweep.get("seeds"));
  }

  if (const toml::node* set = sweep.get("set")) {
    if (!set->is_table())
      fail(*set, "sweep.set: expected a table of parameter = value entries ([sweep.set]), got " + type_of(*set));
    set_ = file_.parse_entries(*set->as_table(), "sweep.set");
  }
}

/// [sweep] design (default: the first of designs()), and no top-level key of another design.
void Loader::parse_design(const toml::table& sweep, const toml::table& root) {
  kind_ = &designs().front();
  if (const toml::node* n = sweep.get("design")) {
    std::vector<std::string> names;
    for (const DesignKind& d : designs()) names.emplace_back(d.name);
    if (!n->is_string()) fail(*n, "sweep.design: expected a string (one of " + util::quoted_list(names) + "), got " + type_of(*n));
    const std::string want = n->as_string()->get();
    kind_ = nullptr;
    for (const DesignKind& d : designs())
      if (want == d.name) kind_ = &d;
    if (!kind_)
      fail(*n, "sweep.design: unknown design '" + want + "'" + util::suggestion_suffix(want, names) + " (expected one of " +
                   util::quoted_list(names) + ")");
  }
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key == "sweep" || std::find(kind_->keys.begin(), kind_->keys.end(), key) != kind_->keys.end()) continue;
    for (const DesignKind& d : designs())
      if (std::find(d.keys.begin(), d.keys.end(), key) != d.keys.end())
        fail(pos_of(k, v), "[[" + key + "]] belongs to design '" + d.name + "', but this sweep's design is '" +
                               kind_->name + "' (expected its keys: " + util::quoted_list(kind_->keys) + ")");
  }
}

void Loader::read_base(const toml::node& n) {
  base_pos_ = pos_of(n);
  if (!n.is_string()) fail(n, "sweep.base: expected a string (the base scenario file), got " + type_of(n));
  const std::string given = n.as_string()->get();
  if (given.empty()) fail(n, "sweep.base must not be empty (expected the base scenario file)");
  const fs::path g(given);
  const fs::path resolved = g.is_absolute() ? g : (fs::path(file_.path()).parent_path() / g).lexically_normal();
  spec_.base_path = resolved.string();
  std::error_code ec;
  fs::path shown = fs::absolute(resolved, ec);
  if (ec) shown = resolved;
  const std::string where = "'" + given + "' (resolved to '" + shown.lexically_normal().string() + "')";
  if (auto why = read_input_file(spec_.base_path, kMaxTomlBytes, spec_.base_text))
    fail(n, "cannot open base scenario " + where + ": " + *why +
                (g.is_absolute() || *why != "no such file"
                     ? ""
                     : " (relative paths are resolved against the sweep file's directory)"));
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
    fail(n, "sweep.schedulers: unknown scheduler '" + s->get() + "'" + util::suggestion_suffix(s->get(), names) + " (" +
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
      fail(e, p + ": unknown scheduler '" + name + "'" + util::suggestion_suffix(name, names) + " (expected one of " +
                  util::quoted_list(names) + ")");
    if (auto it = seen.find(name); it != seen.end())
      fail(e, p + ": duplicate scheduler '" + name + "' (already sweep.schedulers[" + std::to_string(it->second) +
                  "]; expected each preset once)");
    seen.emplace(name, i);
    spec_.schedulers.push_back(name);
  }
}

void Loader::parse_replication(const toml::table& t) {
  if (spec_.test_function)
    fail(t, "sweep.seeds: a sweep with a [test_function] has no seeds to add (its values do not depend on the seed; "
            "expected seeds = 1 or no seeds)");
  ReplicationRule r = parse_replication_rule(file_, t, spec_.schedulers);
  for (std::uint64_t k = 1; k <= r.max; ++k) spec_.seeds.push_back(k);
  spec_.replication = std::move(r);
}

void Loader::parse_seeds(const toml::node& n) {
  if (const auto* t = n.as_table()) return parse_replication(*t);
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

}  // namespace

std::optional<ReplicationRule> replication_rule_of(const std::string& sweep_toml, const std::vector<std::string>& schedulers) {
  try {
    const toml::table root = parse_toml(sweep_toml, "sweep_toml");
    const toml::table* seeds = root["sweep"]["seeds"].as_table();
    if (!seeds) return std::nullopt;
    return parse_replication_rule(SweepFile("sweep_toml"), *seeds, schedulers);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

SweepSpec load_sweep_file(const std::string& path, const std::vector<Override>& cli_sets,
                          const SweepLoadOptions& options) {
  return as_input_errors(path, "the sweep", [&] { return Loader(path, cli_sets, options).load(); });
}

}  // namespace geopipe::config
