// The [[factor]] entries of the sampling designs (sweepfile/factors.h).
#include "sweepfile/factors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "util/input_error.h"

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
    if (!k->is_string()) file_.fail(*k, name + ".kind: expected a string (one of " + util::quoted_list(names) + "), got " + type_of(*k));
    const std::string want = k->as_string()->get();
    const auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& x) { return x.first == want; });
    if (it == kinds.end())
      file_.fail(*k, name + ".kind: unknown kind '" + want + "'" + util::suggestion_suffix(want, names) + " (expected one of " +
                         util::quoted_list(names) + ")");
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

double number_key(const SweepFile& file, const toml::node& n, const std::string& where) {
  if (!n.is_number()) file.fail(n, where + ": expected a number, got " + type_of(n));
  const double v = n.value<double>().value_or(0);
  if (!std::isfinite(v)) file.fail(n, where + " must be finite");
  return v;
}

}  // namespace

std::optional<analysis::TestFunction> parse_test_function(const SweepFile& file, const toml::table& root) {
  const toml::node* n = root.get("test_function");
  if (!n) return std::nullopt;
  const std::vector<std::string>& names = analysis::test_function_names();
  const toml::table* t = n->as_table();
  if (!t) file.fail(*n, "test_function: expected a table [test_function] with name = " + util::quoted_list(names) + ", got " + type_of(*n));
  const toml::node* name = t->get("name");
  if (!name) file.fail(pos_of(*t), "[test_function] is missing 'name' (expected one of " + util::quoted_list(names) + ")");
  if (!name->is_string()) file.fail(*name, "test_function.name: expected a string (one of " + util::quoted_list(names) + "), got " + type_of(*name));
  const std::string want = name->as_string()->get();
  const auto kind = analysis::test_function_kind(want);
  if (!kind)
    file.fail(*name, "test_function.name: unknown test function '" + want + "'" + util::suggestion_suffix(want, names) +
                         " (expected one of " + util::quoted_list(names) + ")");
  analysis::TestFunction f;
  f.kind = *kind;
  if (f.kind == analysis::TestFunctionKind::kIshigami) {
    file.check_keys(*t, {"name", "a", "b"}, "in [test_function] (ishigami)");
    if (const toml::node* a = t->get("a")) f.a = number_key(file, *a, "test_function.a");
    if (const toml::node* b = t->get("b")) f.b = number_key(file, *b, "test_function.b");
    // |f| <= 1 + |a| + |b| pi^4: values beyond analysis::kMaxTestFunctionValue overflow the estimators' sums
    // of squares (docs/limits.md), so such constants are refused here, not turned into inf later.
    const double pi4 = std::pow(std::acos(-1.0), 4);
    const double peak = 1 + std::fabs(f.a) + std::fabs(f.b) * pi4;
    if (!(peak <= analysis::kMaxTestFunctionValue)) {
      const toml::node* at = t->get(std::fabs(f.b) * pi4 > std::fabs(f.a) ? "b" : "a");
      file.fail(*at, "test_function: a = " + float_text(f.a) + ", b = " + float_text(f.b) + " give values " +
                         (std::isfinite(peak) ? std::string("up to ") : std::string()) + (std::isfinite(peak) ? float_text(peak) : std::string("more than 1.8e308")) + " (expected 1 + |a| + |b| pi^4 <= " + float_text(analysis::kMaxTestFunctionValue) + ")");
    }
    return f;
  }
  file.check_keys(*t, {"name", "a"}, "in [test_function] (sobol-g)");
  f.g_coefficients = analysis::default_g_coefficients();
  if (const toml::node* a = t->get("a")) {
    const toml::array* arr = a->as_array();
    if (!arr || arr->empty())
      file.fail(*a, "test_function.a: expected a non-empty array of coefficients a_i >= 0 (one per input), got " +
                        (arr ? std::string("an empty array") : type_of(*a)));
    f.g_coefficients.clear();
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string where = "test_function.a[" + std::to_string(i) + "]";
      const double v = number_key(file, *arr->get(i), where);
      if (v < 0) file.fail(*arr->get(i), where + " must be >= 0 (got " + float_text(v) + ")");
      f.g_coefficients.push_back(v);
    }
  }
  // max f = prod (2 + a_i) / (1 + a_i): at most analysis::kMaxTestFunctionValue (e.g. at most 332 inputs
  // with a_i = 0), else the product overflows (docs/limits.md).
  double log_peak = 0;
  for (const double a : f.g_coefficients) log_peak += std::log((2 + a) / (1 + a));
  if (!(log_peak <= std::log(analysis::kMaxTestFunctionValue))) {
    const toml::node* at = t->get("a");
    file.fail(at ? *at : static_cast<const toml::node&>(*t),
              "test_function.a: these " + std::to_string(f.g_coefficients.size()) + " coefficients give values up to 10^" +
                  float_text(std::round(log_peak / std::log(10.0) * 10) / 10) + " (expected prod (2 + a_i) / (1 + a_i) <= " + float_text(analysis::kMaxTestFunctionValue) +
                  ": fewer inputs, or larger a_i)");
  }
  return f;
}

std::vector<Factor> parse_factors(const SweepFile& file, const toml::table& root, const std::string& design, Pos anchor) {
  std::vector<Factor> factors;
  std::vector<const toml::table*> tables;
  file.array_of_tables(root, "factor", tables);
  if (const auto tf = parse_test_function(file, root)) {
    if (!tables.empty())
      file.fail(pos_of(*tables.front()), "a sweep with a [test_function] takes no [[factor]]: the function's inputs x1 .. x" +
                                             std::to_string(tf->dimension()) + " are its factors");
    const Pos at = pos_of(*root.get("test_function"));
    for (std::size_t i = 0; i < tf->dimension(); ++i) {
      Factor f;
      f.name = "x" + std::to_string(i + 1);
      f.param = f.name;
      f.param_pos = f.pos = at;
      f.min = tf->lower(i);
      f.max = tf->upper(i);
      factors.push_back(std::move(f));
    }
    return factors;
  }
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

SampledFactor sampled_of(const SweepFile& file, const Factor& f, std::size_t column) {
  SampledFactor m;
  m.param = f.param;
  m.column = column;
  m.kind = f.kind == FactorKind::kUniform      ? SampledFactor::Kind::kUniform
           : f.kind == FactorKind::kLogUniform ? SampledFactor::Kind::kLogUniform
           : f.kind == FactorKind::kInteger    ? SampledFactor::Kind::kInteger
                                               : SampledFactor::Kind::kDiscrete;
  m.min = f.min;
  m.max = f.max;
  const auto level_of = [&](const Value& v) {
    const Override o = file.override_of(f.param, v);
    SampledFactor::Level l;
    l.text = v.text;
    l.number = v.numeric ? v.number : std::numeric_limits<double>::quiet_NaN();
    l.numeric = v.numeric;
    l.origin = o.origin;
    l.line = o.line;
    l.column = o.column;
    return l;
  };
  for (const Value& v : f.values) m.values.push_back(level_of(v));
  Value table;
  table.pos = f.pos;
  m.at = level_of(table);
  return m;
}

Value factor_value(const Factor& f, double u) {
  if (f.kind == FactorKind::kDiscrete)
    return f.values[std::min(f.values.size() - 1, static_cast<std::size_t>(u * static_cast<double>(f.values.size())))];
  const SampledFactor::Level l = sampled_of(SweepFile(""), f, 0).value(u);  // the one mapping
  Value v;
  v.text = l.text;
  v.number = l.number;
  v.numeric = true;
  v.pos = f.pos;
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

std::vector<Entry> FactorDesign::probes() const { return factor_probes(factors_); }

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

void add_unit_points(SweepSpec& spec, const SweepFile& file, const std::vector<Factor>& factors,
                     std::vector<double> unit) {
  const std::size_t first = add_factor_columns(spec, factors);
  for (std::size_t j = 0; j < factors.size(); ++j) spec.points.sample.factors.push_back(sampled_of(file, factors[j], first + j));
  spec.points.sample.unit = std::move(unit);
}

bool bool_key(const SweepFile& file, const toml::table& t, const char* key, const std::string& where, bool fallback) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  if (!n->is_boolean()) file.fail(*n, where + "." + key + ": expected true or false, got " + type_of(*n));
  return n->as_boolean()->get();
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

std::uint64_t seed_key(const SweepFile& file, const toml::table& t, const std::string& where, std::uint64_t fallback) {
  if (!t.get("seed")) return fallback;
  return count_key(file, t, "seed", where, 0, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), "a seed");
}

std::vector<Factor> parse_factor_design(const SweepFile& file, const toml::table& root, const std::string& name,
                                        const std::vector<std::string>& keys, const std::string& needs,
                                        const std::function<void(const toml::table&)>& read) {
  const toml::table* t = design_table(file, root, name, keys, needs);
  if (t) read(*t);
  return parse_factors(file, root, name, t ? pos_of(*t) : Pos{1, 1});
}

}  // namespace geopipe::config::sweep_internal
