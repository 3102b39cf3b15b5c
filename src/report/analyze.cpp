// `geopipe analyze` (report/analyze.h).
#include "report/analyze.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/saltelli_layout.h"
#include "sim/metrics.h"
#include "results/output.h"
#include "results/result_table.h"
#include "util/input_error.h"

namespace geopipe::sweep {
namespace {

std::string quoted_join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "'" : ", '") + x + "'";
  return s;
}

/// The Saltelli blocks per sample (2D + 2 or D + 2) whose structure `unit` has, or 0.
std::size_t saltelli_block(const std::vector<double>& unit, std::size_t d, std::size_t points) {
  for (const bool second_order : {true, false}) {
    const analysis::SaltelliLayout layout{d, second_order};
    const std::size_t k = layout.points_per_sample();
    if (points == 0 || layout.samples(points) == 0) continue;
    bool ok = true;
    for (std::size_t i = 0; ok && i < layout.samples(points); ++i) {
      const double* a = &unit[layout.a(i) * d];
      const double* b = &unit[layout.b(i) * d];
      for (std::size_t blk = 1; ok && blk + 1 < k; ++blk) {
        const double* row = &unit[layout.point(i, blk) * d];
        for (std::size_t c = 0; ok && c < d; ++c) ok = row[c] == (layout.from_b(blk, c) ? b[c] : a[c]);
      }
    }
    if (ok) return k;
  }
  return 0;
}

/// Every result the indices need is there: the design matrix covers the sweep's points, no
/// scenario of the analysed scheduler(s) failed, and (fixed seeds) every point has every seed.
/// InputError saying what is missing and what to do, otherwise.
void check_complete(const AnalyzeReport& r, const MetricByScenario& data, std::size_t points, std::uint32_t s_mine,
                    std::uint32_t s_base) {
  const std::string& path = r.options.file;
  const DesignTable& design = data.design;
  if (data.scenario_points != points)
    throw InputError(path, 0, 0, "damaged result file: /design has " + std::to_string(points) + " rows but /scenarios has " +
                                     std::to_string(data.scenario_points) + " points (expected one design row per point: "
                                     "re-run the sweep into a new file, or use a copy)");
  const bool paired = s_base != UINT32_MAX;
  const std::string who = paired ? r.options.scheduler + " and " + r.options.paired_vs : r.options.scheduler;
  std::size_t failed = 0;
  const MetricByScenario::Failed* first = nullptr;
  for (const auto& f : data.failed)
    if (f.scheduler == s_mine || f.scheduler == s_base)
      if (failed++ == 0) first = &f;
  if (failed > 0)
    throw InputError(path, 0, 0,
                     std::to_string(failed) + " scenario" + (failed == 1 ? "" : "s") + " of " + who +
                         " failed (rows in /errors; the first: point " + std::to_string(first->point) + ", seed " +
                         std::to_string(first->seed) + ", " + design.schedulers[first->scheduler] + ": " +
                         util::shortened_text(first->message, 300) +
                         "): the indices need every scenario's result, and a failed scenario fails again when rerun "
                         "(expected a sweep whose scenarios all ran: remove the cause of the failure)");
  const std::uint64_t cells = static_cast<std::uint64_t>(points) * design.schedulers.size();
  if (design.replication || cells == 0 || design.total_scenarios % cells != 0) return;  // seeds vary by design
  const std::uint64_t seeds = design.total_scenarios / cells;
  std::vector<std::uint64_t> have_mine(points, 0), have_base(points, 0);
  for (std::size_t i = 0; i < data.point.size(); ++i) {
    const std::int64_t p = data.point[i];
    if (p < 0 || static_cast<std::uint64_t>(p) >= points) continue;
    if (data.scheduler[i] == s_mine) ++have_mine[static_cast<std::size_t>(p)];
    if (data.scheduler[i] == s_base) ++have_base[static_cast<std::size_t>(p)];
  }
  std::uint64_t missing = 0;
  std::size_t first_point = 0;
  for (std::size_t p = 0; p < points; ++p) {
    const std::uint64_t m = (have_mine[p] < seeds ? seeds - have_mine[p] : 0) + (paired && have_base[p] < seeds ? seeds - have_base[p] : 0);
    if (m > 0 && missing == 0) first_point = p;
    missing += m;
  }
  if (missing == 0) return;
  throw InputError(path, 0, 0,
                   std::to_string(missing) + (missing == 1 ? " scenario of " : " scenarios of ") + who +
                       (missing == 1 ? " has" : " have") + " no result (the first at point " + std::to_string(first_point) +
                       "; the file holds results of " + std::to_string(data.point.size() + data.failed.size()) + " of " +
                       std::to_string(design.total_scenarios) + " scenarios" +
                       (!design.shard.empty() ? ": it is shard " + design.shard + " of the sweep: geopipe merge the shards first"
                        : design.complete ? std::string()
                                          : std::string(": finish it with geopipe sweep --resume")) +
                       "): the indices need every seed of every point");
}

}  // namespace

AnalyzeReport analyze(const AnalyzeOptions& options) {
  AnalyzeReport r;
  r.options = options;
  const std::string& path = options.file;
  std::string& metric_name = r.options.metric;
  const bool default_metric = metric_name.empty();
  if (default_metric) metric_name = "avg_jct_s";
  if (!find_metric(metric_name)) {
    std::vector<std::string> names;
    for (const MetricDef& m : metric_defs()) names.emplace_back(m.name);
    throw InputError("--metric", 0, 0, "unknown metric '" + metric_name + "' (expected one of " + quoted_join(names) + ")");
  }
  MetricByScenario data = read_metric(path, metric_name);
  if (default_metric && data.design.evaluator == metric_source_name(MetricSource::kTestFunction)) {
    metric_name = "value";  // the default of a test function's file: its value
    data = read_metric(path, metric_name);
  }
  const MetricDef* metric = find_metric(metric_name);
  if (metric_source_name(metric->source) != data.design.evaluator)
    throw InputError("--metric", 0, 0,
                     data.design.evaluator == metric_source_name(MetricSource::kTestFunction)
                         ? "'" + metric_name + "' is a simulation's metric, but " + path +
                               " holds a test function's values (expected --metric value, the default)"
                         : "'" + metric_name + "' is a test function's metric, but " + path +
                               " holds a simulation's results (expected a simulation's metric, e.g. avg_jct_s, the default)");
  const DesignTable& design = data.design;
  if (design.design != options.method)
    throw InputError(path, 0, 0, "analyze " + options.method + " needs the result file of a design = \"" + options.method +
                                     "\" sweep, but this file's sweep has design = \"" + design.design + "\"" +
                                     (design.design == "sobol" || design.design == "morris" || design.design == "oat"
                                          ? " (use: geopipe analyze " + design.design + " " + path + ")"
                                          : ""));
  std::string& sched = r.options.scheduler;
  if (sched.empty()) sched = design.schedulers.front();
  for (const std::string* s : {&sched, &r.options.paired_vs}) {
    if (s->empty() || std::find(design.schedulers.begin(), design.schedulers.end(), *s) != design.schedulers.end()) continue;
    throw InputError(s == &sched ? "--scheduler" : "--paired-vs", 0, 0,
                     "scheduler '" + *s + "' is not in " + path + " (expected one of " + quoted_join(design.schedulers) + ")");
  }
  const bool paired = !r.options.paired_vs.empty();
  if (paired && r.options.paired_vs == sched)
    throw InputError("--paired-vs", 0, 0, "--paired-vs " + sched + " is the analysed scheduler itself (expected another scheduler of the file)");
  r.factors = design.factors;
  const std::size_t d = design.factors.size();
  const std::size_t points = design.unit.size() / std::max<std::size_t>(d, 1);
  r.points = points;
  r.quantity = paired ? "paired change of " + metric_name + ", " + sched + " / " + r.options.paired_vs + " - 1"
                      : metric_name + " of " + sched;
  r.unit = paired ? "" : metric->unit;

  // The metric per (point, seed) of the analysed scheduler and, if paired, of the baseline,
  // each point's seeds in ascending order.
  const auto index_of = [&](const std::string& name) {
    return static_cast<std::uint32_t>(std::find(design.schedulers.begin(), design.schedulers.end(), name) -
                                      design.schedulers.begin());
  };
  const std::uint32_t s_mine = index_of(sched), s_base = paired ? index_of(r.options.paired_vs) : UINT32_MAX;
  std::vector<std::vector<std::pair<std::uint64_t, double>>> mine(points), base(points);
  const bool affected = metric_leaves_out_unfinished_jobs(metric_name);
  std::size_t first_unfinished = SIZE_MAX;
  for (std::size_t i = 0; i < data.point.size(); ++i) {
    const std::int64_t p = data.point[i];
    if (p < 0 || static_cast<std::uint64_t>(p) >= points) continue;
    if (affected && data.unfinished[i] && (data.scheduler[i] == s_mine || data.scheduler[i] == s_base)) {
      if (r.unfinished_scenarios++ == 0) first_unfinished = i;
    }
    if (data.scheduler[i] == s_mine) mine[static_cast<std::size_t>(p)].emplace_back(data.seed[i], data.value[i]);
    else if (data.scheduler[i] == s_base) base[static_cast<std::size_t>(p)].emplace_back(data.seed[i], data.value[i]);
  }
  if (r.unfinished_scenarios > 0 && !options.allow_unfinished)
    throw InputError(path, 0, 0,
                     std::to_string(r.unfinished_scenarios) + (r.unfinished_scenarios == 1 ? " scenario of " : " scenarios of ") +
                         (paired ? sched + " and " + r.options.paired_vs : sched) +
                         " left jobs unfinished (the first: point " + std::to_string(data.point[first_unfinished]) +
                         ", seed " + std::to_string(data.seed[first_unfinished]) + ", " +
                         design.schedulers[data.scheduler[first_unfinished]] + "), and " + metric_name +
                         " leaves those jobs out: the indices would describe the survivors (results of an older model "
                         "version; since model version 2 such a run fails instead: rerun the sweep with this geopipe, or pass "
                         "--allow-unfinished to analyse them anyway, flagged)");
  for (std::size_t p = 0; p < points; ++p) {
    std::sort(mine[p].begin(), mine[p].end());
    std::sort(base[p].begin(), base[p].end());
  }
  check_complete(r, data, points, s_mine, s_base);
  std::vector<double> y(points);
  std::size_t missing = 0, first_missing = 0;
  double se2_sum = 0;
  std::size_t se_points = 0;
  r.noise.seeds_min = SIZE_MAX;
  std::vector<std::vector<std::pair<std::uint64_t, double>>> by_seed(points);  // per point: (seed, value)
  for (std::size_t p = 0; p < points; ++p) {
    std::vector<double> v;
    for (const auto& [seed, m] : mine[p]) {
      if (!paired) {
        v.push_back(m);
        by_seed[p].emplace_back(seed, m);
        continue;
      }
      const auto b = std::lower_bound(base[p].begin(), base[p].end(), std::make_pair(seed, -HUGE_VAL));
      if (b != base[p].end() && b->first == seed) {
        v.push_back(m / b->second - 1);
        by_seed[p].emplace_back(seed, v.back());
      }
    }
    if (v.empty()) {
      if (missing++ == 0) first_missing = p;
      continue;
    }
    double mean = 0;
    for (const double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    if (!std::isfinite(mean))
      throw InputError(path, 0, 0, "point " + std::to_string(p) + " has a non-finite " + r.quantity +
                                       " (e.g. no job completed, or a baseline of 0): the indices need a finite value at every point");
    y[p] = mean;
    r.noise.seeds_min = std::min(r.noise.seeds_min, v.size());
    r.noise.seeds_max = std::max(r.noise.seeds_max, v.size());
    if (v.size() >= 2) {
      double ss = 0;
      for (const double x : v) ss += (x - mean) * (x - mean);
      se2_sum += ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size());
      ++se_points;
    }
  }
  if (missing > 0)
    throw InputError(path, 0, 0, std::to_string(missing) + " of " + std::to_string(points) + " points have no result for " +
                                     (paired ? "both " + sched + " and " + r.options.paired_vs + " at one seed" : sched) +
                                     " (the first: point " + std::to_string(first_missing) + "; the file holds " +
                                     std::to_string(design.num_scenarios) + " of " + std::to_string(design.total_scenarios) +
                                     " scenarios" + (design.complete ? "" : ": finish it with geopipe sweep --resume") +
                                     "); analyze " + options.method + " needs every point");
  double mean = 0;
  for (const double v : y) mean += v;
  mean /= static_cast<double>(std::max<std::size_t>(points, 1));
  double var = 0;
  for (const double v : y) var += (v - mean) * (v - mean);
  r.noise.variance = var / static_cast<double>(std::max<std::size_t>(points, 1));
  r.noise.rms_standard_error = se_points == points ? std::sqrt(se2_sum / static_cast<double>(points)) : std::nan("");
  // With the same seeds at every point (the usual case: seeds 1..n), part of the seed noise is
  // common to all points (a seed with many large jobs raises every point) and does not blur the
  // differences between points that the indices measure. Remove it: the residuals of the
  // additive model point + seed, e = x_ps - mean_p - mean_s + mean, pooled over (P-1)(n-1)
  // degrees of freedom, give the point-specific standard error sqrt(s^2 / n).
  r.noise.point_standard_error = std::nan("");
  bool common = points >= 2 && r.noise.seeds_min >= 2 && r.noise.seeds_min == r.noise.seeds_max;
  for (std::size_t p = 1; common && p < points; ++p)
    for (std::size_t k = 0; common && k < by_seed[p].size(); ++k) common = by_seed[p][k].first == by_seed[0][k].first;
  if (common) {
    const std::size_t n = r.noise.seeds_min;
    std::vector<double> seed_mean(n, 0.0);
    for (std::size_t p = 0; p < points; ++p)
      for (std::size_t k = 0; k < n; ++k) seed_mean[k] += by_seed[p][k].second / static_cast<double>(points);
    double ss = 0;
    for (std::size_t p = 0; p < points; ++p)
      for (std::size_t k = 0; k < n; ++k) {
        const double e = by_seed[p][k].second - y[p] - seed_mean[k] + mean;
        ss += e * e;
      }
    const double s2 = ss / (static_cast<double>(points - 1) * static_cast<double>(n - 1));
    r.noise.point_standard_error = std::sqrt(s2 / static_cast<double>(n));
  }

  if (points > 0 && std::all_of(y.begin(), y.end(), [&](double v) { return v == y.front(); })) {
    r.constant = true;  // Var(y) = 0: no index is defined
    r.constant_value = y.front();
    return r;
  }
  try {
    if (options.method == "sobol") {
      const std::size_t k = saltelli_block(design.unit, d, points);
      if (k == 0)
        throw InputError(path, 0, 0, "/design is not a Saltelli design of " + std::to_string(d) +
                                         " factors (expected blocks of 2D + 2 or D + 2 points: A, AB_j, [BA_j], B)");
      r.second_order = k == 2 * d + 2;
      r.sobol = analysis::sobol_indices(y, d, r.second_order, options.bootstrap);
    } else if (options.method == "morris") {
      r.morris = analysis::morris_indices(design.unit, y, d, options.bootstrap);
    } else if (options.method == "oat") {
      r.base_value = y.at(0);
      r.oat = analysis::oat_effects(design.unit, y, d);
    } else {
      throw std::logic_error("analyze: unknown method " + options.method);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, 0, std::string("cannot analyse its design: ") + e.what());
  }
  return r;
}

}  // namespace geopipe::sweep
