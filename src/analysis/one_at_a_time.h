// The points of a one-at-a-time design (a centered parameter study, as Dakota's): point 0 is the
// base (no coordinate set: every factor at the base's value), then for each factor in order its
// levels, one point each, with every other factor unset. Unset is NaN. Plain C++20; the sweep
// file's design = "oat" (sweepfile/oat.cpp) parses its table, chooses each factor's levels
// (these functions, then its own filter of an integer factor's repeated values) and calls
// oat_points; the effects are analysis/sensitivity.h's oat_effects; docs/sweep-format.md,
// "Sampling designs" (its one factor at a time). Thread-safe: functions of their arguments only.
#pragma once

#include <cstddef>
#include <vector>

namespace geopipe::analysis {

/// The unit coordinates of `levels` evenly spaced levels from 0 to 1: k / (levels - 1),
/// k = 0 .. levels - 1 (exactly 0 and 1 at the ends). Throws std::invalid_argument for levels < 2.
std::vector<double> oat_grid_levels(std::size_t levels);

/// The unit coordinates of the `count` values of a discrete factor, each at the middle of its
/// interval of [0, 1): (k + 1/2) / count, k = 0 .. count - 1.
std::vector<double> oat_value_levels(std::size_t count);

/// The design, row-major: 1 + the sum of the levels' sizes rows of levels.size() values; row 0
/// all NaN, then for each factor j in order one row per entry of levels[j], holding it in column
/// j and NaN elsewhere.
std::vector<double> oat_points(const std::vector<std::vector<double>>& levels);

}  // namespace geopipe::analysis
