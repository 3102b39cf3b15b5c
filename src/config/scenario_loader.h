// Scenario files (TOML) -> validated geopipe::Scenario. The file format is documented in
// docs/scenario-format.md; the schema is in config/schema.h.
//
// Every problem with the input (syntax, wrong type, unknown key, out-of-range value, unknown
// name, a job that fits no placement, a bad trace, a malformed --set) is reported by throwing
// geopipe::InputError whose what() is "file:line:col: what is wrong (expected ...)". Nothing
// else escapes these functions for bad input (std::bad_alloc aside).
//
// This header does not depend on toml++; the toml-level API is in config/overrides.h and
// config/toml_scenario.h.
#pragma once

#include <string>
#include <vector>

#include "util/input_error.h"
#include "model/scenario.h"

namespace geopipe::config {

/// One "--set path=value" override, applied to the parsed document before validation, so the
/// value is type- and range-checked like the file's own values.
///
///  * path:   dotted keys ("network.bandwidth_scale"); entries of arrays of tables are
///            addressed by name ("cluster.region.us-east.gpus", "workload.mix.llama2-7b.weight",
///            "gpu.X.peak_tflops", "model.tiny.layers", "network.link.us-east/us-west.latency_ms")
///            or by index ("cluster.region[0].gpus"); a segment may be "double-quoted".
///  * value:  TOML value text ("2", "0.5", "\"cost-first\"", "[1, 2]"); for string keys a bare
///            word is accepted as the string itself (scheduler.preset=cost-first).
///  * origin: file name used in error messages ("--set" on the command line; a sweep file).
///  * column: 1-based column where the value starts (in the argument, or in `line` of origin).
///  * line:   line in `origin` (0 = none: errors read "--set: ...").
struct Override {
  std::string path;
  std::string value;
  std::string origin = "--set";
  int column = 0;
  int line = 0;
};

/// Parses "a.b.c=value" (the first '=' outside quotes separates path and value; spaces around
/// both are trimmed). Throws InputError (file "--set") when there is no '=', the path is empty
/// or malformed. Does not check that the path exists (that happens when it is applied).
Override parse_override(const std::string& arg);

/// Reads and validates a scenario file. Relative paths inside it (workload.trace) are resolved
/// against the file's directory. Missing/unreadable file: InputError(path, 0, 0, "cannot open ...").
Scenario load_scenario_file(const std::string& path, const std::vector<Override>& overrides = {});

/// Same, from text. `file_for_messages` is the file name used in errors and stored in
/// Scenario::source_path; `base_dir` resolves relative paths (workload.trace).
Scenario load_scenario_string(const std::string& toml_text, const std::string& file_for_messages,
                              const std::vector<Override>& overrides = {},
                              const std::string& base_dir = ".");

/// Every settable parameter path of the schema, in schema order, e.g. "network.bandwidth_scale",
/// "cluster.region.<name>.gpus", "workload.mix.<model>.weight", "network.link.<a>/<b>.latency_ms".
/// Entries of arrays of tables appear with a placeholder segment (see Override::path). Includes
/// array-valued keys (cluster.region.<name>.price_profile_usd_per_kwh, network.link.<a>/<b>.regions).
std::vector<std::string> scenario_paths();

}  // namespace geopipe::config
