// The vocabulary of bad input, for every layer and every input format (scenario files, traces,
// --set overrides, sweep files, flags, result files): the one exception type and the helpers
// its messages are written with. The toml++ side (source regions to positions, parse errors)
// is config/toml_error.h, internal to src/config and src/sweepfile.
//
// InputError's message is always "file:line:col: what is wrong (expected ...)"; the CLI maps it
// to exit code 2. Line/column are 1-based; 0 means "unknown" and is omitted from the message.
//
// what() is always one line of printable text: the file name and the message may echo user
// strings (names, keys, paths) that contain newlines or other control characters, so
// printable_text() escapes them, and a message of more than kMaxShownBytes keeps its start and
// its end (docs/limits.md, "Input files").
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe {

namespace util {

/// Longest what() of an InputError; longer ones lose their middle.
inline constexpr std::size_t kMaxShownBytes = 4096;

/// `s` with every control character escaped, so that it prints as one line: \n \r \t \0 and
/// \xNN for other C0 bytes, DEL and bytes that are not UTF-8; \u0085, \u2028 and \u2029 for the
/// Unicode line breaks (and \u0080..\u009f for the other C1 controls). Printable text, UTF-8
/// included, is unchanged (a backslash too).
std::string printable_text(std::string_view s);

/// Length (2..4) of the valid multi-byte UTF-8 sequence at s[i] with its code point in `cp`, or 0
/// if there is none there (no overlong forms, no surrogates, at most U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i, unsigned& cp);
/// Is all of `s` valid UTF-8?
bool valid_utf8(std::string_view s);

/// `s` if it has at most `max_bytes` bytes, else its start and end around
/// " ... (N bytes omitted) ... ", cut between UTF-8 characters.
std::string shortened_text(std::string_view s, std::size_t max_bytes);

// ---- writing messages ----

/// Levenshtein distance (insertions, deletions, substitutions all cost 1), ASCII
/// case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if its edit distance is <= max(1, word.size() / 3); ties go
/// to the earliest candidate. An exact (case-insensitive) match is returned too.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" when nothing is close enough.
std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates);

/// "'a', 'b', 'c'" (at most `max_items` items, then ", ...").
std::string quoted_list(const std::vector<std::string>& items, std::size_t max_items = 20);

/// Shortest decimal text that reads back to the same double ("0.1", "-1", "1e+20", "nan").
std::string format_number(double v);

}  // namespace util

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, int column, const std::string& message)
      : std::runtime_error(format(file, line, column, message)),
        file_(std::move(file)), line_(line), column_(column), message_(message) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  /// The message without the location prefix, as given (not escaped).
  const std::string& message() const { return message_; }

  /// "file:line:col: msg", escaped and shortened as what() is.
  static std::string format(const std::string& file, int line, int column, const std::string& msg) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (line > 0) {
      s += ":" + std::to_string(line);
      if (column > 0) s += ":" + std::to_string(column);
    }
    return util::shortened_text(util::printable_text(s + ": " + msg), util::kMaxShownBytes);
  }

 private:
  std::string file_;
  int line_, column_;
  std::string message_;
};

}  // namespace geopipe
