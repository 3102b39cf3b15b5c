// The scenario TOML schema as data: every table, key, type and range. The loader validates
// documents against it generically (unknown keys, types, ranges, required keys), the
// override mechanism resolves and types `--set` paths with it, and scenario_paths() lists it.
// Cross-field rules (exactly one price key, known names, jobs that fit, ...) are checked by the
// loader itself. Documented for users in docs/scenario-format.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/input_error.h"  // format_number
#include "util/named_table.h"

namespace geopipe::config::schema {

// Safety limits (keep every integer inside int and every loop bounded).
/// The pathfinder keeps the set of used regions in a 64-bit mask (src/sched/pathfinder_impl.h).
inline constexpr int kMaxRegions = 64;
/// Upper bound of cluster.region.<name>.gpus, and of a region's count after capacity_scale.
inline constexpr int kMaxGpusPerRegion = 1'000'000;
/// Most jobs of a scenario (workload.num_jobs, rows of a trace): what `geopipe run` simulates
/// within its memory budget (docs/limits.md, "Documented maxima").
inline constexpr int kMaxJobs = 4'000'000;
/// Smallest and largest link capacity (Gbit/s; a series may also hold 0, an outage) and the
/// largest electricity price (USD/kWh) a scenario may give, as a constant or in a time series.
inline constexpr double kMinGbps = 1e-6;  ///< 1 kbit/s
inline constexpr double kMaxGbps = 1e6;
inline constexpr double kMaxPrice = 1e6;

enum class Kind {
  kInt,          ///< TOML integer
  kFloat,        ///< TOML float or integer
  kString,       ///< TOML string
  kFloatArray,   ///< array of numbers (each checked against the field's bounds)
  kStringArray,  ///< array of strings
  kTable,        ///< [table]
  kTableArray,   ///< [[array of tables]]
};

struct Bound {
  double value = 0;
  bool inclusive = true;
};

struct TableSpec;

struct Field {
  std::string name;
  Kind kind = Kind::kFloat;
  bool required = false;
  std::optional<Bound> lo, hi;    ///< numeric bounds (arrays: per element)
  std::size_t length = 0;         ///< arrays: exact element count (0 = any)
  std::size_t min_entries = 0;    ///< table arrays: minimum entries when present
  std::size_t max_entries = 0;    ///< table arrays: maximum entries (0 = unbounded)
  std::string default_text;       ///< as documented ("" = none / required); see def()
  // The next three are string literals (the builders take nothing else), so a field holds no
  // copy of its documentation: building the schema is part of every `validate` and `run`.
  std::string_view unit;          ///< unit as written in the file
  std::string_view doc;
  const TableSpec* table = nullptr;  ///< kTable / kTableArray: the nested schema
  std::string_view address_key;   ///< kTableArray: key naming an entry in override paths
  /// Leaves added after HDF5 format 4: at their default they are left out of a scenario's content
  /// key (docs/hdf5-format.md, "Scenario keys"), so adding them keeps the keys of earlier files.
  bool keyed_only_when_set = false;
  /// Words a number key also accepts in place of a number ("auto", "none"; empty = none).
  std::array<std::string_view, 2> words_{};
  /// A string naming an input file (relative to the scenario's directory): a scenario's
  /// content key holds the file's size and digest, not its name (docs/hdf5-format.md).
  bool names_file = false;

  bool is_leaf() const { return kind != Kind::kTable && kind != Kind::kTableArray; }
  bool is_integer() const { return kind == Kind::kInt; }
  bool expects_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kFloatArray; }

  // Builder helpers (used to write the schema compactly). On a temporary (a chain such as
  // F("x", k).req().ge(0)) each step moves the field on; on a named field it copies it.
  Field req() && { required = true; return std::move(*this); }
  Field gt(double v) && { lo = Bound{v, false}; return std::move(*this); }
  Field ge(double v) && { lo = Bound{v, true}; return std::move(*this); }
  Field lt(double v) && { hi = Bound{v, false}; return std::move(*this); }
  Field le(double v) && { hi = Bound{v, true}; return std::move(*this); }
  Field len(std::size_t n) && { length = n; return std::move(*this); }
  Field entries(std::size_t lo_n, std::size_t hi_n) && { min_entries = lo_n; max_entries = hi_n; return std::move(*this); }
  Field def(std::string t) && { default_text = std::move(t); return std::move(*this); }
  /// A numeric default, as util::format_number() prints it ("0.4", "1", "200").
  template <class T>
    requires std::is_arithmetic_v<T>
  Field def(T v) && { return std::move(*this).def(util::format_number(static_cast<double>(v))); }
  template <std::size_t N>
  Field in(const char (&u)[N]) && { unit = u; return std::move(*this); }
  template <std::size_t N>
  Field says(const char (&d)[N]) && { doc = d; return std::move(*this); }
  Field added_later() && { keyed_only_when_set = true; return std::move(*this); }
  Field words(std::string_view a, std::string_view b = {}) && { words_ = {a, b}; return std::move(*this); }
  bool accepts_word(std::string_view w) const { return !w.empty() && (w == words_[0] || w == words_[1]); }
  Field file() && { names_file = true; return std::move(*this); }
  Field req() const& { return Field(*this).req(); }
  Field gt(double v) const& { return Field(*this).gt(v); }
  Field ge(double v) const& { return Field(*this).ge(v); }
  Field lt(double v) const& { return Field(*this).lt(v); }
  Field le(double v) const& { return Field(*this).le(v); }
  Field len(std::size_t n) const& { return Field(*this).len(n); }
  Field entries(std::size_t lo_n, std::size_t hi_n) const& { return Field(*this).entries(lo_n, hi_n); }
  Field def(std::string t) const& { return Field(*this).def(std::move(t)); }
  template <class T>
    requires std::is_arithmetic_v<T>
  Field def(T v) const& { return Field(*this).def(v); }
  template <std::size_t N>
  Field in(const char (&u)[N]) const& { return Field(*this).in(u); }
  template <std::size_t N>
  Field says(const char (&d)[N]) const& { return Field(*this).says(d); }
  Field added_later() const& { return Field(*this).added_later(); }
  Field file() const& { return Field(*this).file(); }
};

struct TableSpec {
  std::vector<Field> fields;

  const Field* find(std::string_view name) const { return util::find_named(fields, name); }
  std::vector<std::string> names() const { return util::names_of(fields); }
};

/// The root of the scenario schema.
const TableSpec& scenario_root();

/// Placeholder used in scenario_paths() for the entry-name segment of a table array, e.g.
/// "<name>" for cluster.region, "<model>" for workload.mix, "<a>/<b>" for network.link.
std::string address_placeholder(const Field& table_array);

/// A settable parameter: its path as listed by scenario_paths() and its field.
struct Parameter {
  std::string path;  ///< e.g. "network.bandwidth_scale", "cluster.region.<name>.gpus"
  const Field* field = nullptr;
};

/// Every leaf of the schema in schema order; entries of arrays of tables appear with their
/// address_placeholder() segment. config::scenario_paths() is the list of their paths.
std::vector<Parameter> parameters();

/// "integer", "number", "string", "array of 24 numbers", "array of 2 strings", "table", ...
std::string type_name(const Field& f);
/// The bounds as an interval or a single bound: "(0, 1]", "[1, 1000000]", ">= 0"; "" if none.
std::string range_phrase(const Field& f);

/// "must be > 0", "must be <= 1", ... for the bound the value violates (or the full range).
std::string bound_phrase(const Field& f, double value);
/// "an integer >= 1", "a number in (0, 1]", "a string", "24 numbers > 0", ...
std::string expectation_phrase(const Field& f);

}  // namespace geopipe::config::schema
