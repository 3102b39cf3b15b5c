// Size and depth of TOML text before toml++ parses it (config/toml_limits.h).
//
// A small scanner of the TOML grammar's structure: table headers, dotted keys, `=`, values.
// Strings of all four kinds and comments are skipped whole (their dots, brackets and newlines do
// not count); numbers, booleans and dates are skipped as tokens. It tracks the depth of every
// value (header parts + key parts + enclosing arrays and inline tables) and stops at the first
// part that exceeds kMaxTomlDepth. Text it does not understand is toml++'s to report: the
// scanner skips to the next line and goes on, so no deep key can hide behind it. Its own
// recursion (arrays, inline tables) is bounded by the same limit.
#include "config/toml_limits.h"

#include <utility>

#include "util/input_error.h"

namespace geopipe::config {
namespace {

struct Violation {
  TomlLimitViolation v;
};

bool is_bare(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

const char* const kNonAsciiMessage =
    "non-ASCII character outside a string or comment (expected ASCII: TOML allows other characters only in "
    "quoted strings, quoted keys and comments)";

class Scanner {
 public:
  explicit Scanner(std::string_view s, std::vector<TomlCommentSpan>* comments = nullptr) : s_(s), comments_(comments) {}

  void run() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // UTF-8 byte order mark
    while (!eof()) {
      skip_ws();
      if (eof()) break;
      const char c = s_[i_];
      if (c == '\n') {
        next_line();
        continue;
      }
      if (c == '\r') {
        ++i_;
        continue;
      }
      if (c == '#') {
        const std::size_t begin = i_;
        skip_comment();
        if (comments_) note_comment(begin);
        continue;
      }
      const bool ok = c == '[' ? header() : keyval(header_depth_);
      if (ok) {  // only a comment may follow on the line
        skip_ws();
        if (!eof() && s_[i_] != '\n' && s_[i_] != '\r' && s_[i_] != '#') resync();
      } else {
        resync();
      }
    }
    if (comments_ && !understood_all_) comments_->clear();
  }

 private:
  std::string_view s_;
  std::vector<TomlCommentSpan>* comments_;
  /// False once the scanner met text it does not understand: then toml++ may read what follows
  /// differently (an unterminated string runs on), so no comment is removed (run()).
  bool understood_all_ = true;
  std::size_t i_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
  int header_depth_ = 0;

  bool eof() const { return i_ >= s_.size(); }
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  bool at(char c) const { return !eof() && s_[i_] == c; }

  /// Consumes the '\n' at i_.
  void next_line() {
    ++i_;
    ++line_;
    line_start_ = i_;
  }
  /// 1-based column of byte `at` on the current line, in characters (UTF-8 lead bytes).
  int column_of(std::size_t at) const {
    int col = 1;
    for (std::size_t k = line_start_; k < at && k < s_.size(); ++k)
      if ((static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80) ++col;
    return col;
  }

  [[noreturn]] void fail(std::size_t at, std::string msg) const {
    throw Violation{{line_, column_of(at), std::move(msg)}};
  }

  void skip_ws() {
    while (!eof() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void skip_comment() {
    while (!eof() && s_[i_] != '\n') ++i_;
  }
  /// Lists the top-level comment [begin, i_) (i_ at its '\n' or the end) if toml++ may be spared
  /// it (scan_toml_limits' contract): after the start of a line, a space or a tab; printable
  /// ASCII and tabs only, up to "\n", "\r\n" or the end.
  void note_comment(std::size_t begin) {
    if (begin > 0 && s_[begin - 1] != ' ' && s_[begin - 1] != '\t' && s_[begin - 1] != '\n') return;
    std::size_t end = i_;
    if (end > begin + 1 && s_[end - 1] == '\r' && end < s_.size()) --end;  // "\r\n": keep the break
    for (std::size_t k = begin + 1; k < end; ++k) {
      const char c = s_[k];
      if (!(c == '\t' || (c >= 0x20 && c <= 0x7E))) return;
    }
    comments_->push_back({begin, end});
  }

  /// Whitespace, newlines and comments (inside arrays).
  void skip_ws_nl() {
    while (!eof()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '\n') {
        next_line();
      } else if (c == '#') {
        skip_comment();
      } else {
        break;
      }
    }
  }
  /// Skips the rest of the line (after text the scanner does not understand). That text is not
  /// valid TOML, and toml++ 3.3 reaches __builtin_unreachable() on some non-ASCII characters in
  /// it while reporting the error: a non-ASCII byte there is refused first.
  void resync() {
    understood_all_ = false;
    while (!eof() && s_[i_] != '\n') {
      if (static_cast<unsigned char>(s_[i_]) >= 0x80) fail(i_, kNonAsciiMessage);
      ++i_;
    }
  }

  /// A one-line string at i_ ('"' basic with escapes, or '\'' literal). False if unterminated.
  bool one_line_string(char q) {
    ++i_;
    while (!eof()) {
      const char c = s_[i_];
      if (c == '\n') return false;
      ++i_;
      if (c == q) return true;
      if (q == '"' && c == '\\' && !eof() && s_[i_] != '\n') ++i_;
    }
    return false;
  }
  /// A multi-line string at i_ (three quotes q). False if unterminated.
  bool multi_line_string(char q) {
    i_ += 3;
    while (!eof()) {
      const char c = s_[i_];
      if (c == '\n') {
        next_line();
        continue;
      }
      if (c == q && peek(1) == q && peek(2) == q) {
        i_ += 3;
        for (int k = 0; k < 2 && at(q); ++k) ++i_;  // up to two quotes right before the closing ones
        return true;
      }
      ++i_;
      if (q == '"' && c == '\\' && !eof() && s_[i_] != '\n') ++i_;
    }
    return false;
  }

  std::string depth_message(int depth) const {
    return "TOML value nested " + std::to_string(depth) + " levels deep (table header parts, dotted key parts, "
           "arrays and inline tables together; expected at most " + std::to_string(kMaxTomlDepth) + ")";
  }

  /// A dotted key; `base` is the depth of the table it is in. Counts its parts into `parts`.
  bool key(int base, int& parts) {
    parts = 0;
    while (true) {
      skip_ws();
      const std::size_t start = i_;
      const char c = peek();
      if (c == '"' || c == '\'') {
        if (!one_line_string(c)) return false;
      } else if (is_bare(c)) {
        while (!eof() && is_bare(s_[i_])) ++i_;
      } else {
        return false;
      }
      ++parts;
      if (parts > kMaxTomlDepth)
        fail(start, "dotted key with more than " + std::to_string(kMaxTomlDepth) + " parts (expected at most " +
                        std::to_string(kMaxTomlDepth) + ")");
      if (base + parts > kMaxTomlDepth) fail(start, depth_message(base + parts));
      skip_ws();
      if (!at('.')) return true;
      ++i_;
    }
  }

  /// [table] or [[array of tables]].
  bool header() {
    const bool array = peek(1) == '[';
    i_ += array ? 2 : 1;
    skip_ws();
    // toml++ 3.3 asserts (a precondition, compiled out in release builds) when a header's
    // first character cannot start a key (`[$`): refuse it here.
    if (!is_bare(peek()) && peek() != '"' && peek() != '\'')
      fail(i_, std::string("a table header needs a key after '") + (array ? "[[" : "[") +
                   "' (expected a bare key of A-Z a-z 0-9 _ - or a quoted key)");
    int parts = 0;
    if (!key(0, parts)) return false;
    skip_ws();
    if (!at(']')) return false;
    ++i_;
    if (array) {
      if (!at(']')) return false;
      ++i_;
    }
    header_depth_ = parts;
    return true;
  }

  /// key = value, in a table at depth `base`.
  bool keyval(int base) {
    int parts = 0;
    if (!key(base, parts)) return false;
    skip_ws();
    if (!at('=')) return false;
    ++i_;
    skip_ws();
    return value(base + parts);
  }

  /// A value whose key is at depth `depth`.
  bool value(int depth) {
    const char c = peek();
    if (c == '"' || c == '\'') {
      if (peek(1) == c && peek(2) == c) return multi_line_string(c);
      return one_line_string(c);
    }
    if (c == '[') return array(depth);
    if (c == '{') return inline_table(depth);
    return scalar();
  }

  /// Numbers, booleans, dates, times: a token up to a delimiter. A date followed by a space
  /// and a digit is a date-time ("1979-05-27 07:32:00").
  bool scalar() {
    const std::size_t start = i_;
    auto token = [&] {
      while (!eof()) {
        const char c = s_[i_];
        if (c == ',' || c == ']' || c == '}' || c == '#' || c == '\n' || c == '\r' || c == ' ' || c == '\t' ||
            c == '[' || c == '{' || c == '"' || c == '\'' || c == '=')
          break;
        if (static_cast<unsigned char>(c) >= 0x80) fail(i_, kNonAsciiMessage);
        ++i_;
      }
    };
    token();
    if (i_ == start) return false;
    if (i_ - start == 10 && s_[start + 4] == '-' && s_[start + 7] == '-' && peek() == ' ' && is_digit(peek(1))) {
      ++i_;
      token();
    }
    return true;
  }

  bool array(int depth) {
    const int d = depth + 1;
    if (d > kMaxTomlDepth) fail(i_, depth_message(d));
    ++i_;
    while (true) {
      skip_ws_nl();
      if (at(']')) {
        ++i_;
        return true;
      }
      // toml++ 3.3 calls parse_value() on a '}' here, against its own precondition (undefined
      // behaviour in a release build; found by the fuzzer): refuse it first.
      if (at('}')) fail(i_, "'}' where an array element belongs (expected a value or ']')");
      if (eof() || !value(d)) return false;
      skip_ws_nl();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (at(']')) {
        ++i_;
        return true;
      }
      return false;
    }
  }

  bool inline_table(int depth) {
    const int d = depth + 1;
    if (d > kMaxTomlDepth) fail(i_, depth_message(d));
    ++i_;
    skip_ws_nl();
    if (at('}')) {
      ++i_;
      return true;
    }
    while (true) {
      if (!keyval(d)) return false;
      skip_ws_nl();
      if (at(',')) {
        ++i_;
        skip_ws_nl();
        continue;
      }
      if (at('}')) {
        ++i_;
        return true;
      }
      return false;
    }
  }
};

/// Is every byte of `s` ASCII? One pass the compiler vectorises (most scenario files are).
bool all_ascii(std::string_view s) {
  unsigned char any = 0;
  for (const char c : s) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

/// The first byte >= 0x80 outside strings and comments, or npos. TOML 1.0 allows non-ASCII
/// characters only in strings and comments, and toml++ 3.3 reaches __builtin_unreachable()
/// (undefined behaviour) on some of them where it expects whitespace (`a = 1 \u00e9`), so such
/// text never reaches it. A plain lexer of the four string kinds and comments, exact on valid
/// TOML; a one-line string ends at the end of its line, as for toml++.
std::size_t non_ascii_outside_strings(std::string_view s) {
  // All-ASCII text has nothing to find: all_ascii() instead of the lexer's pass (a third of the
  // pre-scan of a 6-KB scenario: 181k -> 118k instructions).
  if (all_ascii(s)) return std::string_view::npos;
  enum class In { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  In in = In::kCode;
  const std::size_t n = s.size();
  std::size_t i = s.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // byte order mark
  auto triple = [&](std::size_t k, char q) { return k + 2 < n && s[k] == q && s[k + 1] == q && s[k + 2] == q; };
  while (i < n) {
    const char c = s[i];
    switch (in) {
      case In::kCode:
        if (static_cast<unsigned char>(c) >= 0x80) return i;
        if (c == '#') in = In::kComment;
        else if (c == '"') in = triple(i, '"') ? (i += 2, In::kMultiBasic) : In::kBasic;
        else if (c == '\'') in = triple(i, '\'') ? (i += 2, In::kMultiLiteral) : In::kLiteral;
        break;
      case In::kComment:
        if (c == '\n') in = In::kCode;
        break;
      case In::kBasic:
        if (c == '\\' && i + 1 < n && s[i + 1] != '\n') ++i;
        else if (c == '"' || c == '\n') in = In::kCode;
        break;
      case In::kLiteral:
        if (c == '\'' || c == '\n') in = In::kCode;
        break;
      case In::kMultiBasic:
        if (c == '\\') {
          ++i;
        } else if (triple(i, '"')) {
          i += 2;
          while (i + 1 < n && s[i + 1] == '"') ++i;  // up to two quotes belong to the string
          in = In::kCode;
        }
        break;
      case In::kMultiLiteral:
        if (triple(i, '\'')) {
          i += 2;
          while (i + 1 < n && s[i + 1] == '\'') ++i;
          in = In::kCode;
        }
        break;
    }
    ++i;
  }
  return std::string_view::npos;
}

/// Is `s` well-formed UTF-8 (RFC 3629: shortest forms, no surrogates, at most U+10FFFF)?
/// Stricter than any decoder may be, never laxer.
bool valid_utf8(std::string_view s) {
  if (all_ascii(s)) return true;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF) len = 2;
    else if (b >= 0xE0 && b <= 0xEF) len = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4) len = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else return false;
    if (i + len > n) return false;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b1 < lo || b1 > hi) return false;
    for (std::size_t k = 2; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

/// 1-based line and column (in UTF-8 characters) of byte `at`.
std::pair<int, int> position_of(std::string_view s, std::size_t at) {
  int line = 1, col = 1;
  for (std::size_t k = 0; k < at && k < s.size(); ++k) {
    if (s[k] == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

namespace {

std::optional<TomlLimitViolation> scan(std::string_view text, std::vector<TomlCommentSpan>* comments) {
  if (text.size() > kMaxTomlBytes)
    return TomlLimitViolation{0, 0, "TOML text of " + std::to_string(text.size()) + " bytes is too large (expected at most " +
                                        std::to_string(kMaxTomlBytes >> 20) + " MiB)"};
  try {
    Scanner(text, comments).run();
  } catch (const Violation& v) {
    return v.v;
  }
  if (const std::size_t at = non_ascii_outside_strings(text); at != std::string_view::npos) {
    const auto [line, col] = position_of(text, at);
    return TomlLimitViolation{line, col, kNonAsciiMessage};
  }
  return std::nullopt;
}

}  // namespace

std::optional<TomlLimitViolation> scan_toml_limits(std::string_view text) { return scan(text, nullptr); }

std::optional<TomlLimitViolation> scan_toml_limits(std::string_view text, std::vector<TomlCommentSpan>& comments) {
  comments.clear();
  auto v = scan(text, &comments);
  if (v) comments.clear();
  // A comment on the last line stays: toml++ ends the document's own region (the root table's
  // source().end) at the last character it read.
  if (!comments.empty()) {
    const std::string_view rest = text.substr(comments.back().end);
    if (rest.empty() || rest == "\n" || rest == "\r\n") comments.pop_back();
  }
  // Nor any in a text that is not well-formed UTF-8 (in a string: elsewhere it is refused above):
  // toml++ decodes the text block by block ahead of its parser, so where it reports the bad
  // sequence, and whether before an earlier error, depends on byte offsets that removing a
  // comment shifts (found by the fuzz target toml_comments).
  if (!comments.empty() && !valid_utf8(text)) comments.clear();
  return v;
}

std::string without_comments(std::string_view text, const std::vector<TomlCommentSpan>& comments) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  for (const TomlCommentSpan& c : comments) {
    out.append(text.substr(at, c.begin - at));
    at = c.end;
  }
  out.append(text.substr(at));
  return out;
}

void check_toml_limits(std::string_view text, const std::string& file) {
  if (auto v = scan_toml_limits(text)) throw InputError(file, v->line, v->column, v->message);
}

void check_toml_limits(std::string_view text, const std::string& file, std::vector<TomlCommentSpan>& comments) {
  if (auto v = scan_toml_limits(text, comments)) throw InputError(file, v->line, v->column, v->message);
}

}  // namespace geopipe::config
