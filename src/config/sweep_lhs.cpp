// The Latin hypercube design of a sweep file (config/sweep_design.h; docs/sweep-format.md,
// "Sampling designs"): N points over [[factor]] entries, each factor's range cut into N equal
// strata of probability with exactly one point in each, the strata paired across factors at
// random. Deterministic: the points depend only on the sweep file ([lhs] seed).
//
//   [sweep]
//   design = "lhs"
//   [lhs]
//   samples = 64          # N >= 1
//   seed = 1              # optional (default 1)
//   [[factor]]
//   param = "network.bandwidth_scale"
//   kind = "log-uniform"  # "uniform" (default), "log-uniform", "integer", "discrete"
//   min = 0.25
//   max = 4.0             # "discrete": values = [...] instead of min/max
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "config/sweep_design.h"
#include "model/rng.h"

namespace geopipe::config::sweep_internal {
namespace {

enum class FactorKind { kUniform, kLogUniform, kInteger, kDiscrete };

/// One [[factor]]: a parameter and the distribution its values are drawn from.
struct Factor {
  std::string name;  ///< "factor[0]"
  std::string param;
  Pos param_pos;
  Pos pos;  ///< of the table (values are reported there)
  FactorKind kind = FactorKind::kUniform;
  double min = 0, max = 0;
  std::vector<Value> values;  ///< kDiscrete
};

constexpr std::uint64_t kMaxSamples = 10'000'000;

class LhsDesign final : public SweepDesign {
 public:
  LhsDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return samples_; }
  double approx_points() const override { return static_cast<double>(samples_); }
  std::vector<Entry> probes() const override;
  void materialise(SweepSpec& spec) const override;
  std::string hint_for(const InputError&) const override { return ""; }

 private:
  const SweepFile& file_;
  std::uint64_t samples_ = 0;
  std::uint64_t seed_ = 1;
  std::vector<Factor> factors_;

  Factor parse_factor(const toml::table& t, const std::string& name) const;
  /// The value of factor `f` at unit coordinate u in [0, 1).
  Value value_at(const Factor& f, double u) const;
};

/// An integer key >= lo of table `t` (required), failing at its node.
std::uint64_t count_key(const SweepFile& file, const toml::table& t, const char* key, const std::string& where,
                        std::uint64_t lo, std::uint64_t hi, const std::string& what) {
  const toml::node* n = t.get(key);
  if (!n) file.fail(pos_of(t), where + ": missing '" + key + "' (expected " + what + ")");
  const auto v = n->value<std::int64_t>();
  if (!n->is_integer() || !v) file.fail(*n, where + "." + key + ": expected an integer, got " + type_of(*n));
  if (*v < static_cast<std::int64_t>(lo) || static_cast<std::uint64_t>(*v) > hi)
    file.fail(*n, where + "." + key + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                      std::to_string(*v) + ")");
  return static_cast<std::uint64_t>(*v);
}

LhsDesign::LhsDesign(const SweepFile& file, const toml::table& root) : file_(file) {
  const toml::node* lhs = root.get("lhs");
  if (!lhs) file_.fail(Pos{1, 1}, "design 'lhs' needs an [lhs] table (expected samples = N and [[factor]] entries)");
  const toml::table* t = lhs->as_table();
  if (!t) file_.fail(*lhs, "lhs: expected a table, got " + type_of(*lhs));
  file_.check_keys(*t, {"samples", "seed"}, "in [lhs]");
  samples_ = count_key(file_, *t, "samples", "lhs", 1, kMaxSamples, "the number of points, at least 1");
  if (t->get("seed")) seed_ = count_key(file_, *t, "seed", "lhs", 0, std::numeric_limits<std::int64_t>::max(), "a seed");
  std::vector<const toml::table*> tables;
  file_.array_of_tables(root, "factor", tables);
  if (tables.empty()) file_.fail(pos_of(*t), "design 'lhs' has no [[factor]] (expected at least one)");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    factors_.push_back(parse_factor(*tables[i], "factor[" + std::to_string(i) + "]"));
    for (std::size_t j = 0; j + 1 < factors_.size(); ++j)
      if (factors_[j].param == factors_.back().param)
        file_.fail(factors_.back().param_pos, factors_.back().name + ".param: '" + factors_.back().param +
                                                  "' is already " + factors_[j].name +
                                                  " (expected each parameter in one [[factor]])");
  }
}

Factor LhsDesign::parse_factor(const toml::table& t, const std::string& name) const {
  Factor f;
  f.name = name;
  f.pos = pos_of(t);
  file_.check_keys(t, {"param", "kind", "min", "max", "values"}, "in " + name);
  const toml::node* p = t.get("param");
  if (!p) file_.fail(f.pos, name + ": missing 'param' (expected the scenario parameter it sets)");
  if (!p->is_string() || p->as_string()->get().empty())
    file_.fail(*p, name + ".param: expected a non-empty string (a scenario parameter path), got " + type_of(*p));
  f.param = p->as_string()->get();
  f.param_pos = pos_of(*p);
  static const std::vector<std::pair<std::string, FactorKind>> kinds = {{"uniform", FactorKind::kUniform},
                                                                       {"log-uniform", FactorKind::kLogUniform},
                                                                       {"integer", FactorKind::kInteger},
                                                                       {"discrete", FactorKind::kDiscrete}};
  if (const toml::node* k = t.get("kind")) {
    std::vector<std::string> names;
    for (const auto& [n, _] : kinds) names.push_back(n);
    if (!k->is_string()) file_.fail(*k, name + ".kind: expected a string (one of " + quoted_list(names) + "), got " + type_of(*k));
    const std::string want = k->as_string()->get();
    const auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& x) { return x.first == want; });
    if (it == kinds.end())
      file_.fail(*k, name + ".kind: unknown kind '" + want + "'" + suggestion_suffix(want, names) + " (expected one of " +
                         quoted_list(names) + ")");
    f.kind = it->second;
  }
  if (f.kind == FactorKind::kDiscrete) {
    if (t.get("min") || t.get("max"))
      file_.fail(*(t.get("min") ? t.get("min") : t.get("max")),
                 name + ": a discrete factor takes values = [...], not min/max");
    const toml::node* v = t.get("values");
    if (!v) file_.fail(f.pos, name + ": missing 'values' (expected the list a discrete factor draws from)");
    const toml::array* a = v->as_array();
    if (!a || a->empty()) file_.fail(*v, name + ".values: expected a non-empty array, got " + (a ? "an empty array" : type_of(*v)));
    for (const toml::node& e : *a) {
      Value x;
      x.text = toml_text(e);
      if (const auto d = e.value<double>(); d && e.is_number()) {
        x.number = *d;
        x.numeric = true;
      }
      x.pos = pos_of(e);
      f.values.push_back(std::move(x));
    }
    return f;
  }
  if (t.get("values")) file_.fail(*t.get("values"), name + ": values = [...] is for kind = \"discrete\" (expected min and max)");
  auto bound = [&](const char* key) {
    const toml::node* n = t.get(key);
    if (!n) file_.fail(f.pos, name + ": missing '" + key + "' (expected min and max of the factor's range)");
    if (!n->is_number()) file_.fail(*n, name + "." + key + ": expected a number, got " + type_of(*n));
    const double v = n->value<double>().value_or(0);
    if (!std::isfinite(v)) file_.fail(*n, name + "." + key + " must be finite");
    if (f.kind == FactorKind::kInteger && (!n->is_integer()))
      file_.fail(*n, name + "." + key + ": expected an integer for kind = \"integer\", got " + type_of(*n));
    return v;
  };
  f.min = bound("min");
  f.max = bound("max");
  const toml::node* max_node = t.get("max");
  if (!(f.min < f.max) && !(f.kind == FactorKind::kInteger && f.min == f.max))
    file_.fail(*max_node, name + ": max must be greater than min (got min = " + float_text(f.min) +
                              ", max = " + float_text(f.max) + ")");
  if (f.kind == FactorKind::kLogUniform && !(f.min > 0))
    file_.fail(*t.get("min"), name + ".min must be > 0 for kind = \"log-uniform\" (got " + float_text(f.min) + ")");
  return f;
}

Value LhsDesign::value_at(const Factor& f, double u) const {
  Value v;
  v.pos = f.pos;
  v.numeric = true;
  switch (f.kind) {
    case FactorKind::kUniform:
      v.number = f.min + u * (f.max - f.min);
      v.text = float_text(v.number);
      return v;
    case FactorKind::kLogUniform:
      v.number = std::exp(std::log(f.min) + u * (std::log(f.max) - std::log(f.min)));
      v.text = float_text(v.number);
      return v;
    case FactorKind::kInteger: {
      const double span = f.max - f.min + 1;
      v.number = std::min(f.max, f.min + std::floor(u * span));
      v.text = std::to_string(static_cast<std::int64_t>(v.number));
      return v;
    }
    case FactorKind::kDiscrete: {
      const std::size_t k = std::min(f.values.size() - 1, static_cast<std::size_t>(u * static_cast<double>(f.values.size())));
      return f.values[k];
    }
  }
  return v;
}

std::vector<Entry> LhsDesign::probes() const {
  std::vector<Entry> out;
  for (const Factor& f : factors_) {
    Value v = value_at(f, 0.0);
    v.pos = f.param_pos;
    out.push_back(Entry{f.param, std::move(v)});
  }
  return out;
}

void LhsDesign::materialise(SweepSpec& spec) const {
  const std::size_t first_col = spec.columns.size();
  for (const Factor& f : factors_) {
    bool numeric = true;
    if (f.kind == FactorKind::kDiscrete)
      for (const Value& v : f.values) numeric = numeric && v.numeric;
    spec.columns.push_back(SweepColumn{f.param, numeric});
  }
  const std::size_t ncol = spec.columns.size();
  const auto n = static_cast<std::size_t>(samples_);
  // Unit coordinates: factor j of point i lies in stratum perm_j[i] of [0, 1), at a uniform
  // position inside it. One stream per factor, so adding a factor does not move the others.
  std::vector<std::vector<double>> u(factors_.size(), std::vector<double>(n));
  for (std::size_t j = 0; j < factors_.size(); ++j) {
    Rng rng(derive_seed(seed_, "lhs factor " + std::to_string(j)));
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[static_cast<std::size_t>(rng.below(i))]);
    for (std::size_t i = 0; i < n; ++i) u[j][i] = (static_cast<double>(perm[i]) + rng.uniform()) / static_cast<double>(n);
  }
  // The design matrix, for analysis (the /design table).
  for (const Factor& f : factors_) spec.unit_factors.push_back(f.param);
  spec.unit.resize(n * factors_.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < factors_.size(); ++j) spec.unit[i * factors_.size() + j] = u[j][i];
  spec.listed.reserve(spec.listed.size() + n);
  for (std::size_t i = 0; i < n; ++i) {
    SweepPoint p;
    p.numeric.assign(ncol, std::numeric_limits<double>::quiet_NaN());
    p.text.assign(ncol, "");
    for (std::size_t j = 0; j < factors_.size(); ++j) {
      const Value v = value_at(factors_[j], u[j][i]);
      p.overrides.push_back(file_.override_of(factors_[j].param, v));
      p.numeric[first_col + j] = v.numeric ? v.number : std::numeric_limits<double>::quiet_NaN();
      p.text[first_col + j] = v.text;
    }
    spec.listed.push_back(std::move(p));
  }
}

}  // namespace

std::unique_ptr<SweepDesign> parse_lhs_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<LhsDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
