#include "cli/report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "sim/job_row.h"
#include "sim/metrics.h"
#include "util/csv.h"
#include "util/input_error.h"

namespace geopipe::cli {
namespace {

/// The run table's columns: a metric (shown in its display unit, sim/metrics.h), a short
/// label and the format of a cell.
struct TableColumn {
  const char* metric;
  const char* label;  ///< the header: "<label>_<display unit>" for a scaled display, else the label
  int width;
  int decimals;
};
constexpr TableColumn kRunColumns[] = {
    {"avg_jct_s", "avgJCT", 9, 2},      {"jct_lower_bound_s", "jctLB", 8, 2},
    {"p95_jct_s", "p95JCT", 9, 2},
    {"avg_queue_delay_s", "queue", 9, 2}, {"makespan_s", "makesp", 9, 1},
    {"total_energy_j", "", 8, 2},         {"total_cost_usd", "cost_usd", 10, 0},
    {"egress_cost_usd", "egress", 8, 0},
    {"gpu_utilization", "util", 6, 3},    {"stall_fraction", "stall", 6, 3},
    {"sync_fraction", "sync", 6, 3},      {"max_ftf_rho", "maxrho", 7, 2},
    {"jain_fairness", "jain", 6, 3},
    {"cross_region_bytes", "xreg", 8, 2}, {"sched_time_total_s", "sched", 9, 1},
    {"sched_time_max_s", "max", 8, 2},
};

std::string header_of(const TableColumn& c) {
  const MetricDef& def = *find_metric(c.metric);
  if (def.display == MetricDisplay::kPlain) return c.label;
  const std::string unit = display_value(def, 0.0).unit;
  return *c.label ? std::string(c.label) + "_" + unit : unit;
}

}  // namespace

void print_table(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs) {
  const int total = runs.empty() ? 0 : runs.front().result.metrics.jobs_total;
  fmt::print(os, "scenario {}  seed {}  jobs {}  regions {}  GPUs {}\n", util::printable_text(sc.name), seed, total,
             sc.topology.num_regions(), sc.topology.total_gpus());
  fmt::print(os, "{:<19} {:>9}", "scheduler", "done");
  for (const TableColumn& c : kRunColumns) fmt::print(os, " {:>{}}", header_of(c), c.width);
  fmt::print(os, "\n");
  for (const auto& r : runs) {
    const ScenarioMetrics& m = r.result.metrics;
    fmt::print(os, "{:<19} {:>9}", r.scheduler, fmt::format("{}/{}", m.jobs_completed, m.jobs_total));
    const auto fields = metric_fields(m);
    for (const TableColumn& c : kRunColumns) {
      const MetricDef& def = *find_metric(c.metric);
      double v = 0;
      for (const MetricField& f : fields)
        if (std::string_view(f.name) == c.metric) v = f.value;
      fmt::print(os, " {:>{}.{}f}", display_value(def, v).value, c.width, c.decimals);
    }
    fmt::print(os, "\n");
  }
  if (runs.size() > 1) {
    // The one convention of geopipe (run, summarize, analyze, Python): change = scheduler /
    // baseline - 1, the baseline being the first scheduler; negative = the scheduler is lower.
    const ScenarioMetrics& b = runs.front().result.metrics;
    fmt::print(os, "change vs {} (scheduler / {} - 1): ", runs.front().scheduler, runs.front().scheduler);
    bool first = true;
    for (size_t k = 1; k < runs.size(); ++k) {
      const ScenarioMetrics& m = runs[k].result.metrics;
      fmt::print(os, "{}{} JCT {:+.1f}% cost {:+.1f}%", first ? "" : "; ", runs[k].scheduler,
                 100.0 * (m.avg_jct_s / b.avg_jct_s - 1.0), 100.0 * (m.total_cost_usd / b.total_cost_usd - 1.0));
      first = false;
    }
    fmt::print(os, "\n  (negative = that scheduler is lower than {}; every run completed every job)\n", runs.front().scheduler);
  }
}

void print_json(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs) {
  using Json = nlohmann::ordered_json;
  Json results = Json::array();
  for (const RunOutcome& r : runs) {
    Json metrics = Json::object();
    for_each_metric(r.result.metrics, [&](const MetricDef& d, const auto& v) {
      if (d.source != MetricSource::kSimulation) return;  // a run simulates
      if constexpr (std::is_floating_point_v<std::decay_t<decltype(v)>>)
        metrics[d.name] = std::isfinite(v) ? Json(v) : Json(nullptr);
      else
        metrics[d.name] = v;
    });
    results.push_back(Json{{"scheduler", r.scheduler}, {"metrics", std::move(metrics)}});
  }
  const Json j{{"scenario", sc.name}, {"seed", seed}, {"results", std::move(results)}};
  // Invalid UTF-8 cannot reach here (TOML text is checked), but a dump must never throw.
  os << j.dump(1, ' ', false, Json::error_handler_t::replace) << "\n";
}

void write_jobs_csv(std::ostream& os, const Scenario& sc, const std::vector<RunOutcome>& runs) {
  std::string header = "scheduler";
  const JobRow columns{};
  for_each_job_column(columns, [&](const char* name, const auto&) { header += std::string(",") + name; });
  fmt::print(os, "{}\n", header);
  for (const auto& r : runs)
    for (const JobRecord& rec : r.result.jobs) {
      std::string line = util::csv_field(r.scheduler);
      const JobRow row = job_row(sc, rec);
      for_each_job_column(row, [&](const char*, const auto& v) {
        line += ',';
        if constexpr (std::is_convertible_v<decltype(v), std::string>)
          line += util::csv_field(v);  // a model or region name may hold a comma or a quote
        else
          line += fmt::format("{}", v);
      });
      fmt::print(os, "{}\n", line);
    }
}

}  // namespace geopipe::cli
