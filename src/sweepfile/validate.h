// Internal to src/sweepfile. Owns the load-time check that every point of a sweep gives a valid
// scenario, and how a failure is reported: at the value in the sweep file (with the design's
// hint), as an invalid base scenario, or as "sweep point N (...) gives an invalid scenario".
#pragma once

#include "sweepfile/design.h"
#include "sweepfile/loader.h"
#include "sweepfile/parse.h"

namespace geopipe::config::sweep_internal {

/// Builds the scenario of every point of `spec` (base, fixed overrides, points all filled in)
/// once. Throws InputError for the first invalid point; `base_pos` is where [sweep].base is.
/// What the check learned about the points.
struct PointFacts {
  std::vector<std::string> trace_paths;  ///< the distinct trace files read, in order of first use
  JobTextBytes job_text;                 ///< the largest job_text_bytes() of the points checked
  std::uint64_t checked = 0;             ///< points built
};
/// Builds `points` (ascending point indices) of `spec`.
PointFacts validate_points(const SweepSpec& spec, const SweepFile& file, Pos base_pos, const SweepDesign& design,
                           const std::vector<std::size_t>& points);

/// The points a load checks: all of them, or for a sweep larger than `options.check_all_up_to`
/// (unless options.check_all_points) a covering sample: every listed point of a grid sweep
/// (its [[point]]s; a sampling design's points are sampled like the others); the diagonal (point
/// j sets each grid factor f to level j mod |f|) and each level of each factor with the others
/// at their first level, each of the two up to options.cover_points points (so every level is in
/// a built point unless the factors have more levels than that); and options.sample_points more drawn
/// without repetition by a SplitMix64 stream seeded with `seed`. Ascending, distinct.
/// check_values() covers every level on its own.
std::vector<std::size_t> points_to_check(const SweepSpec& spec, const SweepLoadOptions& options, std::uint64_t seed);

/// Checks every value of every grid factor, and every value of every point of the designs
/// that list or sample their points, on its own against the parameter's schema (type, range,
/// length: config/schema_check.h), reported where the value is written. Cheap (no scenario is
/// built): what a sampled check adds so that no invalid value goes unreported.
void check_values(const SweepSpec& spec, const SweepFile& file, const SweepDesign& design);

}  // namespace geopipe::config::sweep_internal
