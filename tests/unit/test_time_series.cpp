// Step series (model/step_series.h) by hand, against PriceProfile's 24-hour profile bit for bit,
// and the datetime parser every series file uses (util/datetime.h).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "model/rng.h"
#include "model/step_series.h"
#include "model/topology.h"
#include "util/datetime.h"
#include "unit_common.h"

namespace geopipe {
namespace {

using testutil::kInf;

TEST(StepSeries, HoldByHand) {
  // 2 on [0, 10), 5 on [10, 30), 1 from 30 on (its span ends at 30 + 20 = 50, then holds).
  const StepSeries s({0, 10, 30}, {2, 5, 1}, SeriesEnd::kHold);
  EXPECT_EQ(s.end_s(), 50.0);
  EXPECT_EQ(s.value_at(0), 2.0);
  EXPECT_EQ(s.value_at(9.999), 2.0);
  EXPECT_EQ(s.value_at(10), 5.0);
  EXPECT_EQ(s.value_at(31), 1.0);
  EXPECT_EQ(s.value_at(1e9), 1.0);
  EXPECT_EQ(s.integral(0), 0.0);
  EXPECT_EQ(s.integral(10), 20.0);
  EXPECT_EQ(s.integral(20), 20.0 + 50.0);
  EXPECT_EQ(s.integral(100), 20.0 + 100.0 + 70.0);  // 2·10 + 5·20 + 1·70
  EXPECT_EQ(s.next_change_after(0), 10.0);
  EXPECT_EQ(s.next_change_after(10), 30.0);
  EXPECT_EQ(s.next_change_after(30), kInf);
  EXPECT_EQ(s.max_value(), 5.0);
}

TEST(StepSeries, WrapByHand) {
  // Period 40: 3 on [0, 20), 1 on [20, 40), repeating; one period integrates to 80.
  const StepSeries s({0, 20}, {3, 1}, SeriesEnd::kWrap);
  EXPECT_EQ(s.end_s(), 40.0);
  EXPECT_EQ(s.value_at(45), 3.0);
  EXPECT_EQ(s.value_at(65), 1.0);
  EXPECT_EQ(s.integral(40), 80.0);
  EXPECT_EQ(s.integral(100), 2 * 80.0 + 60.0);  // two periods + 3·20 of the third
  EXPECT_EQ(s.next_change_after(0), 20.0);
  EXPECT_EQ(s.next_change_after(20), 40.0);
  EXPECT_EQ(s.next_change_after(39.5), 40.0);
  EXPECT_EQ(s.next_change_after(40), 60.0);
}

TEST(StepSeries, OneStepIsConstantForEver) {
  const StepSeries s({0}, {7}, SeriesEnd::kWrap);
  EXPECT_EQ(s.end_s(), kInf);
  EXPECT_EQ(s.value_at(1e12), 7.0);
  EXPECT_EQ(s.integral(3), 21.0);
  EXPECT_EQ(s.next_change_after(0), kInf);
}

TEST(StepSeries, MergedEqualStepsReportOnlyRealChanges) {
  const StepSeries s({0, 10, 20, 30}, {4, 4, 6, 6}, SeriesEnd::kHold, /*merge_equal_steps=*/true);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.next_change_after(0), 20.0);
  EXPECT_EQ(s.next_change_after(20), kInf);
  EXPECT_EQ(s.value_at(15), 4.0);
  EXPECT_EQ(s.integral(25), 4 * 20.0 + 6 * 5.0);
  const StepSeries c({0, 10, 20}, {4, 4, 4}, SeriesEnd::kWrap, true);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.next_change_after(0), kInf);  // a constant series adds no event
}

// Merging equal steps keeps the series' end: three equal hourly-spaced rows cover [0, 180 s)
// and a series under sim.series_end = "error" ends there, constant or not (model version 4
// dropped it with the merge, and a run went on to t = 83,143 s). Wrapped, a constant series
// has no period left: constant for ever.
TEST(StepSeries, MergingEqualStepsKeepsTheEnd) {
  for (SeriesEnd end : {SeriesEnd::kError, SeriesEnd::kHold}) {
    const StepSeries s({0, 60, 120}, {10, 10, 10}, end, /*merge_equal_steps=*/true);
    EXPECT_EQ(s.size(), 1u);
    EXPECT_EQ(s.end_s(), 180.0);
    EXPECT_EQ(s.value_at(500.0), 10.0);
    EXPECT_EQ(s.next_change_after(0.0), kInf);
    EXPECT_EQ(s.integral(500.0), 5000.0);
  }
  const StepSeries partly({0, 60, 120}, {10, 10, 5}, SeriesEnd::kError, true);
  EXPECT_EQ(partly.size(), 2u);
  EXPECT_EQ(partly.end_s(), 180.0);
  EXPECT_EQ(StepSeries({0, 60, 120}, {10, 10, 10}, SeriesEnd::kWrap, true).end_s(), kInf);
}

TEST(StepSeries, RefusesBrokenContracts) {
  EXPECT_THROW(StepSeries({}, {}, SeriesEnd::kHold), std::invalid_argument);
  EXPECT_THROW(StepSeries({1}, {1}, SeriesEnd::kHold), std::invalid_argument);         // not from 0
  EXPECT_THROW(StepSeries({0, 5, 5}, {1, 2, 3}, SeriesEnd::kHold), std::invalid_argument);  // not increasing
  EXPECT_THROW(StepSeries({0}, {-1}, SeriesEnd::kHold), std::invalid_argument);
  EXPECT_THROW(StepSeries({0}, {std::nan("")}, SeriesEnd::kHold), std::invalid_argument);
}

// A price series of the 24 hourly values of a day, wrapped, is the 24-hour profile (UTC offset
// 0): the same price, integral and next change at any time, bit for bit.
TEST(StepSeries, WrappedHourlySeriesIsThe24HourProfileBitForBit) {
  Rng rng(2024);
  std::array<double, 24> hourly{};
  std::vector<double> t, v;
  for (int h = 0; h < 24; ++h) {
    hourly[static_cast<size_t>(h)] = 0.05 + 0.3 * rng.uniform();
    t.push_back(3600.0 * h);
    v.push_back(hourly[static_cast<size_t>(h)]);
  }
  const PriceProfile prof = PriceProfile::hourly(hourly, 0.0);
  const PriceProfile ser = PriceProfile::series(std::make_shared<const StepSeries>(t, v, SeriesEnd::kWrap));
  for (int k = 0; k < 20000; ++k) {
    const double x = k < 100 ? 3600.0 * k : rng.uniform(0.0, 3.0e7);
    ASSERT_EQ(ser.usd_per_kwh_at(x), prof.usd_per_kwh_at(x)) << x;
    ASSERT_EQ(ser.integral(x), prof.integral(x)) << x;
    ASSERT_EQ(ser.next_change_after(x), prof.next_change_after(x)) << x;
  }
}

// The cursor the engine walks a series with gives what the searching accessors give, at every
// step boundary and between them, for hold and wrap.
TEST(StepSeries, CursorAgreesWithTheSearchingAccessors) {
  Rng rng(77);
  for (SeriesEnd end : {SeriesEnd::kHold, SeriesEnd::kWrap})
    for (int n = 1; n <= 6; ++n) {
      std::vector<double> t{0.0}, v{rng.uniform(0.0, 5.0)};
      for (int k = 1; k < n; ++k) {
        t.push_back(t.back() + 0.5 + rng.uniform(0.0, 100.0));
        v.push_back(rng.uniform(0.0, 5.0));
      }
      const StepSeries s(t, v, end);
      StepSeries::Cursor c(s);
      double x = 0;
      for (int step = 0; step < 200; ++step) {
        c.advance_to(x);
        ASSERT_EQ(c.value(), s.value_at(x)) << x;
        ASSERT_EQ(c.next_change_s(), s.next_change_after(x)) << x;
        // Next: exactly the next boundary, or somewhere before it.
        const double nx = c.next_change_s();
        if (nx == kInf) break;
        x = step % 2 ? nx : x + (nx - x) * rng.uniform();
      }
    }
}

TEST(Datetime, ParsesIsoFormsAndZones) {
  using util::parse_datetime;
  EXPECT_EQ(*parse_datetime("1970-01-01").epoch_s, 0.0);
  EXPECT_EQ(*parse_datetime("2024-01-01T00:00:00Z").epoch_s, 1704067200.0);
  EXPECT_EQ(*parse_datetime("2024-01-01 00:00").epoch_s, 1704067200.0);
  EXPECT_EQ(*parse_datetime("2024-01-01T01:00:00+01:00").epoch_s, 1704067200.0);
  EXPECT_EQ(*parse_datetime("2023-12-31T19:00:00-0500").epoch_s, 1704067200.0);
  EXPECT_EQ(*parse_datetime("2024-02-29T12:30:15.5Z").epoch_s, 1709209815.5);
  EXPECT_EQ(parse_datetime("2023-02-29").why, "February 29 (2023)");
  EXPECT_EQ(parse_datetime("2024-13-01").why, "month 13");
  EXPECT_EQ(parse_datetime("2024-01-01T24:00").why, "hour 24");
  EXPECT_EQ(parse_datetime("1704067200").why, "not a datetime");
  EXPECT_EQ(parse_datetime("2024-01-01T00:00:00Zjunk").why, "not a datetime");
  EXPECT_FALSE(parse_datetime("2024-01-01T0").epoch_s);
  EXPECT_EQ(util::format_utc(1709209815.0), "2024-02-29T12:30:15Z");
  EXPECT_EQ(util::format_utc(0), "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace geopipe
