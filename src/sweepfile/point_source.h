// The points of a sweep (SweepSpec::points, sweepfile/loader.h): where each point's overrides and
// /scenarios cells come from, and the questions the loader, the validation, the scenario factory
// and the result store ask of all of them at once.
//
// A sweep's points are, in this order: the points of a grid (the cartesian product of its
// factors, generated on demand), then the listed points (explicit [[point]]s, a points file's
// rows; every point of a spec made by hand), then the points of a sampling design (generated on
// demand from its matrix). Point i of the result files is point(i): the order is part of the
// file format and does not change. A design fills the part it lays out (SweepDesign::materialise,
// sweepfile/design.h); the other code reads the points through point() and the queries of
// PointSource, not by looking at the three parts itself (except what needs a grid's structure:
// the covering sample of sweepfile/validate.cpp reads `grid`).
//
// Units: a column is an index into SweepSpec::columns; a value is its TOML text (strings quoted)
// and its number (NaN if it is not a number, or the point does not set the column); a unit
// coordinate is in [0, 1], NaN where the point leaves the factor at the base's value.
// Owns: the three parts (plain data, copyable: ScenarioFactory keeps a copy), the map from a unit
// coordinate to a sampled factor's value and the sampling matrix (the /design table). Reads no
// file; does not include toml++.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "config/scenario_loader.h"

namespace geopipe::config {

struct SweepPoint {
  std::vector<Override> overrides;  ///< this point's values (origin = sweep file, with line/col)
  std::vector<double> numeric;      ///< per column: value as double; NaN if text or not set here
  std::vector<std::string> text;    ///< per column: value as TOML text ("" if not set here)
};

/// The cartesian product of a grid's factors, generated point by point on demand, so that
/// memory follows the number of distinct values, not of points (a million-point grid of three
/// axes holds a few hundred values). A factor is an [[axis]] or a [[zip]] group; each of its
/// levels sets one value of each of its parameters.
struct SweepGrid {
  /// One value of one swept parameter: its override and its /scenarios cell.
  struct Cell {
    std::size_t column = 0;  ///< index into SweepSpec::columns
    Override override;
    double numeric = 0;      ///< NaN if not a number
    std::string text;        ///< TOML text
  };
  using Level = std::vector<Cell>;
  std::vector<std::vector<Level>> factors;  ///< in file order; the last varies fastest

  /// Number of points: the product of the factors' sizes, 0 without factors.
  std::uint64_t size() const;
  /// Point `i` < size(), with `ncol` columns.
  SweepPoint point(std::uint64_t i, std::size_t ncol) const;
};

/// One factor of a sampling design as its points use it: how a unit coordinate u in [0, 1]
/// maps to the parameter's value (docs/sweep-format.md, "Sampling designs").
struct SampledFactor {
  enum class Kind { kUniform, kLogUniform, kInteger, kDiscrete };
  /// A value: its TOML text, its number (NaN if not a number) and where an error about it is
  /// reported (the [[factor]] table, or a discrete value itself).
  struct Level {
    std::string text;
    double number = std::numeric_limits<double>::quiet_NaN();
    bool numeric = false;
    std::string origin;
    int line = 0, column = 0;
  };
  std::string param;       ///< as the sweep file writes it
  std::size_t column = 0;  ///< its SweepSpec::columns index
  Kind kind = Kind::kUniform;
  double min = 0, max = 0;    ///< not for kDiscrete
  std::vector<Level> values;  ///< kDiscrete
  Level at;                   ///< origin, line and column of the [[factor]] table (text unused)

  /// min + u (max - min); exp(log min + u (log max - log min)); min + floor(u (max - min + 1))
  /// capped at max; values[floor(u count)] capped at the last.
  Level value(double u) const;
  /// `param = value(u)` located as Level says.
  Override override_at(double u) const;
};

/// The points of a sampling design, generated on demand from the design's matrix `unit` (the
/// /design table): point i sets each factor j whose coordinate unit[i * D + j] is not NaN to
/// factors[j].value(u). Memory follows the matrix (8 bytes per coordinate), not the points' texts.
struct SweepSample {
  std::vector<SampledFactor> factors;  ///< D, in the order of the matrix's columns
  /// Unit-hypercube coordinates in [0, 1] (NaN: not set), row-major, one row per point and one
  /// column per factor: size() x D values.
  std::vector<double> unit;

  /// Points: the matrix's rows (0 without factors).
  std::uint64_t size() const { return factors.empty() ? 0 : unit.size() / factors.size(); }
  /// The names of the matrix's columns (/design): each factor's parameter as the file writes it.
  std::vector<std::string> factor_names() const;
  /// Point `i` < size(), with `ncol` columns.
  SweepPoint point(std::uint64_t i, std::size_t ncol) const;
};

/// Every point of a sweep: the grid's, then the listed ones, then the sampled ones.
struct PointSource {
  SweepGrid grid;                  ///< points 0 .. grid.size() - 1, generated on demand
  std::vector<SweepPoint> listed;  ///< then these: explicit [[point]]s, a points file's rows (all points of a spec made by hand)
  SweepSample sample;              ///< then a sampling design's points, generated on demand from its matrix

  /// Number of points of the three parts.
  std::uint64_t size() const;
  /// Point `i` < size(), with `ncol` columns (by value: a grid or sampled point is generated).
  SweepPoint point(std::uint64_t i, std::size_t ncol) const;

  /// An override a point makes to column `column`, whose parameter is `param` (what a caller
  /// wants of it is the path as the points spell it): the first grid point's, else that of the
  /// first listed point with an override of path `param`, else the sampled factor's at u = 0;
  /// nullopt if no part sets the column.
  std::optional<Override> first_setter(std::size_t column, const std::string& param) const;

  /// Calls f(column, text) for the TOML text of every value a point can hold in a column (a
  /// continuous or integer sampled factor, whose column is numeric, is not called for), some
  /// more than once: every level of every grid factor, every column of every listed point (""
  /// where it sets none), every value of a discrete sampled factor.
  void for_each_text(const std::function<void(std::size_t column, const std::string& text)>& f) const;

  /// Calls f(overrides, points) for groups of overrides such that each override's parameter is
  /// set at exactly `points` points, first to that override's value, and each parameter a point
  /// sets is in a group: one group of the first level of every grid factor (set at every grid
  /// point; not called without a grid), one per listed point (its overrides, 1), one per sampled
  /// factor set at some point (its value at the first one, and the number of rows whose
  /// coordinate is not NaN). The pointers are valid during the call only.
  void for_each_setting(const std::function<void(const std::vector<const Override*>& overrides, std::uint64_t points)>& f) const;

  /// Calls f for overrides that cover the values the points set, for checks of each value on its
  /// own: every level of every grid factor; if `with_listed`, every override of every listed
  /// point; per sampled factor set at some point, its values at the smallest and the largest
  /// coordinate it takes (a continuous factor's map is monotone: its other values are between
  /// them), or, for an integer or discrete factor, each distinct value it takes (ascending).
  void for_each_value(const std::function<void(const Override&)>& f, bool with_listed) const;
};

}  // namespace geopipe::config
