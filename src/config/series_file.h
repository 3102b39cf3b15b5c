// Time-series CSV files of a scenario (docs/scenario-format.md, "Time series"): a link's
// capacity (`bandwidth_trace`), a region's electricity price (`price_series`), carbon
// intensity (`carbon_series`) and available spot GPUs (`gpus_series`). The one reader of their syntax: CSV as every CSV geopipe reads
// (util/csv_read.h), a header naming a time column and value columns, one step per row.
//
// Time column (the first of these names in the header, case-insensitive):
//  * `time_s`: seconds of simulation time; the first row is at 0;
//  * `datetime`, `datetime (utc)`, `timestamp`, `time`: calendar times (util/datetime.h),
//    converted to simulation time with the scenario's `sim.start_utc` (required then). Rows
//    before it are dropped but for the last one, which then starts at 0; a series whose first
//    row is after it is an error.
// Times must increase strictly. Values are decimal numbers (util::parse_decimal) >= 0 and at
// most the column's maximum; an empty cell is an error. Columns other than the time column and
// the ones asked for are ignored (data exports carry many).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe::config {

/// A value column asked for: its accepted names (the first present is read) and range, which
/// is that of the constant key the series replaces (docs/scenario-format.md, "Time series").
struct SeriesColumn {
  std::vector<std::string> names;  ///< e.g. {"carbon_g_per_kwh", "carbon_intensity_avg"}
  bool required = true;            ///< absent and not required: SeriesTable::values[k] empty
  /// A value v read must be 0 (if zero_allowed) or lie in [min_value, max_value], and v × scale
  /// must be > 0 unless v is 0 (a scale cannot round a positive value to 0).
  double min_value = 0;            ///< smallest nonzero value (in the file's unit); default: any > 0
  double max_value = 1e300;        ///< largest value (in the file's unit)
  bool zero_allowed = true;        ///< whether 0 is a value (a link's outage: yes; a price: no)
  std::string zero_means;          ///< what a 0 is, for the range message (e.g. "an outage")
  std::string constant_key;        ///< the key the series replaces, for the range message
  double scale = 1.0;              ///< each value read is multiplied by it (after the range check)
  bool whole_numbers = false;      ///< values must be whole numbers (a count of GPUs)
};

struct SeriesTable {
  std::vector<double> times_s;               ///< simulation time, times_s[0] == 0, increasing
  std::vector<std::vector<double>> values;   ///< one vector per SeriesColumn (empty if absent)
};

/// Parses `text` (named `path` in messages, "path:line:col: ..." as InputError).
/// `start_epoch_s`: sim.start_utc as epoch seconds, if the scenario sets it.
SeriesTable read_series_csv(std::string_view text, const std::string& path, const std::vector<SeriesColumn>& columns,
                            std::optional<double> start_epoch_s);

}  // namespace geopipe::config
