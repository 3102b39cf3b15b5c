// Swept parameters of a sweep file: [[axis]] / [[zip.axis]] (sweepfile/members.h).
#include "sweepfile/members.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "util/input_error.h"

namespace geopipe::config::sweep_internal {
namespace {

/// Rounds to 15 significant digits, so that generated values read as the decimals they stand
/// for (0.1 + 2 * 0.1 -> 0.3, not 0.30000000000000004).
double tidy(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return std::strtod(buf, nullptr);
}

/// `count` values from start to stop (both exact), evenly spaced, or geometrically if `log`.
std::vector<double> range_values(double start, double stop, std::size_t count, bool log) {
  std::vector<double> out(count);
  if (count == 1) {
    out[0] = start;
    return out;
  }
  const double div = static_cast<double>(count - 1);
  if (log) {
    const double ratio = stop / start;
    for (std::size_t i = 0; i < count; ++i) out[i] = tidy(start * std::pow(ratio, static_cast<double>(i) / div));
  } else {
    const double step = (stop - start) / div;  // as numpy.linspace
    for (std::size_t i = 0; i < count; ++i) out[i] = tidy(start + static_cast<double>(i) * step);
  }
  out.front() = start;
  out.back() = stop;
  return out;
}

class MemberParser {
 public:
  explicit MemberParser(const SweepFile& file) : file_(file) {}
  Member parse(const toml::table& t, const std::string& name, bool in_zip);

 private:
  const SweepFile& file_;

  [[noreturn]] void fail(Pos p, const std::string& msg) const { file_.fail(p, msg); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { file_.fail(n, msg); }
  void check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where) const {
    file_.check_keys(t, allowed, where);
  }

  void parse_values(const toml::node& n, Member& m);
  void parse_range(const toml::node& n, Member& m);
  void apply_integer(const toml::node& flag, Member& m);
  void check_distinct(const Member& m) const;
};

/// A standalone axis with a repeated value would run the same point twice. Numbers compare by
/// value (1 and 1.0 are the same), strings and booleans by text. O(n log n): the first repeated
/// value (in order) is reported with its first occurrence.
void MemberParser::check_distinct(const Member& m) const {
  std::map<double, std::size_t> numbers;
  std::map<std::string, std::size_t> texts;
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    const Value& b = m.values[i];
    std::size_t j = 0;
    bool repeated = false;
    if (b.numeric) {
      if (std::isnan(b.number)) continue;  // equal to nothing (and rejected by the schema)
      const auto [it, fresh] = numbers.emplace(b.number, i);
      repeated = !fresh;
      j = it->second;
    } else {
      const auto [it, fresh] = texts.emplace(b.text, i);
      repeated = !fresh;
      j = it->second;
    }
    if (!repeated) continue;
    if (m.from_range)
      fail(m.data_pos, m.name + ".range gives the value " + b.text + " twice (expected distinct values; start == stop?)");
    fail(b.pos, m.name + ".values[" + std::to_string(i) + "]: duplicate value " + b.text + " (already values[" +
                    std::to_string(j) + "]; expected distinct values)");
  }
}

Member MemberParser::parse(const toml::table& t, const std::string& name, bool in_zip) {
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

  if (!in_zip) check_distinct(m);
  return m;
}

void MemberParser::parse_values(const toml::node& n, Member& m) {
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

void MemberParser::parse_range(const toml::node& n, Member& m) {
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
    if (!(start > 0)) fail(*t->get("start"), p + ".start must be > 0 when log = true (got " + util::format_number(start) + ")");
    if (!(stop > 0)) fail(*t->get("stop"), p + ".stop must be > 0 when log = true (got " + util::format_number(stop) + ")");
  }
  for (double d : range_values(start, stop, static_cast<std::size_t>(num), log)) {
    if (!std::isfinite(d)) fail(n, p + " gives a value that is not finite (expected a smaller range)");
    Value v;
    v.text = float_text(d);
    v.numeric = true;
    v.number = d;
    v.pos = m.data_pos;
    m.values.push_back(std::move(v));
  }
}

void MemberParser::apply_integer(const toml::node& flag, Member& m) {
  constexpr double kLimit = 9007199254740992.0;  // 2^53: every integer below is exact
  std::vector<Value> rounded;
  std::map<double, std::size_t> first;  // rounded value -> first index that rounds to it
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    const Value& v = m.values[i];
    if (!v.numeric)
      fail(flag, m.name + ".integer = true needs numeric values (values[" + std::to_string(i) + "] is " + v.text + ")");
    const double r = std::round(v.number);
    if (!std::isfinite(r) || std::fabs(r) >= kLimit)
      fail(m.from_range ? m.data_pos : v.pos,
           m.name + ": value " + v.text + " is too large to round to an integer (expected |value| < 2^53)");
    const auto [it, fresh] = first.emplace(r, i);
    const std::size_t j = it->second;
    if (!fresh && m.values[j].number != v.number)
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

}  // namespace

Member parse_member(const SweepFile& file, const toml::table& t, const std::string& name, bool in_zip) {
  return MemberParser(file).parse(t, name, in_zip);
}

}  // namespace geopipe::config::sweep_internal
