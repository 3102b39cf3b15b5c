// Internal to src/traceimport: the interface each trace format implements (one file per format,
// named after it; the formats are the table of formats() in trace_import.cpp, their readers made
// by make_reader() below) and the cell parsers they share. The mapping from what a format
// reads to a pipeline job is trace_import.cpp's; a format only says, for each data row, whether
// its state is kept and, if so, its submit time, GPUs and run time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traceimport/trace_import.h"
#include "util/csv_read.h"

namespace geopipe::traceimport::detail {

/// Most GPUs a trace row may ask for (a larger number is a broken cell, not a job).
inline constexpr double kMaxRowGpus = 1e7;

/// What a format reads from one data row whose state is kept.
struct RowFields {
  double submit_s = 0;          ///< submit time on the trace's clock (epoch s, or s since trace start), finite
  double gpus = 0;              ///< GPUs requested, a whole number >= 0 (0: a CPU-only job)
  bool fractional_gpu = false;  ///< a share of one GPU (Alibaba: gpu_milli < 1000)
  double run_s = 0;             ///< run time (duration), s, finite; <= 0 is dropped by the mapping
  const util::CsvCell* submit_cell = nullptr;  ///< the cells read, for messages (valid during the row)
  const util::CsvCell* run_cell = nullptr;
};

/// One format's reading of a file: the header first, then each data row.
class FormatReader {
 public:
  virtual ~FormatReader() = default;
  /// Reads the header: columns matched by name, any order. InputError for an unknown, repeated
  /// or missing column. Returns the number of cells every data row must have.
  virtual std::size_t header(const util::CsvRecord& rec) = 0;
  /// Reads a data row with the header's number of cells: false if its state is not kept (its
  /// other cells are not read), else true with `out` filled. InputError (at the cell) for a cell
  /// that is not what its column holds.
  virtual bool row(const util::CsvRecord& rec, RowFields& out) const = 0;
};

/// The reader of `format` for the file named `path`, keeping rows whose state is in `states`
/// (already checked against the format's known states; ignored by formats without a state).
std::unique_ptr<FormatReader> make_reader(Format format, const std::string& path, const std::vector<std::string>& states);
std::unique_ptr<FormatReader> make_philly_reader(const std::string& path);
std::unique_ptr<FormatReader> make_helios_reader(const std::string& path, const std::vector<std::string>& states);
std::unique_ptr<FormatReader> make_alibaba2023_reader(const std::string& path, const std::vector<std::string>& states);

/// The columns of a header, matched by name against a format's known columns.
class Columns {
 public:
  /// Maps `rec`'s cells to `known` (exact names). InputError at the cell for a name not in
  /// `known` (listing them, for `format`) or a name given twice; then at the header's line for a
  /// column of `required` that is missing.
  Columns(const util::CsvRecord& rec, const std::string& path, std::string_view format,
          const std::vector<std::string_view>& known, const std::vector<std::string_view>& required);
  /// Position of column `name` in a row, or -1 if the header lacks it.
  int find(std::string_view name) const;
  /// Position of a required column.
  std::size_t at(std::string_view name) const;
  std::size_t count() const { return count_; }

 private:
  std::vector<std::pair<std::string_view, std::size_t>> pos_;
  std::size_t count_ = 0;
};

/// Which states a file's rows are kept in: a cell matches a state if it equals it ignoring case,
/// or its first word (up to a space) does ("CANCELLED by 0" is CANCELLED).
class StateFilter {
 public:
  explicit StateFilter(const std::vector<std::string>& states);
  bool keeps(std::string_view cell) const;

 private:
  std::vector<std::string> upper_;
};

/// Upper-case ASCII copy.
std::string upper_ascii(std::string_view s);

/// A time: a datetime in util/datetime.h's syntax (`YYYY-MM-DD HH:MM:SS`, `T` for the space,
/// optional seconds, fraction and zone; no zone = UTC) as epoch seconds, or seconds (a decimal
/// number >= 0: epoch seconds or seconds since the trace's start). InputError at the cell naming
/// `column` otherwise, or for a date that does not exist (2021-02-30) or a number beyond kMaxTimeS.
double time_cell(const util::CsvCell& cell, const std::string& path, std::string_view column);
/// A whole number in [0, hi] ("8" or "8.0"). InputError at the cell otherwise.
double count_cell(const util::CsvCell& cell, const std::string& path, std::string_view column, double hi);
/// A number of seconds, any sign, |v| <= kMaxTimeS. InputError at the cell otherwise.
double seconds_cell(const util::CsvCell& cell, const std::string& path, std::string_view column);

/// Largest time or duration read from a trace, s (epoch seconds of the year 9999 are 2.5e11).
inline constexpr double kMaxTimeS = 1e12;

}  // namespace geopipe::traceimport::detail
