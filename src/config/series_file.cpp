#include "config/series_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "util/csv_read.h"
#include "util/datetime.h"
#include "util/input_error.h"

namespace geopipe::config {
namespace {

/// Latest step time a series may have (as a trace's arrival_s): integrals stay finite.
constexpr double kMaxSeriesTimeS = 1e12;

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

/// "0 (an outage) or 1e-06 .. 1000000 Gbit/s, as bandwidth_gbps" and the like.
std::string range_of(const SeriesColumn& col) {
  const std::string max = util::format_number(col.max_value);
  std::string r;
  if (col.zero_allowed && col.min_value > 0)
    r = "0" + (col.zero_means.empty() ? std::string() : " (" + col.zero_means + ")") + " or " +
        util::format_number(col.min_value) + " .. " + max;
  else if (col.zero_allowed)
    r = "0 .. " + max;
  else if (col.min_value > 0)
    r = util::format_number(col.min_value) + " .. " + max;
  else
    r = "> 0 and at most " + max;
  if (!col.constant_key.empty()) r += ", as " + col.constant_key;
  return r;
}

}  // namespace

SeriesTable read_series_csv(std::string_view text, const std::string& path, const std::vector<SeriesColumn>& columns,
                            std::optional<double> start_epoch_s) {
  // One record at a time (util::for_each_csv_record): a series of a million steps is read
  // without holding its cells. The header is the first record.
  util::CsvRecord head;
  bool have_head = false;
  int time_col = -1;
  bool calendar = false;
  std::vector<int> value_col(columns.size(), -1);
  SeriesTable out;
  out.values.resize(columns.size());
  double last_epoch = 0;
  int last_line = 0;
  auto header_list = [&] {
    std::string h;
    for (const auto& c : head.cells) h += (h.empty() ? "" : ", ") + ("'" + c.text + "'");
    return h;
  };
  auto read_header = [&] {
    // A column read, named again later in the header: which one holds the data is not clear.
    auto refuse_repeat = [&](int first, auto same) {
      for (std::size_t c = static_cast<std::size_t>(first) + 1; c < head.cells.size(); ++c)
        if (same(head.cells[c].text))
          throw InputError(path, head.cells[c].line, head.cells[c].column,
                           "duplicate column '" + head.cells[c].text + "' (column " + std::to_string(c + 1) +
                               ", already column " + std::to_string(first + 1) + "; expected each column once)");
    };
    for (const char* want : {"time_s", "datetime", "datetime (utc)", "timestamp", "time"}) {
      for (std::size_t c = 0; c < head.cells.size() && time_col < 0; ++c)
        if (lower(head.cells[c].text) == want) {
          time_col = static_cast<int>(c);
          calendar = std::string_view(want) != "time_s";
          refuse_repeat(time_col, [&](const std::string& x) { return lower(x) == want; });
        }
      if (time_col >= 0) break;
    }
    if (time_col < 0)
      throw InputError(path, head.line, 1,
                       "no time column in the header (expected 'time_s' (seconds of simulation time) or 'datetime' "
                       "(ISO 8601, with sim.start_utc); the header has " + header_list() + ")");
    const util::CsvCell& tcell = head.cells[static_cast<std::size_t>(time_col)];
    if (calendar && !start_epoch_s)
      throw InputError(path, tcell.line, tcell.column,
                       "column '" + tcell.text +
                           "' holds calendar times, so the scenario must say which one simulation time 0 is "
                           "(expected sim.start_utc = \"YYYY-MM-DDT00:00:00Z\")");
    for (std::size_t k = 0; k < columns.size(); ++k) {
      for (const std::string& name : columns[k].names) {
        for (std::size_t c = 0; c < head.cells.size() && value_col[k] < 0; ++c)
          if (head.cells[c].text == name) value_col[k] = static_cast<int>(c);
        if (value_col[k] >= 0) {
          refuse_repeat(value_col[k], [&](const std::string& x) { return x == name; });
          break;
        }
      }
      if (value_col[k] < 0 && columns[k].required) {
        std::string names;
        for (const auto& n : columns[k].names) names += (names.empty() ? "'" : " or '") + n + "'";
        throw InputError(path, head.line, 1, "no column " + names + " in the header (it has " + header_list() + ")");
      }
    }
  };
  std::vector<double> row(columns.size(), 0.0);
  util::for_each_csv_record(text, path, [&](util::CsvRecord& rec) {
    if (!have_head) {
      head = std::move(rec);
      have_head = true;
      read_header();
      // The steps are at most the lines after the header: each vector is allocated once, at
      // its final size or a little above (blank and comment lines), never grown by doubling
      // (which held up to twice the steps, and a copy while growing: docs/limits.md).
      const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      const auto after_head = static_cast<std::size_t>(head.line);
      const std::size_t rows = lines > after_head ? lines - after_head : 1;
      out.times_s.reserve(rows);
      for (std::size_t k = 0; k < columns.size(); ++k)
        if (value_col[k] >= 0) out.values[k].reserve(rows);
      return;
    }
    auto cell = [&](int c) -> const util::CsvCell& {
      if (static_cast<std::size_t>(c) >= rec.cells.size()) {
        const util::CsvCell& lastc = rec.cells.back();
        throw InputError(path, lastc.line, lastc.column + static_cast<int>(lastc.text.size()),
                         "row has " + std::to_string(rec.cells.size()) + " cells, but the header names column " +
                             std::to_string(c + 1) + " '" + head.cells[static_cast<std::size_t>(c)].text + "'");
      }
      return rec.cells[static_cast<std::size_t>(c)];
    };
    const util::CsvCell& tc = cell(time_col);
    double t;
    if (calendar) {
      const util::DatetimeParse d = util::parse_datetime(tc.text);
      if (!d.epoch_s)
        throw InputError(path, tc.line, tc.column,
                         "'" + tc.text + "' is not a UTC datetime (" + d.why +
                             "; expected ISO 8601 such as 2024-01-01T13:00:00Z or 2024-01-01 13:00)");
      t = *d.epoch_s - *start_epoch_s;
    } else {
      const auto v = util::parse_decimal(tc.text);
      if (!v || *v < 0)
        throw InputError(path, tc.line, tc.column, "time_s '" + tc.text + "' is not a number >= 0 (seconds of simulation time)");
      t = *v;
    }
    if (!(t <= kMaxSeriesTimeS))
      throw InputError(path, tc.line, tc.column,
                       "time '" + tc.text + "' is more than 10^12 s after simulation time 0 (expected at most " +
                           "10^12 s, about 31,700 years)");
    if (last_line > 0) {
      const double prev = calendar ? last_epoch - *start_epoch_s : out.times_s.back();
      if (!(t > prev))
        throw InputError(path, tc.line, tc.column,
                         "time '" + tc.text + "' does not come after the previous row's (line " + std::to_string(last_line) +
                             "; expected strictly increasing times, one row per step)");
    }
    last_line = tc.line;
    if (calendar) last_epoch = t + *start_epoch_s;
    for (std::size_t k = 0; k < columns.size(); ++k) {
      row[k] = 0.0;
      if (value_col[k] < 0) continue;
      const util::CsvCell& vc = cell(value_col[k]);
      const auto v = util::parse_decimal(vc.text);
      const std::string& name = head.cells[static_cast<std::size_t>(value_col[k])].text;
      if (!v)
        throw InputError(path, vc.line, vc.column,
                         name + ": '" + vc.text + "' is not a number (expected decimal digits, e.g. 12, 0.5 or 1e3)");
      const SeriesColumn& col = columns[k];
      const bool zero = *v == 0;
      const bool in_range = zero ? col.zero_allowed
                                 : *v > 0 && *v >= col.min_value && *v <= col.max_value && *v * col.scale > 0;
      if (!in_range)
        throw InputError(path, vc.line, vc.column, name + ": " + vc.text + " is out of range (expected " + range_of(col) +
                                                       (*v < 0 ? "; negative values are not modelled: clip them in the file"
                                                        : zero ? "; clip zeros to a small positive value in the file"
                                                               : "") +
                                                       ")");
      if (col.whole_numbers && *v != std::floor(*v))
        throw InputError(path, vc.line, vc.column,
                         name + ": " + vc.text + " is not a whole number (expected a count, as " + col.constant_key + ")");
      row[k] = *v * col.scale;
    }
    if (calendar && t <= 0) {
      // Before (or at) simulation time 0: only the step in force at 0 is kept.
      out.times_s.assign(1, 0.0);
      for (std::size_t k = 0; k < columns.size(); ++k)
        if (value_col[k] >= 0) out.values[k].assign(1, row[k]);
      return;
    }
    if (out.times_s.empty()) {
      if (calendar)
        throw InputError(path, tc.line, tc.column,
                         "the series starts at " + tc.text + ", after sim.start_utc = " + util::format_utc(*start_epoch_s) +
                             " (expected a row at or before simulation time 0)");
      if (t != 0)
        throw InputError(path, tc.line, tc.column, "the series starts at time_s = " + tc.text + " (expected its first row at 0)");
    }
    out.times_s.push_back(t);
    for (std::size_t k = 0; k < columns.size(); ++k)
      if (value_col[k] >= 0) out.values[k].push_back(row[k]);
  });
  if (!have_head) throw InputError(path, 1, 1, "empty time series (expected a header, then one row per step)");
  if (out.times_s.empty()) throw InputError(path, head.line, 1, "the time series has no rows (expected one row per step after the header)");
  return out;
}

}  // namespace geopipe::config
