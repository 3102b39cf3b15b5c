#include "sweep/summarize.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "config/error.h"
#include "util/input_error.h"
#include "sim/metrics.h"
#include "sweep/output.h"
#include "sweep/stats.h"

namespace geopipe::sweep {
namespace {

int find(const std::vector<std::string>& names, const std::string& n) {
  auto it = std::find(names.begin(), names.end(), n);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

/// A value in the metric's display unit (sim/metrics.h): "1.05 h", "3.2 MWh", "1234".
std::string fmt_value(const MetricDef& metric, double v) {
  const DisplayValue d = display_value(metric, v);
  if (metric.display == MetricDisplay::kPlain) return fmt::format("{:.4g}", d.value);
  return fmt::format("{:.3g} {}", d.value, d.unit);
}

}  // namespace

void summarize(const SummarizeOptions& opt, std::ostream& os) {
  const Table t = read_results(opt.file);
  const int c_id = find(t.names, "id"), c_point = find(t.names, "point"), c_seed = find(t.names, "seed");
  const int c_sched = find(t.text_names, "scheduler");
  if (c_id < 0 || c_point < 0 || c_seed < 0 || c_sched < 0) throw InputError(opt.file, 0, 0, "not a geopipe result file (missing columns)");
  const auto& sched = t.text[static_cast<size_t>(c_sched)];
  // Group-by columns: numeric or text axes.
  struct ByCol {
    std::string name;
    int num = -1, txt = -1;
  };
  std::vector<ByCol> by;
  for (const auto& b : opt.by) {
    ByCol c{b, find(t.names, b), find(t.text_names, b)};
    if ((c.num < 0 && c.txt < 0) || b == "id" || b == "scheduler") {
      std::vector<std::string> axes;
      for (const auto& n : t.names)
        if (n.find('.') != std::string::npos) axes.push_back(n);
      for (const auto& n : t.text_names)
        if (n.find('.') != std::string::npos) axes.push_back(n);
      const std::string hint = config::suggestion_suffix(b, axes);
      throw InputError("--by", 0, 0, "'" + b + "' is not an axis of this sweep" + hint);
    }
    by.push_back(c);
  }
  std::vector<std::string> metrics = opt.metrics.empty() ? std::vector<std::string>{"avg_jct_s", "total_cost_usd"} : opt.metrics;
  std::vector<int> mcol;
  std::vector<const MetricDef*> mdef;
  for (const auto& m : metrics) {
    const MetricDef* def = find_metric(m);
    const int c = find(t.names, m);
    if (!def || c < 0) {
      std::vector<std::string> known;
      for (const MetricDef& d : metric_defs())
        if (find(t.names, d.name) >= 0) known.emplace_back(d.name);
      throw InputError("--metric", 0, 0,
                       "unknown metric '" + m + "'" +
                           (def ? std::string(" (not in this file: written by an older geopipe?)")
                                : config::suggestion_suffix(m, known)));
    }
    mcol.push_back(c);
    mdef.push_back(def);
  }
  // Scheduler order: as first seen (ids follow the sweep's scheduler order).
  std::vector<std::string> scheds;
  for (const auto& s : sched)
    if (std::find(scheds.begin(), scheds.end(), s) == scheds.end()) scheds.push_back(s);
  const std::string base = opt.baseline.empty() ? (scheds.empty() ? "" : scheds.front()) : opt.baseline;
  if (!scheds.empty() && std::find(scheds.begin(), scheds.end(), base) == scheds.end())
    throw InputError("--baseline", 0, 0, "scheduler '" + base + "' is not in this file" + config::suggestion_suffix(base, scheds));

  const size_t n = t.numeric[static_cast<size_t>(c_id)].size();
  auto group_key = [&](size_t row) {
    std::string k;
    for (const ByCol& b : by) {
      if (!k.empty()) k += "  ";
      k += b.name + "=";
      k += b.num >= 0 ? fmt::format("{:g}", t.numeric[static_cast<size_t>(b.num)][row]) : t.text[static_cast<size_t>(b.txt)][row];
    }
    return k;
  };
  // Groups in order of first appearance (i.e. by id).
  std::vector<std::string> groups;
  std::map<std::string, size_t> gidx;
  // values[group][scheduler][metric] -> per-row values; pair key (point, seed) -> row per scheduler
  std::vector<std::map<std::string, std::vector<std::vector<double>>>> vals;
  std::vector<std::map<std::pair<double, double>, std::map<std::string, size_t>>> pairs;
  for (size_t row = 0; row < n; ++row) {
    const std::string g = group_key(row);
    auto [it, fresh] = gidx.emplace(g, groups.size());
    if (fresh) {
      groups.push_back(g);
      vals.emplace_back();
      pairs.emplace_back();
    }
    auto& v = vals[it->second][sched[row]];
    v.resize(metrics.size());
    for (size_t m = 0; m < metrics.size(); ++m) v[m].push_back(t.numeric[static_cast<size_t>(mcol[m])][row]);
    pairs[it->second][{t.numeric[static_cast<size_t>(c_point)][row], t.numeric[static_cast<size_t>(c_seed)][row]}][sched[row]] = row;
  }
  fmt::print(os, "{}: {} scenarios with metrics; mean ± 95% CI over the (point, seed) runs of each group; change = paired relative difference vs {}\n",
             opt.file, n, base);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (!groups[gi].empty()) fmt::print(os, "\n[{}]\n", groups[gi]);
    else fmt::print(os, "\n");
    fmt::print(os, "{:<20} {:>4}", "scheduler", "n");
    for (const auto& m : metrics) fmt::print(os, "  {:>24} {:>20}", m, "change");
    fmt::print(os, "\n");
    for (const auto& s : scheds) {
      auto it = vals[gi].find(s);
      if (it == vals[gi].end()) continue;
      fmt::print(os, "{:<20} {:>4}", s, it->second[0].size());
      for (size_t m = 0; m < metrics.size(); ++m) {
        const MeanCi mc = mean_ci(it->second[m]);
        fmt::print(os, "  {:>24}", fmt::format("{} ± {}", fmt_value(*mdef[m], mc.mean), fmt_value(*mdef[m], mc.half_width)));
        if (s == base) {
          fmt::print(os, " {:>20}", "baseline");
          continue;
        }
        std::vector<double> rel;
        for (const auto& [key, rows] : pairs[gi]) {
          auto a = rows.find(s), b = rows.find(base);
          if (a == rows.end() || b == rows.end()) continue;
          const double vb = t.numeric[static_cast<size_t>(mcol[m])][b->second];
          const double va = t.numeric[static_cast<size_t>(mcol[m])][a->second];
          if (vb != 0 && std::isfinite(va) && std::isfinite(vb)) rel.push_back(100.0 * (va / vb - 1.0));
        }
        const MeanCi rc = mean_ci(rel);
        fmt::print(os, " {:>20}", rel.empty() ? std::string("n/a") : fmt::format("{:+.1f}% ± {:.1f}%", rc.mean, rc.half_width));
      }
      fmt::print(os, "\n");
    }
  }
}

}  // namespace geopipe::sweep
