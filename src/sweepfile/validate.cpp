// Every point of a sweep checked at load time (sweepfile/validate.h).
//
// Each point is first built on a copy of the pre-parsed base (fast). That copy has lost the
// source regions of the base file's own nodes (toml++ does not copy them), so when it fails the
// point is rebuilt on a freshly parsed base, and that error is reported with exact locations.
#include "sweepfile/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <set>
#include <string>

#include "config/overrides.h"
#include "config/schema_check.h"
#include "sweepfile/point_scenario.h"
#include "config/toml_error.h"
#include "model/rng.h"

namespace geopipe::config::sweep_internal {
namespace {

class PointCheck {
 public:
  PointCheck(const SweepSpec& spec, const SweepFile& file, Pos base_pos, const SweepDesign& design,
             const std::vector<std::size_t>& points)
      : spec_(spec), file_(file), base_pos_(base_pos), design_(design), points_(points) {}

  PointFacts run() const;

 private:
  const SweepSpec& spec_;
  const SweepFile& file_;
  Pos base_pos_;
  const SweepDesign& design_;
  const std::vector<std::size_t>& points_;

  [[noreturn]] void report(std::size_t i, const InputError& e) const;
  /// True if the base with the fixed overrides alone fails with exactly error `e`.
  bool base_itself_fails(std::size_t i, const InputError& e) const;
};

PointFacts PointCheck::run() const {
  PointFacts facts;
  std::set<std::string> seen;
  auto note = [&](const Scenario& sc) {
    if (!sc.trace_path.empty() && seen.insert(sc.trace_path).second) facts.trace_paths.push_back(sc.trace_path);
    facts.job_text = facts.job_text.max_with(job_text_bytes(sc));
  };
  // The pre-parsed document is only used when every fixed override applies cleanly; otherwise
  // the exact (fresh) path below reports the problem.
  std::unique_ptr<PreparedBase> prep;
  try {
    prep = std::make_unique<PreparedBase>(spec_.base_text, spec_.base_path, spec_.fixed);
  } catch (const InputError&) {
    prep.reset();
  }
  for (const std::size_t i : points_) {
    ++facts.checked;
    const SweepPoint point = spec_.point(i);
    const std::vector<Override>& ov = point.overrides;
    if (prep) {
      try {
        note(prep->make(ov));
        continue;
      } catch (const InputError&) {
      }
    }
    try {
      note(make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, ov));
    } catch (const InputError& e) {
      report(i, e);
    }
    // The fast path failed but the exact one did not (should not happen): report the fast one.
    try {
      if (prep) (void)prep->make(ov);
    } catch (const InputError& e) {
      report(i, e);
    }
  }
  return facts;
}

bool PointCheck::base_itself_fails(std::size_t i, const InputError& e) const {
  if (spec_.point(i).overrides.empty()) return true;
  try {
    (void)make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, {});
  } catch (const InputError& b) {
    return std::string(b.what()) == e.what();
  }
  return false;
}

void PointCheck::report(std::size_t i, const InputError& e) const {
  if (e.file() == file_.path()) {  // a value of the sweep file
    const std::string hint = design_.hint_for(e);
    if (!hint.empty()) throw InputError(file_.path(), e.line(), e.column(), e.message() + hint);
    throw e;
  }
  if (e.file() != spec_.base_path) throw e;  // --set on the command line
  // The error is in the base file: is the base (with the fixed overrides) invalid on its own?
  if (base_itself_fails(i, e)) {
    const std::string with = spec_.fixed.empty() ? "" : " (with the fixed overrides)";
    file_.fail(base_pos_, "base scenario" + with + " is invalid: " + e.what());
  }
  std::string desc;
  Pos at = base_pos_;
  bool located = false;
  const SweepPoint point = spec_.point(i);
  for (const Override& o : point.overrides) {
    desc += (desc.empty() ? "" : ", ") + o.path + " = " + o.value;
    if (!located && o.line > 0) {
      at = Pos{o.line, o.column};
      located = true;
    }
  }
  file_.fail(at, "sweep point " + std::to_string(i) + " (" + desc + ") gives an invalid scenario: " + e.what());
}

}  // namespace

PointFacts validate_points(const SweepSpec& spec, const SweepFile& file, Pos base_pos, const SweepDesign& design,
                           const std::vector<std::size_t>& points) {
  return PointCheck(spec, file, base_pos, design, points).run();
}

std::vector<std::size_t> points_to_check(const SweepSpec& spec, const SweepLoadOptions& options, std::uint64_t seed) {
  const std::size_t n = spec.num_points();
  std::vector<std::size_t> out;
  if (options.check_all_points || n <= options.check_all_up_to) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  const auto& factors = spec.points.grid.factors;
  const std::uint64_t g = spec.points.grid.size();
  // The index of the grid point whose factor f is at level digit[f] (the last varies fastest).
  const auto index = [&](const std::vector<std::size_t>& digit) {
    std::uint64_t i = 0;
    for (std::size_t f = 0; f < factors.size(); ++f) i = i * factors[f].size() + digit[f];
    return static_cast<std::size_t>(i);
  };
  const std::size_t budget = static_cast<std::size_t>(options.cover_points);
  std::vector<std::size_t> digit(factors.size(), 0);
  std::size_t widest = 0;
  for (const auto& f : factors) widest = std::max(widest, f.size());
  for (std::size_t j = 0; j < std::min(widest, budget); ++j) {  // the diagonal
    for (std::size_t f = 0; f < factors.size(); ++f) digit[f] = j % factors[f].size();
    out.push_back(index(digit));
  }
  std::size_t ota = 0;  // one factor at a time from the first point
  for (std::size_t f = 0; f < factors.size() && ota < budget; ++f) {
    std::fill(digit.begin(), digit.end(), 0);
    for (std::size_t l = 0; l < factors[f].size() && ota < budget; ++l, ++ota) {
      digit[f] = l;
      out.push_back(index(digit));
    }
  }
  // The listed points of a grid sweep (its [[point]]s) are all built; those of a sampling
  // design (every point) are sampled like the rest, check_values() covering each value.
  if (spec.design == "grid" || spec.design.empty())
    for (std::size_t i = static_cast<std::size_t>(g); i < n; ++i) out.push_back(i);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // A deterministic sample of the rest (Floyd's algorithm would avoid the set; the sample is small).
  const std::size_t want = std::min<std::size_t>(n, out.size() + options.sample_points);
  std::unordered_set<std::size_t> have(out.begin(), out.end());
  std::uint64_t state = seed;
  while (have.size() < want) {
    const std::size_t i = static_cast<std::size_t>(splitmix64(state) % n);
    if (have.insert(i).second) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_values(const SweepSpec& spec, const SweepFile& file, const SweepDesign& design) {
  toml::table doc = parse_toml(spec.base_text, spec.base_path);
  apply_overrides(doc, spec.fixed);
  std::unordered_map<std::string, OverrideTarget> targets;
  const auto check = [&](const Override& o) {
    auto t = targets.find(o.path);
    if (t == targets.end()) t = targets.emplace(o.path, override_target(doc, o)).first;
    if (!t->second.field) return;
    // The value as the scenario loader would see it: an integer or float from its text (the
    // common case, without a parse), else parsed as TOML.
    std::optional<toml::table> parsed;
    std::unique_ptr<toml::node> number;
    const toml::node* n = nullptr;
    const std::string& v = o.value;
    char* end = nullptr;
    const bool integer = !v.empty() && v.find_first_not_of("+-0123456789") == std::string::npos;
    const double d = v.empty() || integer ? 0 : std::strtod(v.c_str(), &end);
    if (integer && v.size() < 19) {
      number = std::make_unique<toml::value<std::int64_t>>(std::strtoll(v.c_str(), nullptr, 10));
      n = number.get();
    } else if (!integer && !v.empty() && end == v.c_str() + v.size() && std::isfinite(d)) {
      number = std::make_unique<toml::value<double>>(d);
      n = number.get();
    } else {
      try {
        parsed = toml::parse("x = " + v);
        n = parsed->get("x");
      } catch (const toml::parse_error&) {
        return;  // the scenario build reports it
      }
    }
    if (!n) return;
    try {
      check_leaf(*n, *t->second.field, o.path, file.path());
    } catch (const InputError& e) {
      const std::string hint = design.hint_for(InputError(o.origin, o.line, o.column, e.message()));
      throw InputError(o.origin, o.line, o.column, e.message() + hint);
    }
  };
  // A points_file's rows: each value (a grid's [[point]]s were all built). A sampled factor's
  // smallest and largest value decide the schema's range check for all (its map is monotone and
  // its values are all floats); an integer or discrete factor's values are each checked.
  spec.points.for_each_value(check, /*with_listed=*/spec.design != "grid");
}

}  // namespace geopipe::config::sweep_internal
