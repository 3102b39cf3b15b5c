#include "cli/report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "model/units.h"

namespace geopipe::cli {
namespace {

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt::format("{}", v);  // shortest round-trip representation
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += c;
    }
  }
  return out + "\"";
}

}  // namespace

void print_table(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs) {
  const int total = runs.empty() ? 0 : runs.front().result.metrics.jobs_total;
  fmt::print(os, "scenario {}  seed {}  jobs {}  regions {}  GPUs {}\n", sc.name, seed, total,
             sc.topology.num_regions(), sc.topology.total_gpus());
  fmt::print(os, "{:<19} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10} {:>6} {:>6} {:>8} {:>9} {:>8}\n", "scheduler",
             "done", "avgJCT_h", "p95JCT_h", "queue_h", "makesp_h", "MWh", "cost_usd", "util", "stall", "xreg_TB",
             "sched_ms", "max_ms");
  for (const auto& r : runs) {
    const ScenarioMetrics& m = r.result.metrics;
    constexpr double h = units::kSecondsPerHour;
    fmt::print(os, "{:<19} {:>9} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.1f} {:>8.2f} {:>10.0f} {:>6.3f} {:>6.3f} {:>8.2f} {:>9.1f} {:>8.2f}\n",
               r.scheduler, fmt::format("{}/{}", m.jobs_completed, m.jobs_total), m.avg_jct_s / h, m.p95_jct_s / h,
               m.avg_queue_delay_s / h, m.makespan_s / h, m.total_energy_j / 3.6e9, m.total_cost_usd,
               m.gpu_utilization, m.stall_fraction, m.cross_region_bytes / 1e12, m.sched_time_total_s * 1e3,
               m.sched_time_max_s * 1e3);
  }
  if (runs.size() > 1) {
    const ScenarioMetrics& b = runs.front().result.metrics;
    fmt::print(os, "relative to {}: ", runs.front().scheduler);
    bool first = true;
    for (size_t k = 1; k < runs.size(); ++k) {
      const ScenarioMetrics& m = runs[k].result.metrics;
      fmt::print(os, "{}{} JCT {:+.1f}% cost {:+.1f}%", first ? "" : "; ", runs[k].scheduler,
                 100.0 * (b.avg_jct_s / m.avg_jct_s - 1.0), 100.0 * (b.total_cost_usd / m.total_cost_usd - 1.0));
      first = false;
    }
    fmt::print(os, "\n  (negative = {} is lower; unfinished jobs are excluded from JCT, see 'done')\n",
               runs.front().scheduler);
  }
}

void print_json(std::ostream& os, const Scenario& sc, std::uint64_t seed, const std::vector<RunOutcome>& runs) {
  fmt::print(os, "{{\"scenario\": {}, \"seed\": {}, \"results\": [", json_string(sc.name), seed);
  for (size_t k = 0; k < runs.size(); ++k) {
    fmt::print(os, "{}\n  {{\"scheduler\": {}, \"metrics\": {{", k ? "," : "", json_string(runs[k].scheduler));
    bool first = true;
    for (const MetricField& f : metric_fields(runs[k].result.metrics)) {
      fmt::print(os, "{}\"{}\": {}", first ? "" : ", ", f.name, json_number(f.value));
      first = false;
    }
    fmt::print(os, "}}}}");
  }
  fmt::print(os, "\n]}}\n");
}

void write_jobs_csv(std::ostream& os, const Scenario& sc, const std::vector<RunOutcome>& runs) {
  fmt::print(os, "scheduler,id,model,stages,gpus_per_stage,regions,arrival_s,start_s,finish_s,iterations,"
                 "mean_iteration_s,first_iteration_s,energy_j,cost_usd,cross_region_bytes\n");
  for (const auto& r : runs)
    for (const JobRecord& j : r.result.jobs) {
      std::string regions;
      for (size_t i = 0; i < j.stage_region.size(); ++i) {
        if (i == 0 || j.stage_region[i] != j.stage_region[i - 1]) {
          if (!regions.empty()) regions += ';';
          regions += sc.topology.regions[static_cast<size_t>(j.stage_region[i])].name;
        }
      }
      fmt::print(os, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.scheduler, j.id,
                 sc.llms[static_cast<size_t>(j.model)].name, j.stages, j.gpus_per_stage, regions, j.arrival_s,
                 j.start_s, j.finish_s, j.iterations, j.mean_iteration_s, j.first_iteration_s, j.energy_j, j.cost_usd,
                 j.cross_region_bytes);
    }
}

}  // namespace geopipe::cli
