// Fuzz target: the CSV readers of a scenario's data files, on the same text: the job-trace
// reader parse_trace_csv (model/trace.h; the model catalogue and topology of
// tests/config/good/small.toml: three regions, three GPU types, the built-in models plus
// "tiny"), and the time-series reader read_series_csv (config/series_file.h; a link's columns,
// sim.start_utc = 2024-01-01T00:00:00Z). A series that reads is built into a StepSeries and
// walked with its cursor, which must agree with the searching accessors (else abort: a finding).
// Seeds: the shipped traces and series (tests/config/good/*.csv, tests/config/bad/*.csv).
#include <cmath>
#include <cstdlib>
#include <string>

#include "config/scenario_loader.h"
#include "config/series_file.h"
#include "fuzz_target.h"
#include "model/step_series.h"
#include "model/trace.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "trace";

namespace {

void check_series(const geopipe::config::SeriesTable& st) {
  for (geopipe::SeriesEnd end : {geopipe::SeriesEnd::kHold, geopipe::SeriesEnd::kWrap}) {
    const geopipe::StepSeries s(st.times_s, st.values[0], end, /*merge_equal_steps=*/end == geopipe::SeriesEnd::kWrap);
    geopipe::StepSeries::Cursor c(s);
    double t = 0;
    for (int k = 0; k < 64; ++k) {
      c.advance_to(t);
      if (c.value() != s.value_at(t) || c.next_change_s() != s.next_change_after(t) || !std::isfinite(s.integral(t)))
        std::abort();
      const double nx = c.next_change_s();
      if (!std::isfinite(nx)) break;
      t = nx;
    }
  }
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  static const geopipe::Scenario sc =
      geopipe::config::load_scenario_file(geopipe::fuzz::source_dir() + "/tests/config/good/small.toml");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)geopipe::parse_trace_csv(text, "fuzz.csv", sc.llms, sc.topology, sc.compute);
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  try {
    geopipe::config::SeriesColumn fwd, rev;
    fwd.names = {"bandwidth_gbps", "usd_per_kwh", "carbon_intensity_avg"};
    fwd.max_value = 1e6;
    rev.names = {"reverse_bandwidth_gbps"};
    rev.required = false;
    rev.max_value = 1e6;
    const geopipe::config::SeriesTable st = geopipe::config::read_series_csv(text, "fuzz.csv", {fwd, rev}, 1704067200.0);
    check_series(st);
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  return 0;
}
