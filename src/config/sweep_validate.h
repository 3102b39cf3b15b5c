// Internal to src/config. Owns the load-time check that every point of a sweep gives a valid
// scenario, and how a failure is reported: at the value in the sweep file (with the design's
// hint), as an invalid base scenario, or as "sweep point N (...) gives an invalid scenario".
#pragma once

#include "config/sweep_design.h"
#include "config/sweep_loader.h"
#include "config/sweep_parse.h"

namespace geopipe::config::sweep_internal {

/// Builds the scenario of every point of `spec` (base, fixed overrides, points all filled in)
/// once. Throws InputError for the first invalid point; `base_pos` is where [sweep].base is.
/// What the check learned about the points.
struct PointFacts {
  std::vector<std::string> trace_paths;  ///< the distinct trace files read, in order of first use
  JobTextBytes job_text;                 ///< the largest job_text_bytes() of any point
};
PointFacts validate_points(const SweepSpec& spec, const SweepFile& file, Pos base_pos, const SweepDesign& design);

}  // namespace geopipe::config::sweep_internal
