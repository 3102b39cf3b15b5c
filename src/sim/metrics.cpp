#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "model/units.h"
#include "util/named_table.h"

namespace geopipe {

const std::vector<MetricDef>& metric_defs() {
  static const std::vector<MetricDef> defs = {
#define GEOPIPE_METRIC_DEF(type, name, unit, display, deterministic, source, doc) \
  {#name, unit, MetricDisplay::display, deterministic, MetricSource::source, doc},
      GEOPIPE_SCENARIO_METRICS(GEOPIPE_METRIC_DEF)
#undef GEOPIPE_METRIC_DEF
  };
  return defs;
}

const char* metric_source_name(MetricSource s) {
  switch (s) {
    case MetricSource::kSimulation: return "simulation";
    case MetricSource::kTestFunction: return "test_function";
  }
  return "?";
}

const MetricDef* find_metric(std::string_view name) { return util::find_named(metric_defs(), name); }

bool metric_leaves_out_unfinished_jobs(std::string_view name) {
  const MetricDef* d = find_metric(name);
  if (d && d->source != MetricSource::kSimulation) return false;  // a test function's value: no jobs
  return name != "jobs_total" && name != "jobs_completed" && name != "jobs_unfinished";
}

std::vector<MetricField> metric_fields(const ScenarioMetrics& m) {
  std::vector<MetricField> out;
  out.reserve(metric_defs().size());
  for_each_metric(m, [&](const MetricDef& d, const auto& v) {
    out.push_back({d.name, static_cast<double>(v), d.deterministic});
  });
  return out;
}

DisplayValue display_value(const MetricDef& def, double value) {
  switch (def.display) {
    case MetricDisplay::kHours: return {value / units::kSecondsPerHour, "h"};
    case MetricDisplay::kMwh: return {units::joules_to_kwh(value) / 1e3, "MWh"};
    case MetricDisplay::kTb: return {value / 1e12, "TB"};
    case MetricDisplay::kMs: return {value * 1e3, "ms"};
    case MetricDisplay::kPlain: break;
  }
  return {value, def.unit};
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return percentile_of_sorted(v, q);
}

double percentile_of_sorted(std::span<const double> v, double q) {
  if (v.empty()) return 0.0;
  const double pos = q / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

}  // namespace geopipe
