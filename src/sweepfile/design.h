// Internal to src/sweepfile (includes toml++). Owns the interface between the sweep loader and a
// *design*: the part of a sweep file that says which points to run. The loader reads [sweep],
// asks the design for its point count (to refuse oversized sweeps before anything is built) and
// for one probe per parameter it sets (each is checked against the base scenario, so an unknown
// path is reported at the parameter), then lets it materialise the columns and points.
//
// A sweep file picks its design with `[sweep] design = "NAME"` (default "grid"). The designs are
// the table of designs() (sweepfile/design.cpp): each entry names a design, the top-level keys
// that belong to it and its parse function, declared below; each design is one unit
// (sweepfile/NAME.cpp) whose top comment says how it lays out its points (users' side:
// docs/sweep-format.md). Another design is one more unit implementing SweepDesign plus its entry
// in that table; the loader, the members, validation and factory units do not change.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "sweepfile/loader.h"
#include "sweepfile/parse.h"

namespace geopipe::config::sweep_internal {

class SweepDesign {
 public:
  virtual ~SweepDesign() = default;

  /// Number of points, saturated at kMaxScenarios.
  virtual std::uint64_t num_points() const = 0;
  /// The same count as a double, unsaturated (for the message about an oversized sweep).
  virtual double approx_points() const = 0;
  /// One `parameter = value` per parameter the design sets, in file order, located where an
  /// unknown parameter should be reported.
  virtual std::vector<Entry> probes() const = 0;
  /// Appends the swept parameters to spec.columns and the points (overrides, numeric and text
  /// values per column) to spec.points (sweepfile/point_source.h): its grid (a product generated
  /// on demand), its listed points, or its sample (a matrix, through add_unit_points).
  virtual void materialise(SweepSpec& spec) const = 0;
  /// Advice appended to an error that the scenario validator found at a value of this design
  /// in the sweep file (e.g. "add integer = true"), or "".
  virtual std::string hint_for(const InputError& e) const = 0;
};

/// A kind of design, as `[sweep] design` names it.
struct DesignKind {
  const char* name;               ///< "grid"
  std::vector<std::string> keys;  ///< the top-level keys of the sweep file it reads ("axis", ...)
  /// Reads the design from the sweep file's root table. Throws InputError.
  std::unique_ptr<SweepDesign> (*parse)(const SweepFile& file, const toml::table& root);
};

/// Every design; the first is the default.
const std::vector<DesignKind>& designs();

/// The design's own table `[name]` of the sweep file's root table, checked: a table whose keys
/// are all in `keys` (else the error names "[name]"). Without one: if `needs` is empty, nullptr
/// (the table is optional), else fails at 1:1 with "design 'NAME' needs " + needs (e.g. "an
/// [lhs] table (expected samples = N and [[factor]] entries)"). Throws InputError.
const toml::table* design_table(const SweepFile& file, const toml::table& root, const std::string& name,
                                const std::vector<std::string>& keys, const std::string& needs);

/// Reads [[axis]], [[zip]] and [[point]] from the sweep file's root table. Throws InputError.
std::unique_ptr<SweepDesign> parse_grid_design(const SweepFile& file, const toml::table& root);
/// Reads [lhs] and [[factor]] (a Latin hypercube, sweepfile/lhs.cpp). Throws InputError.
std::unique_ptr<SweepDesign> parse_lhs_design(const SweepFile& file, const toml::table& root);
/// Reads [oat] and [[factor]] (one factor at a time around the base, sweepfile/oat.cpp).
std::unique_ptr<SweepDesign> parse_oat_design(const SweepFile& file, const toml::table& root);
/// Reads [sobol] and [[factor]] (Saltelli's scheme on a Sobol' sequence, sweepfile/sobol.cpp).
std::unique_ptr<SweepDesign> parse_sobol_design(const SweepFile& file, const toml::table& root);
/// Reads [morris] and [[factor]] (Morris trajectories, sweepfile/morris.cpp).
std::unique_ptr<SweepDesign> parse_morris_design(const SweepFile& file, const toml::table& root);
/// Reads [points_file] and the CSV it names (sweepfile/points_file.cpp). Throws InputError.
std::unique_ptr<SweepDesign> parse_points_file_design(const SweepFile& file, const toml::table& root);

}  // namespace geopipe::config::sweep_internal
