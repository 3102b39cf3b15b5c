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
#include "config/sweep_loader.h"
#include "sweep/h5store.h"
#include "sweep/output.h"
#include "sweep/replication.h"
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

/// A group-by column: a numeric or a text axis.
struct ByCol {
  std::string name;
  int num = -1, txt = -1;
};

/// The rows of one group: per scheduler and metric the values, and per (point, seed) pair the
/// row of each scheduler.
struct Group {
  std::string key;  ///< "axis=value  axis=value", "" without --by
  std::map<std::string, std::vector<std::vector<double>>> values;
  std::map<std::pair<double, double>, std::map<std::string, size_t>> pairs;
};

class Summary {
 public:
  Summary(const SummarizeOptions& opt, Table t) : opt_(opt), t_(std::move(t)) {
    resolve_keys();
    resolve_by();
    resolve_metrics();
    resolve_schedulers();
    group_rows();
  }

  void print(std::ostream& os) const {
    fmt::print(os, "{}: {} scenarios with metrics; mean ± 95% CI over the (point, seed) runs of each group; change = paired relative difference vs {}\n",
               opt_.file, rows(), base_);
    for (const Group& g : groups_) print_group(os, g);
  }

 private:
  size_t rows() const { return t_.numeric[static_cast<size_t>(c_id_)].size(); }
  double num(int col, size_t row) const { return t_.numeric[static_cast<size_t>(col)][row]; }
  const std::string& scheduler(size_t row) const { return t_.text[static_cast<size_t>(c_sched_)][row]; }

  void resolve_keys() {
    c_id_ = find(t_.names, "id");
    c_point_ = find(t_.names, "point");
    c_seed_ = find(t_.names, "seed");
    c_sched_ = find(t_.text_names, "scheduler");
    if (c_id_ < 0 || c_point_ < 0 || c_seed_ < 0 || c_sched_ < 0)
      throw InputError(opt_.file, 0, 0, "not a geopipe result file (missing columns)");
  }

  void resolve_by() {
    for (const auto& b : opt_.by) {
      ByCol c{b, find(t_.names, b), find(t_.text_names, b)};
      if ((c.num < 0 && c.txt < 0) || b == "id" || b == "scheduler") {
        std::vector<std::string> axes;
        for (const auto& n : t_.names)
          if (n.find('.') != std::string::npos) axes.push_back(n);
        for (const auto& n : t_.text_names)
          if (n.find('.') != std::string::npos) axes.push_back(n);
        throw InputError("--by", 0, 0, "'" + b + "' is not an axis of this sweep" + config::suggestion_suffix(b, axes));
      }
      by_.push_back(c);
    }
  }

  void resolve_metrics() {
    metrics_ = opt_.metrics.empty() ? std::vector<std::string>{"avg_jct_s", "total_cost_usd"} : opt_.metrics;
    for (const auto& m : metrics_) {
      const MetricDef* def = find_metric(m);
      const int c = find(t_.names, m);
      if (!def || c < 0) {
        std::vector<std::string> known;
        for (const MetricDef& d : metric_defs())
          if (find(t_.names, d.name) >= 0) known.emplace_back(d.name);
        throw InputError("--metric", 0, 0,
                         "unknown metric '" + m + "'" +
                             (def ? std::string(" (not in this file: written by an older geopipe?)")
                                  : config::suggestion_suffix(m, known) + " (expected one of: " +
                                        config::quoted_list(known, known.size()) + ")"));
      }
      mcol_.push_back(c);
      mdef_.push_back(def);
    }
  }

  /// Scheduler order: as first seen (ids follow the sweep's scheduler order); the baseline.
  void resolve_schedulers() {
    for (size_t row = 0; row < rows(); ++row)
      if (std::find(scheds_.begin(), scheds_.end(), scheduler(row)) == scheds_.end()) scheds_.push_back(scheduler(row));
    base_ = opt_.baseline.empty() ? (scheds_.empty() ? "" : scheds_.front()) : opt_.baseline;
    if (!scheds_.empty() && std::find(scheds_.begin(), scheds_.end(), base_) == scheds_.end())
      throw InputError("--baseline", 0, 0,
                       "scheduler '" + base_ + "' is not in this file" + config::suggestion_suffix(base_, scheds_));
  }

  std::string group_key(size_t row) const {
    std::string k;
    for (const ByCol& b : by_) {
      if (!k.empty()) k += "  ";
      k += b.name + "=";
      k += b.num >= 0 ? fmt::format("{:g}", num(b.num, row)) : t_.text[static_cast<size_t>(b.txt)][row];
    }
    return k;
  }

  /// Groups in order of first appearance (i.e. by id).
  void group_rows() {
    std::map<std::string, size_t> index;
    for (size_t row = 0; row < rows(); ++row) {
      const std::string key = group_key(row);
      auto [it, fresh] = index.emplace(key, groups_.size());
      if (fresh) groups_.push_back(Group{key, {}, {}});
      Group& g = groups_[it->second];
      auto& v = g.values[scheduler(row)];
      v.resize(metrics_.size());
      for (size_t m = 0; m < metrics_.size(); ++m) v[m].push_back(num(mcol_[m], row));
      g.pairs[{num(c_point_, row), num(c_seed_, row)}][scheduler(row)] = row;
    }
  }

  void print_group(std::ostream& os, const Group& g) const {
    if (!g.key.empty()) fmt::print(os, "\n[{}]\n", g.key);
    else fmt::print(os, "\n");
    fmt::print(os, "{:<20} {:>4}", "scheduler", "n");
    for (const auto& m : metrics_) fmt::print(os, "  {:>24} {:>20}", m, "change");
    fmt::print(os, "\n");
    for (const auto& s : scheds_) {
      auto it = g.values.find(s);
      if (it == g.values.end()) continue;
      fmt::print(os, "{:<20} {:>4}", s, it->second[0].size());
      for (size_t m = 0; m < metrics_.size(); ++m) {
        const MeanCi mc = mean_ci(it->second[m]);
        fmt::print(os, "  {:>24}", fmt::format("{} ± {}", fmt_value(*mdef_[m], mc.mean), fmt_value(*mdef_[m], mc.half_width)));
        fmt::print(os, " {:>20}", s == base_ ? std::string("baseline") : paired_change(g, s, m));
      }
      fmt::print(os, "\n");
    }
  }

  /// Mean and 95% CI of 100·(s / baseline − 1) over the group's (point, seed) pairs.
  std::string paired_change(const Group& g, const std::string& s, size_t m) const {
    std::vector<double> rel;
    for (const auto& [key, rows] : g.pairs) {
      auto a = rows.find(s), b = rows.find(base_);
      if (a == rows.end() || b == rows.end()) continue;
      const double vb = num(mcol_[m], b->second), va = num(mcol_[m], a->second);
      if (vb != 0 && std::isfinite(va) && std::isfinite(vb)) rel.push_back(100.0 * (va / vb - 1.0));
    }
    if (rel.empty()) return "n/a";
    const MeanCi rc = mean_ci(rel);
    return fmt::format("{:+.1f}% ± {:.1f}%", rc.mean, rc.half_width);
  }

  const SummarizeOptions& opt_;
  const Table t_;
  int c_id_ = -1, c_point_ = -1, c_seed_ = -1, c_sched_ = -1;
  std::vector<ByCol> by_;
  std::vector<std::string> metrics_;
  std::vector<int> mcol_;
  std::vector<const MetricDef*> mdef_;
  std::vector<std::string> scheds_;
  std::string base_;
  std::vector<Group> groups_;
};

}  // namespace

namespace {

const char* state_name(PrecisionState s) {
  switch (s) {
    case PrecisionState::kRunning: return "running";
    case PrecisionState::kConverged: return "reached";
    case PrecisionState::kMaxSeeds: return "max seeds";
    case PrecisionState::kFailed: return "failed";
  }
  return "?";
}

/// The precision a precision-driven sweep reached per point: the rounds replayed on the file's
/// rows (sweep/replication.h), as the runner decided them.
void print_precision(const SummarizeOptions& opt, const Table& t, const StoreMeta& meta, std::ostream& os) {
  const auto rule = config::replication_rule_of(meta.sweep_toml, meta.schedulers);
  if (!rule) {
    if (opt.precision) os << "precision: this sweep has a fixed number of seeds (no seeds = { min, max, rel_ci } rule)\n";
    return;
  }
  const int c_point = find(t.names, "point"), c_seed = find(t.names, "seed"), c_metric = find(t.names, rule->metric);
  const int c_sched = find(t.text_names, "scheduler");
  if (c_point < 0 || c_seed < 0 || c_metric < 0 || c_sched < 0) return;
  std::uint64_t points = 0;
  for (const double p : t.numeric[static_cast<size_t>(c_point)]) points = std::max(points, static_cast<std::uint64_t>(p) + 1);
  Replication rep(*rule, points, meta.schedulers);
  const auto& sched = t.text[static_cast<size_t>(c_sched)];
  for (size_t row = 0; row < sched.size(); ++row) {
    const auto s = std::find(meta.schedulers.begin(), meta.schedulers.end(), sched[row]);
    if (s == meta.schedulers.end()) continue;
    rep.record(static_cast<std::uint64_t>(t.numeric[static_cast<size_t>(c_point)][row]),
               static_cast<std::uint64_t>(t.numeric[static_cast<size_t>(c_seed)][row]) - 1,
               static_cast<std::uint64_t>(s - meta.schedulers.begin()), true, t.numeric[static_cast<size_t>(c_metric)][row]);
  }
  while (rep.round_complete() && rep.next_round() > 0) {
  }
  const std::string quantity = rule->paired_vs.empty() ? rule->metric : rule->metric + " change vs " + rule->paired_vs;
  fmt::print(os,
             "precision: seeds {}..{} per point until the {:g}% CI half-width of {} is <= {:g}% of |mean|{}: {} points, "
             "{} reached it, {} ran out of seeds, {} failed, {} still running{}\n",
             rule->min, rule->max, 100 * rule->confidence, quantity, 100 * rule->rel_ci,
             rule->abs_ci > 0 ? fmt::format(" or <= {:g}", rule->abs_ci) : std::string(), points,
             rep.count(PrecisionState::kConverged), rep.count(PrecisionState::kMaxSeeds), rep.count(PrecisionState::kFailed),
             rep.count(PrecisionState::kRunning),
             rep.count(PrecisionState::kRunning) > 0 ? " (the sweep is not finished: geopipe sweep --resume)" : "");
  if (!opt.precision) return;
  fmt::print(os, "{:>8} {:>6} {:>14} {:>14} {:>9}  {}\n", "point", "seeds", "mean", "half_width", "rel", "state");
  for (std::uint64_t p = 0; p < points; ++p) {
    const PointPrecision& pp = rep.precision(p);
    if (pp.state == PrecisionState::kRunning) {
      fmt::print(os, "{:>8} {:>6} {:>14} {:>14} {:>9}  {}\n", p, rep.allowance(p), "", "", "", state_name(pp.state));
      continue;
    }
    fmt::print(os, "{:>8} {:>6} {:>14.6g} {:>14.6g} {:>8.2f}%  {}\n", p, pp.seeds, pp.mean, pp.half_width,
               100 * pp.rel_half_width, state_name(pp.state));
  }
}

}  // namespace

void summarize(const SummarizeOptions& opt, std::ostream& os) {
  const Table t = read_results(opt.file);
  Summary(opt, t).print(os);
  print_precision(opt, t, ResultStore::read(opt.file).meta, os);
}

}  // namespace geopipe::sweep
