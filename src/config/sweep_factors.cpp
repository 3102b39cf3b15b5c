// The [[factor]] entries of the sampling designs (config/sweep_factors.h).
#include "config/sweep_factors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "config/error.h"

namespace geopipe::config::sweep_internal {
namespace {

Factor parse_factor(const SweepFile& file_, const toml::table& t, const std::string& name) {
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

}  // namespace

std::vector<Factor> parse_factors(const SweepFile& file, const toml::table& root, const std::string& design, Pos anchor) {
  std::vector<Factor> factors;
  std::vector<const toml::table*> tables;
  file.array_of_tables(root, "factor", tables);
  if (tables.empty()) file.fail(anchor, "design '" + design + "' has no [[factor]] (expected at least one)");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    factors.push_back(parse_factor(file, *tables[i], "factor[" + std::to_string(i) + "]"));
    for (std::size_t j = 0; j + 1 < factors.size(); ++j)
      if (factors[j].param == factors.back().param)
        file.fail(factors.back().param_pos, factors.back().name + ".param: '" + factors.back().param +
                                                "' is already " + factors[j].name +
                                                " (expected each parameter in one [[factor]])");
  }
  return factors;
}

Value factor_value(const Factor& f, double u) {
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

std::vector<Entry> factor_probes(const std::vector<Factor>& factors) {
  std::vector<Entry> out;
  for (const Factor& f : factors) {
    Value v = factor_value(f, 0.0);
    v.pos = f.param_pos;
    out.push_back(Entry{f.param, std::move(v)});
  }
  return out;
}

std::size_t add_factor_columns(SweepSpec& spec, const std::vector<Factor>& factors) {
  const std::size_t first = spec.columns.size();
  for (const Factor& f : factors) {
    bool numeric = true;
    if (f.kind == FactorKind::kDiscrete)
      for (const Value& v : f.values) numeric = numeric && v.numeric;
    spec.columns.push_back(SweepColumn{f.param, numeric});
  }
  return first;
}

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

}  // namespace geopipe::config::sweep_internal
