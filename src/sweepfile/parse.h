// Internal to src/sweepfile (includes toml++): what every part of the sweep loader shares. Owns
// positions in the sweep file, the TOML text of values, the SweepFile context (errors at a
// position, unknown-key checks, [[array]] reading, overrides located in the file), flattened
// `path = value` tables ([sweep.set], [[point]]) and the size limits of a sweep.
//
// The parts: sweepfile/loader.cpp (entry point, [sweep] table, hash), sweepfile/members.cpp (swept
// values), sweepfile/design.h + sweepfile/grid.cpp (how points are laid out), sweepfile/validate.cpp
// (every point's scenario checked) and scenario_factory.cpp (a point's scenario).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config/scenario_loader.h"
#include "config/toml_error.h"

namespace geopipe::config::sweep_internal {

/// Scenario ids (plan/plan.h) must stay below 2^40: a sweep that large could never run, and
/// the bound keeps every product of counts far from 64-bit overflow and ids exact as float64
/// (the HDF5 and pandas side).
inline constexpr std::uint64_t kMaxScenarios = std::uint64_t{1} << 40;
/// Points and seeds are materialised (and every point is validated) before any work.
inline constexpr std::uint64_t kMaxPoints = 1'000'000;
inline constexpr std::uint64_t kMaxSeeds = 10'000'000;

/// a * b, saturating at kMaxScenarios.
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return (b != 0 && a > kMaxScenarios / b) ? kMaxScenarios : std::min(kMaxScenarios, a * b);
}

/// 1-based line and column in the sweep file.
struct Pos {
  int line = 1;
  int column = 1;
};

Pos pos_of(const toml::source_region& r);
Pos pos_of(const toml::node& n);
/// Position of a key, or of its value when the key has none.
Pos pos_of(const toml::key& k, const toml::node& v);

/// Shortest text that reads back to `v`, always a TOML float ("1.0", "0.5", "1e-05", "inf").
std::string float_text(double v);
/// TOML text of a value ("2", "0.5", "\"x\"", "[1, 2]", "{ a = 1 }", dates as TOML writes them).
std::string toml_text(const toml::node& n);
/// "an integer", "a string", ... (config/toml_error.h type_phrase()).
std::string type_of(const toml::node& n);
/// Keys of a table in file order (toml::table iterates alphabetically).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t);

/// One value of the sweep file as it becomes an override.
struct Value {
  std::string text;                                          ///< TOML text
  double number = std::numeric_limits<double>::quiet_NaN();  ///< numeric value (NaN: not a number)
  bool numeric = false;
  Pos pos;                                                   ///< where it is (or its range) in the file
  std::string origin;                                        ///< that file: "" = the sweep file (else e.g. a points CSV)
};

/// One `path = value` of a [[point]] or of [sweep.set] (nested tables flattened to dotted paths).
struct Entry {
  std::string path;
  Value value;
};

/// The sweep file being read: every error points into it.
class SweepFile {
 public:
  explicit SweepFile(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  [[noreturn]] void fail(Pos p, const std::string& msg) const;
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const;

  /// Fails at the first key of `t` (in file order) that is not in `allowed`, with a did-you-mean
  /// or the list of allowed keys (then "; hint" when given).
  void check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where,
                  const std::string& hint = "") const;
  /// Appends the tables of the array of tables `root[key]` (if present) to `out`.
  void array_of_tables(const toml::table& root, const std::string& key, std::vector<const toml::table*>& out) const;
  /// Entries of a `path = value` table in file order; a path set twice is an error.
  std::vector<Entry> parse_entries(const toml::table& t, const std::string& where) const;
  /// `param = v` as an override located at v's position in this file.
  Override override_of(const std::string& param, const Value& v) const;

 private:
  std::string path_;
};

}  // namespace geopipe::config::sweep_internal
