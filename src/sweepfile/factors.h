// Internal to src/sweepfile (includes toml++). Owns the [[factor]] entries of the sampling designs
// (the designs whose entry in the table of sweepfile/design.cpp lists the key "factor"): a
// parameter and its range or values, with every error about them, the preamble those designs
// share (their own table, then the factors: parse_factor_design), and a factor as its points use
// it (sampled_of: the mapping of a unit coordinate u in [0, 1] to the factor's value is
// SampledFactor's, sweepfile/point_source.h; docs/sweep-format.md, "Sampling designs"). How
// factors combine into points is each design's (its generator in src/analysis).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "analysis/test_functions.h"
#include "sweepfile/design.h"
#include "sweepfile/loader.h"
#include "sweepfile/parse.h"

namespace geopipe::config::sweep_internal {

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

/// The sweep file's [test_function] table (docs/sweep-format.md, "Sampling designs", its test functions), or nullopt
/// without one: name = "ishigami" (a, b optional) or "sobol-g" (a = [...] optional).
std::optional<analysis::TestFunction> parse_test_function(const SweepFile& file, const toml::table& root);

/// Every [[factor]] of the sweep file's root table, in order, for design `design` (at least one;
/// each parameter once). Throws InputError at the problem; `anchor` locates "no [[factor]]".
/// With a [test_function], its inputs are the factors: x1 .. xD, uniform on the function's
/// domain, and a [[factor]] is an error.
std::vector<Factor> parse_factors(const SweepFile& file, const toml::table& root, const std::string& design, Pos anchor);

/// The preamble of a design over [[factor]]s: its own table `[name]` (design_table, design.h:
/// only `keys`; required unless `needs` is empty), whose keys `read` takes (called only when the
/// table is there), then the [[factor]] entries (parse_factors; "no [[factor]]" is reported at
/// the table, or at 1:1 without one). Throws InputError.
std::vector<Factor> parse_factor_design(const SweepFile& file, const toml::table& root, const std::string& name,
                                        const std::vector<std::string>& keys, const std::string& needs,
                                        const std::function<void(const toml::table&)>& read);

/// The value of factor `f` at unit coordinate u in [0, 1]: min + u (max - min); exp(log min +
/// u (log max - log min)); min + floor(u (max - min + 1)) capped at max; values[floor(u count)]
/// capped at the last. Positioned at the factor's table.
Value factor_value(const Factor& f, double u);

/// Factor `f` as the points use it (SweepSample::factors), as column `column`, located in `file`.
SampledFactor sampled_of(const SweepFile& file, const Factor& f, std::size_t column);

/// What the designs over [[factor]]s (lhs, oat, sobol, morris) share: the file, the factors,
/// their probes, no hint, and a point count that fits a double (they are bounded far below
/// 2^53). A design adds its own table's keys, its count and its matrix.
class FactorDesign : public SweepDesign {
 public:
  double approx_points() const override { return static_cast<double>(num_points()); }
  std::vector<Entry> probes() const override;
  std::string hint_for(const InputError&) const override { return ""; }

 protected:
  explicit FactorDesign(const SweepFile& file) : file_(file) {}
  const SweepFile& file_;
  std::vector<Factor> factors_;
};

/// The probes of the factors (SweepDesign::probes): each parameter with its value at u = 0,
/// located at its `param`.
std::vector<Entry> factor_probes(const std::vector<Factor>& factors);

/// Appends one column per factor to spec.columns (numeric unless a discrete factor has a value
/// that is not a number); returns the index of the first.
std::size_t add_factor_columns(SweepSpec& spec, const std::vector<Factor>& factors);

/// The points of a sampling design from its matrix: `unit` holds, row-major, one row per point
/// and one unit coordinate per factor (NaN: the factor is not set at that point, it keeps the
/// base's value). Appends the factor columns and sets spec.points.sample: the factors and the
/// matrix (the /design table), from which the points are generated on demand. Only for a spec
/// without listed points (the sample comes after them).
void add_unit_points(SweepSpec& spec, const SweepFile& file, const std::vector<Factor>& factors,
                     std::vector<double> unit);

/// A boolean key of table `t`, or `fallback` if absent, failing at a non-boolean node.
bool bool_key(const SweepFile& file, const toml::table& t, const char* key, const std::string& where, bool fallback);

/// An integer key in [lo, hi] of table `t` (required), failing at its node; `where` names the
/// table in messages and `what` says what the key means.
std::uint64_t count_key(const SweepFile& file, const toml::table& t, const char* key, const std::string& where,
                        std::uint64_t lo, std::uint64_t hi, const std::string& what);

/// A design's `seed` in table `t`: an integer in [0, 2^63 - 1] (count_key), or `fallback` without one.
std::uint64_t seed_key(const SweepFile& file, const toml::table& t, const std::string& where, std::uint64_t fallback = 1);

}  // namespace geopipe::config::sweep_internal
