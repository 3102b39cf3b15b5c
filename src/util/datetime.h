// Calendar times as public data series write them (ISO 8601 / RFC 3339 in UTC or with an
// offset): the one parser of every datetime geopipe reads (time series of links, prices and
// carbon, docs/scenario-format.md "Time series"; sim.start_utc).
//
// Syntax: YYYY-MM-DD, optionally followed by 'T' or one space and HH:MM, optionally :SS and a
// fraction (.f, any number of digits), optionally a zone: Z, +HH:MM, -HH:MM, +HHMM or -HHMM (no
// zone = UTC). Proleptic Gregorian calendar, no leap seconds; years 0001..9999.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace geopipe::util {

struct DatetimeParse {
  std::optional<double> epoch_s;  ///< seconds since 1970-01-01T00:00:00Z, if it parsed
  /// Empty if it parsed; else why not: "not a datetime" when the text does not have the
  /// syntax's shape, or what is out of range ("month 13", "February 30", "hour 24", ...).
  std::string why;
};

DatetimeParse parse_datetime(std::string_view text);

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d);

/// "2024-01-01T00:00:00Z" of whole epoch seconds (for messages and comments).
std::string format_utc(double epoch_s);

}  // namespace geopipe::util
