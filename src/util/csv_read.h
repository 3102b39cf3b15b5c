// Reading CSV: the one syntax of every CSV geopipe reads (workload traces, model/trace.h; points
// files, sweepfile/points_file.cpp), so that they accept the same files and refuse the
// others with the same messages (docs/scenario-format.md, "CSV files").
//
// The syntax (RFC 4180, with what spreadsheets and scripts commonly write):
//  * UTF-8 text; a byte-order mark (EF BB BF) at the very start is skipped; bytes that are not
//    UTF-8, NUL and the other control characters but tab are errors (file:line:col);
//  * records end at LF or CRLF (a CR that no LF follows is an error);
//  * cells are separated by commas; an unquoted cell is trimmed of spaces and tabs; a quoted
//    cell starts with " (after no other character) and ends with " ("" is one quote), and
//    may hold commas and line breaks; after the closing quote only spaces and tabs may come;
//  * a line that is blank, or whose first non-blank character is # outside quotes, is skipped.
// Numbers have one syntax too (parse_decimal): decimal digits with an optional sign, fraction
// and exponent; no hexadecimal, no inf or nan, no digit separators, no spaces inside.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::util {

struct CsvCell {
  std::string text;     ///< unquoted and trimmed (quoted: as written, "" as one quote)
  bool quoted = false;
  int line = 0;         ///< 1-based position of the cell's first character (its quote, if quoted)
  int column = 0;
};

struct CsvRecord {
  std::vector<CsvCell> cells;
  int line = 0;         ///< line of the record's first cell
};

/// The records of `text`. Throws InputError(path, line, column, ...) for what the syntax above
/// refuses. Columns count characters (UTF-8 code points), as editors do.
std::vector<CsvRecord> read_csv(std::string_view text, const std::string& path);

/// The same records, one at a time and in order, without holding them all (for files of
/// millions of rows: util/csv_read.h's syntax, read_csv's errors). `on_record` may keep or move
/// from the record it is given; the reader reuses the object for the next record. An exception
/// from `on_record` ends the reading.
void for_each_csv_record(std::string_view text, const std::string& path, const std::function<void(CsvRecord&)>& on_record);

/// The value of a decimal number in the syntax above ("12", "-0.5", "+1e3", ".5"), or nullopt
/// for anything else ("0x10", "inf", "nan", "1_000", "1e", "1.2.3", ""). Values beyond the
/// range of a double are nullopt too.
std::optional<double> parse_decimal(std::string_view s);

/// Is `s` an integer as TOML writes one: an optional sign and decimal digits, no point and no
/// exponent ("12", "-3", "+7"; not "12.0" or "1e3"). The integer columns of geopipe's own
/// files (traces, shape tables) take only these, as their TOML keys do.
bool is_integer_text(std::string_view s);

}  // namespace geopipe::util
