// Limits on TOML text, checked before toml++ sees it (docs/limits.md, "Input files"). Plain C++
// (no toml++). toml++ builds one nested table per dotted-key part and per header part and
// recurses on nested arrays and inline tables, both while parsing and when a document is copied
// or destroyed, so a key like `a.a.a. ... .a = 1` with 50,000 parts overflows the stack (a
// crash, not an error). Every place that hands text to toml++ (config::parse_toml and the
// --set value parser in overrides.cpp) runs scan_toml_limits() first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::config {

/// Largest TOML text accepted (scenario files, sweep files, base scenarios): 16 MiB.
inline constexpr std::size_t kMaxTomlBytes = std::size_t{16} << 20;

/// Deepest nesting of any TOML value: the parts of its table header, plus the parts of its
/// dotted key, plus one per enclosing array or inline table (and the dotted parts of keys inside
/// inline tables). `[a.b]` then `c.d = [1]` is 5 deep. geopipe's own files need fewer than 10.
inline constexpr int kMaxTomlDepth = 64;

/// Where and why a text breaks a limit (line and column 1-based, of the offending part).
struct TomlLimitViolation {
  int line = 0;
  int column = 0;
  std::string message;  ///< "... (expected ...)"
};

/// Checks size and depth of `text`, that non-ASCII characters appear only in strings and
/// comments, that every table header starts with a key and that no '}' stands where an array
/// element belongs (toml++ 3.3 has undefined behaviour or a failed precondition on these three
/// otherwise), without parsing it fully: strings (all four kinds) and
/// comments are skipped, so dots and brackets inside them do not count. Anything the scanner
/// does not understand is left to toml++ (which then reports the syntax error); scanning
/// resumes on the next line, so such text cannot hide a deep key from the check.
/// Linear time, constant memory.
std::optional<TomlLimitViolation> scan_toml_limits(std::string_view text);

/// A comment that toml++ need not read, as byte offsets [begin, end) of `text` (from the '#' to
/// the line break or the end of the text).
struct TomlCommentSpan {
  std::size_t begin = 0, end = 0;
};

/// scan_toml_limits(), also listing in `comments` (cleared first) the comments that can be
/// removed from the text without changing anything toml++ makes of it: comments of the top
/// level (a whole line, or after a key/value pair or a table header; not inside arrays or inline
/// tables), after the start of a line, a space or a tab, holding only printable ASCII and tabs,
/// and ending at "\n" or "\r\n", not on the last line (toml++ ends the document's region at the
/// last character it reads). A comment ends its line, so removing it
/// moves no other token: every node keeps its line and column. Whatever is unusual in a comment
/// (a control character, a lone "\r", non-ASCII text) leaves it for toml++ to read and judge.
/// A text that is not well-formed UTF-8 has none listed (where toml++ reports the bad sequence
/// depends on byte offsets).
std::optional<TomlLimitViolation> scan_toml_limits(std::string_view text, std::vector<TomlCommentSpan>& comments);

/// `text` without `comments` (sorted, disjoint, as scan_toml_limits lists them).
std::string without_comments(std::string_view text, const std::vector<TomlCommentSpan>& comments);

/// scan_toml_limits(), throwing InputError(file, line, column, message) on a violation.
void check_toml_limits(std::string_view text, const std::string& file);

/// The same, listing the comments toml++ may be spared (scan_toml_limits above).
void check_toml_limits(std::string_view text, const std::string& file, std::vector<TomlCommentSpan>& comments);

}  // namespace geopipe::config
