// Internal to src/config (includes toml++). Owns the interface between the sweep loader and a
// *design*: the part of a sweep file that says which points to run. The loader reads [sweep],
// asks the design for its point count (to refuse oversized sweeps before anything is built) and
// for one probe per parameter it sets (each is checked against the base scenario, so an unknown
// path is reported at the parameter), then lets it materialise the columns and points.
//
// The grid design (sweep_grid.cpp: cartesian product of [[axis]] and [[zip]], then explicit
// [[point]] entries) is the only one today. Another design (Latin hypercube, Sobol', Morris,
// one-at-a-time, points read from a CSV) is one more unit implementing SweepDesign, with its
// top-level keys and parse function declared here and chosen in Loader::load (sweep_loader.cpp);
// the members, validation and factory units do not change.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/sweep_loader.h"
#include "config/sweep_parse.h"

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
  /// values per column) to spec.points.
  virtual void materialise(SweepSpec& spec) const = 0;
  /// Advice appended to an error that the scenario validator found at a value of this design
  /// in the sweep file (e.g. "add integer = true"), or "".
  virtual std::string hint_for(const InputError& e) const = 0;
};

/// Top-level keys of the sweep file that the grid design reads.
const std::vector<std::string>& grid_design_keys();

/// Reads [[axis]], [[zip]] and [[point]] from the sweep file's root table. Throws InputError.
std::unique_ptr<SweepDesign> parse_grid_design(const SweepFile& file, const toml::table& root);

}  // namespace geopipe::config::sweep_internal
