// Writing CSV (RFC 4180): the one quoting rule of every CSV geopipe writes (`run --jobs-csv`,
// `summarize --format csv`, `analyze --format csv`). Lines end in CRLF where the writer says so.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace geopipe::util {

/// A field: as is, or quoted ("...", a quote doubled) when it holds a comma, a quote or a line
/// break.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// A number: the shortest text that reads back to the same double; "" (a missing value to
/// pandas and R) for NaN and infinities.
inline std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace geopipe::util
