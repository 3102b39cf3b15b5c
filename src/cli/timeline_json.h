// `geopipe run --timeline FILE`: the runs' timelines (sim/timeline.h) as one Chrome trace-event
// JSON file (the "JSON Object Format"), for Perfetto UI and chrome://tracing. The format, every
// event and argument: docs/timeline.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/report.h"
#include "model/scenario.h"

namespace geopipe::cli {

/// Refuses a --timeline path before anything runs or is written (InputError "--timeline: ...",
/// exit 2): empty; naming one of `inputs` (also through a link), or whose PATH.tmp does; the
/// same file as `jobs_csv`; an existing directory or other non-regular file; a PATH.tmp that
/// exists and is not a regular file; a place where PATH.tmp cannot be created (it is created
/// and removed to find out).
void check_timeline_path(const std::string& path, const std::vector<std::string>& inputs, const std::string& jobs_csv);

/// Streams the trace-event JSON of `runs` (each with SimResult::timeline and ::jobs) to `out`,
/// in pieces.
void write_timeline_json(const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs,
                         const std::function<void(std::string_view)>& out);

/// Writes that JSON to `path` atomically: to PATH.tmp, flushed to disk, then renamed over
/// PATH. On any failure (a full disk, a file size limit, ...) PATH.tmp is removed, PATH is left
/// as it was and InputError("--timeline", ...) is thrown (exit 2).
void write_timeline_file(const std::string& path, const Scenario& sc, std::uint64_t seed,
                         const std::vector<RunOutcome>& runs);

}  // namespace geopipe::cli
