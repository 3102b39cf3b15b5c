#include "traceimport/format_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "util/datetime.h"
#include "util/input_error.h"

namespace geopipe::traceimport::detail {
namespace {

std::string list_text(const std::vector<std::string_view>& names) {
  std::string s;
  for (const std::string_view n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

[[noreturn]] void bad_cell(const util::CsvCell& cell, const std::string& path, std::string_view column,
                           const std::string& what) {
  throw InputError(path, cell.line, cell.column, std::string(column) + ": " + what);
}

std::string shown(const util::CsvCell& cell) {
  return cell.text.empty() ? std::string("an empty cell") : "'" + cell.text + "'";
}

}  // namespace

Columns::Columns(const util::CsvRecord& rec, const std::string& path, std::string_view format,
                 const std::vector<std::string_view>& known, const std::vector<std::string_view>& required) {
  count_ = rec.cells.size();
  for (std::size_t c = 0; c < rec.cells.size(); ++c) {
    const util::CsvCell& cell = rec.cells[c];
    const auto it = std::find(known.begin(), known.end(), std::string_view(cell.text));
    if (it == known.end())
      throw InputError(path, cell.line, cell.column,
                       "unknown column '" + cell.text + "' for --format " + std::string(format) + " (expected some of " +
                           list_text(known) + "; is --format right?)");
    const auto seen = std::find_if(pos_.begin(), pos_.end(), [&](const auto& p) { return p.first == *it; });
    if (seen != pos_.end())
      throw InputError(path, cell.line, cell.column,
                       "duplicate column '" + cell.text + "' (column " + std::to_string(c + 1) + ", already column " +
                           std::to_string(seen->second + 1) + "; expected each column once)");
    pos_.emplace_back(*it, c);
  }
  for (const std::string_view r : required)
    if (find(r) < 0)
      throw InputError(path, rec.line, 1,
                       "missing column '" + std::string(r) + "' (--format " + std::string(format) + " needs " + list_text(required) + ")");
}

int Columns::find(std::string_view name) const {
  for (const auto& [n, c] : pos_)
    if (n == name) return static_cast<int>(c);
  return -1;
}

std::size_t Columns::at(std::string_view name) const { return static_cast<std::size_t>(find(name)); }

StateFilter::StateFilter(const std::vector<std::string>& states) {
  for (const std::string& s : states) upper_.push_back(upper_ascii(s));
}

bool StateFilter::keeps(std::string_view cell) const {
  const std::string u = upper_ascii(cell);
  const std::string_view first = std::string_view(u).substr(0, u.find(' '));
  return std::any_of(upper_.begin(), upper_.end(), [&](const std::string& s) { return s == u || s == first; });
}

std::string upper_ascii(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

double time_cell(const util::CsvCell& cell, const std::string& path, std::string_view column) {
  const std::string expected =
      " (expected YYYY-MM-DD HH:MM:SS, in UTC unless it ends in a zone such as +08:00, or seconds >= 0, e.g. "
      "2020-04-01 08:30:00 or 1585729800)";
  if (const std::optional<double> v = util::parse_decimal(cell.text)) {
    if (!(*v >= 0 && *v <= kMaxTimeS)) bad_cell(cell, path, column, cell.text + " is out of range" + expected);
    return *v;
  }
  const util::DatetimeParse d = util::parse_datetime(cell.text);  // the one datetime syntax (util/datetime.h)
  if (d.epoch_s) return *d.epoch_s;
  if (d.why == "not a datetime") bad_cell(cell, path, column, shown(cell) + " is not a time" + expected);
  bad_cell(cell, path, column, "'" + cell.text + "' is no date and time: " + d.why + expected);
}

double count_cell(const util::CsvCell& cell, const std::string& path, std::string_view column, double hi) {
  const std::optional<double> v = util::parse_decimal(cell.text);
  if (!v) bad_cell(cell, path, column, shown(cell) + " is not a number (expected a whole number, e.g. 8)");
  if (!(*v >= 0 && *v <= hi))
    bad_cell(cell, path, column, cell.text + " is out of range (expected 0 .. " + std::to_string(static_cast<std::int64_t>(hi)) + ")");
  if (*v != std::floor(*v)) bad_cell(cell, path, column, "'" + cell.text + "' is not a whole number");
  return *v;
}

double seconds_cell(const util::CsvCell& cell, const std::string& path, std::string_view column) {
  const std::optional<double> v = util::parse_decimal(cell.text);
  if (!v) bad_cell(cell, path, column, shown(cell) + " is not a number (expected seconds, e.g. 3600 or 12.5)");
  if (!(std::fabs(*v) <= kMaxTimeS)) bad_cell(cell, path, column, cell.text + " is out of range (expected -1e12 .. 1e12 s)");
  return *v;
}

std::unique_ptr<FormatReader> make_reader(Format format, const std::string& path, const std::vector<std::string>& states) {
  switch (format) {
    case Format::kPhilly:
      return make_philly_reader(path);
    case Format::kHelios:
      return make_helios_reader(path, states);
    case Format::kAlibaba2023:
      return make_alibaba2023_reader(path, states);
  }
  return nullptr;
}

}  // namespace geopipe::traceimport::detail
