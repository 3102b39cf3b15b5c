// The points of a Morris design (Morris 1991): r trajectories on the p-level grid
// {0, 1/(p-1), ..., 1} of the unit cube, each of D + 1 points where every step moves one
// coordinate by Delta = p / (2 (p - 1)), every coordinate exactly once. Plain C++20; the sweep
// file's design = "morris" (sweepfile/morris.cpp) parses its table and calls this; the
// elementary effects are analysis/sensitivity.h's morris_indices; docs/sweep-format.md,
// "Sampling designs" (its Morris screening).
//
// Trajectory t draws from its own stream Rng(derive_seed(seed, "morris trajectory t"))
// (model/rng.h), so adding trajectories keeps the earlier ones: for each coordinate j in turn a
// start level below(p - p/2) (one of the lower p/2 levels, x*) and a direction below(2) (1:
// down from x* + Delta), then a Fisher-Yates order of the coordinates (i = D down to 2: swap
// i - 1 with below(i)); step s moves the s-th coordinate of that order. Point t (D + 1) + s is
// step s of trajectory t (s = 0: the start); a coordinate at level m is m * (1 / (p - 1)).
// Deterministic: the same arguments give the same bits everywhere. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace geopipe::analysis {

/// The unit coordinates, row-major: trajectories * (dimensions + 1) rows of `dimensions` values
/// in [0, 1]. Throws std::invalid_argument for levels that are odd or < 2.
std::vector<double> morris_trajectories(std::size_t trajectories, std::size_t dimensions, std::uint64_t levels,
                                        std::uint64_t seed);

}  // namespace geopipe::analysis
