// Internal to src/config (includes toml++). Owns the [[factor]] entries of the sampling designs
// (config/sweep_design.h: "lhs", "oat"): a parameter and its range or values, with every error
// about them, and the mapping of a unit coordinate u in [0, 1] to the factor's value
// (docs/sweep-format.md, "Sampling designs"). How factors combine into points is each design's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/sweep_loader.h"
#include "config/sweep_parse.h"

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

/// Every [[factor]] of the sweep file's root table, in order, for design `design` (at least one;
/// each parameter once). Throws InputError at the problem; `anchor` locates "no [[factor]]".
std::vector<Factor> parse_factors(const SweepFile& file, const toml::table& root, const std::string& design, Pos anchor);

/// The value of factor `f` at unit coordinate u in [0, 1]: min + u (max - min); exp(log min +
/// u (log max - log min)); min + floor(u (max - min + 1)) capped at max; values[floor(u count)]
/// capped at the last. Positioned at the factor's table.
Value factor_value(const Factor& f, double u);

/// The probes of the factors (SweepDesign::probes): each parameter with its value at u = 0,
/// located at its `param`.
std::vector<Entry> factor_probes(const std::vector<Factor>& factors);

/// Appends one column per factor to spec.columns (numeric unless a discrete factor has a value
/// that is not a number); returns the index of the first.
std::size_t add_factor_columns(SweepSpec& spec, const std::vector<Factor>& factors);

/// An integer key in [lo, hi] of table `t` (required), failing at its node; `where` names the
/// table in messages and `what` says what the key means.
std::uint64_t count_key(const SweepFile& file, const toml::table& t, const char* key, const std::string& where,
                        std::uint64_t lo, std::uint64_t hi, const std::string& what);

}  // namespace geopipe::config::sweep_internal
