#include "util/csv_read.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "util/input_error.h"

namespace geopipe::util {
namespace {

/// Walks the text one character (code point) at a time, keeping line and column, and refuses
/// what is not text.
class Cursor {
 public:
  Cursor(std::string_view text, const std::string& path) : s_(text), path_(path) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a byte-order mark: Excel's "CSV UTF-8"
  }
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return s_[i_]; }
  int line() const { return line_; }
  int column() const { return col_; }
  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, line_, col_, msg); }
  [[noreturn]] void fail_at(int line, int col, const std::string& msg) const { throw InputError(path_, line, col, msg); }

  /// Appends the character at the cursor to `out` and moves past it.
  void take(std::string& out) {
    const auto c = static_cast<unsigned char>(s_[i_]);
    if (c < 0x80) {
      if (c == '\n') {
        out += '\n';
        ++i_;
        ++line_;
        col_ = 1;
        return;
      }
      if (c == '\r') {
        if (i_ + 1 >= s_.size() || s_[i_ + 1] != '\n') fail("a carriage return without a line feed (expected LF or CRLF line ends)");
        out += '\n';  // a CRLF inside a quoted cell is one line break
        i_ += 2;
        ++line_;
        col_ = 1;
        return;
      }
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "a control character (byte 0x%02x)", c);
        fail(std::string(buf) + " (expected text: a CSV file holds no NUL or other control characters but tab)");
      }
      out += static_cast<char>(c);
      ++i_;
      ++col_;
      return;
    }
    unsigned cp = 0;
    const std::size_t n = utf8_length(s_, i_, cp);
    if (n == 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "byte 0x%02x is not UTF-8", c);
      fail(std::string(buf) + " (expected a UTF-8 text file: save it as \"CSV UTF-8\")");
    }
    out.append(s_.substr(i_, n));
    i_ += n;
    ++col_;
  }
  /// Moves past the character at the cursor (checked as take() checks it).
  void skip() {
    std::string scratch;
    take(scratch);
  }
  /// At a line end (LF, or CRLF), or the end of the text.
  bool at_line_end() const { return done() || s_[i_] == '\n' || s_[i_] == '\r'; }

 private:
  std::string_view s_;
  const std::string& path_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

bool blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

void for_each_csv_record(std::string_view text, const std::string& path, const std::function<void(CsvRecord&)>& on_record) {
  Cursor cur(text, path);
  CsvRecord rec;       // reused: its cells keep their capacity from one record to the next
  std::string lead;    // blanks before a cell
  std::string trail;   // blanks after a closing quote
  while (!cur.done()) {
    rec.line = cur.line();
    std::size_t n = 0;  // cells of this record so far (rec.cells may hold more, from an earlier one)
    bool first_cell = true;
    bool skip_line = false;
    for (;;) {
      lead.clear();
      while (!cur.done() && blank(cur.peek())) cur.take(lead);
      if (first_cell && (cur.at_line_end() || (!cur.done() && cur.peek() == '#'))) {
        // a blank line, or a comment: skipped to its end
        skip_line = true;
        while (!cur.at_line_end()) cur.skip();
        break;
      }
      if (n == rec.cells.size()) rec.cells.emplace_back();
      CsvCell& cell = rec.cells[n];
      cell.text.clear();
      cell.quoted = false;
      cell.line = cur.line();
      cell.column = cur.column();
      if (!cur.done() && cur.peek() == '"') {
        if (!lead.empty()) cur.fail("a quote after spaces at the start of a cell (expected the quote as its first character)");
        cell.quoted = true;
        cur.skip();
        for (;;) {
          if (cur.done()) cur.fail_at(cell.line, cell.column, "unclosed quote (expected a closing \")");
          if (cur.peek() == '"') {
            cur.skip();
            if (!cur.done() && cur.peek() == '"') {
              cur.skip();
              cell.text += '"';
              continue;
            }
            break;
          }
          cur.take(cell.text);
        }
        trail.clear();
        while (!cur.done() && blank(cur.peek())) cur.take(trail);
        if (!cur.at_line_end() && cur.peek() != ',')
          cur.fail("text after a closing quote (expected , or the end of the line)");
      } else {
        while (!cur.at_line_end() && cur.peek() != ',') cur.take(cell.text);
        while (!cell.text.empty() && blank(cell.text.back())) cell.text.pop_back();
      }
      first_cell = false;
      ++n;
      if (!cur.done() && cur.peek() == ',') {
        cur.skip();
        continue;
      }
      break;  // the end of the line or of the text
    }
    if (!cur.done()) cur.skip();  // the LF or CRLF
    if (skip_line) continue;
    rec.cells.resize(n);  // drops the cells an earlier, longer record left
    on_record(rec);
  }
}

std::vector<CsvRecord> read_csv(std::string_view text, const std::string& path) {
  std::vector<CsvRecord> records;
  for_each_csv_record(text, path, [&](CsvRecord& rec) { records.push_back(std::move(rec)); });
  return records;
}

std::optional<double> parse_decimal(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const std::size_t int_start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  std::size_t digits = i - int_start;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t frac_start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    digits += i - frac_start;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t exp_start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == exp_start) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  const std::size_t from = s[0] == '+' ? 1 : 0;  // from_chars takes no '+'
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data() + from, s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_integer_text(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace geopipe::util
