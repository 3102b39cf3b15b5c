// Internal to src/config and src/sweepfile (includes toml++): the toml++ side of the input-error
// vocabulary of util/input_error.h. Turns toml++ source regions (including the source paths of
// --set overrides) and parse errors into a located geopipe::InputError, and parses TOML text so
// that only InputError leaves. The format-neutral part (the error type, the message helpers) is
// util/input_error.h; no other folder of src/ includes this header.
#pragma once

#include <exception>
#include <new>
#include <string>

#include <toml++/toml.h>

#include "util/input_error.h"

namespace geopipe::config {

/// A source path ending in this character denotes text without a meaningful line number
/// (a --set override on the command line): errors there are reported as "origin: msg",
/// without line/column. The marker itself is never shown.
inline constexpr char kNoLineMarker = '\x1f';

/// A source path "origin" + this character + "LINE:COL" denotes text parsed out of place (an
/// override's value, parsed as "x=VALUE"): column 3 of its line 1 is LINE:COL of origin, its
/// line k is line LINE + k - 1. So the text need not be padded to its place (which made every
/// value cost as much as its line and column number).
inline constexpr char kPlacedMarker = '\x1e';

/// The source path of an override value `x=VALUE` whose VALUE starts at line:column of `origin`.
std::string placed_source_path(const std::string& origin, int line, int column);

struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

/// File/line/column of a toml++ source region; `fallback_file` when the region has no path.
SourceLoc location_of(const toml::source_region& r, const std::string& fallback_file);

/// InputError located at a toml++ source region.
InputError error_at(const toml::source_region& r, const std::string& fallback_file, const std::string& msg);

/// Strings and keys never hold U+0000: every text geopipe writes (HDF5 columns are NUL-padded
/// fixed-length strings, results/hdf5/validate.cpp) must read back as written, so the writer and
/// every reader agree on what text is. parse_toml() checks every document with it; `where`
/// prefixes the paths in messages ("" at the top).
void refuse_nul(const toml::node& n, const std::string& file, const std::string& where);

/// Whether a string or key of the TOML `text` can hold U+0000: only through a raw NUL byte or
/// the escapes \u0000 and \U00000000 (TOML 1.0: no other notation gives a code point), so a
/// false return means refuse_nul() would find nothing. True is conservative (the escape may be
/// in a comment or a literal string).
bool may_hold_nul(std::string_view text);

/// InputError for a toml++ syntax error.
InputError from_parse_error(const toml::parse_error& e, const std::string& fallback_file);

/// "an integer", "a float", "a string", "a boolean", "an array", "a table", "a date", ...
std::string type_phrase(toml::node_type t);

/// Value of an integer or float node as a double; NaN for any other node.
double number_of(const toml::node& n);

/// Parses TOML text; syntax errors become InputError "file:line:col: <description>".
toml::table parse_toml(std::string_view text, const std::string& file);

/// Runs `load` (reading `file`, which is `what`: "the scenario", "the sweep") so that only an
/// InputError (or std::bad_alloc) leaves it: a toml++ parse error becomes its located
/// InputError, and any other stray exception (a bug, not bad input) an InputError naming the
/// file, so that no input can crash the program.
template <class Load>
auto as_input_errors(const std::string& file, const char* what, Load&& load) -> decltype(load()) {
  try {
    return load();
  } catch (const InputError&) {
    throw;
  } catch (const toml::parse_error& e) {
    throw from_parse_error(e, file);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(file, 0, 0, std::string("unexpected error while loading ") + what + ": " + e.what());
  }
}

}  // namespace geopipe::config
