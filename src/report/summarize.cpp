#include "report/summarize.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sweepfile/loader.h"
#include "sim/metrics.h"
#include "results/output.h"
#include "plan/replication.h"
#include "analysis/stats.h"
#include "util/csv.h"
#include "util/input_error.h"

namespace geopipe::sweep {
namespace {

using Json = nlohmann::ordered_json;

int find(const std::vector<std::string>& names, const std::string& n) {
  auto it = std::find(names.begin(), names.end(), n);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

using util::csv_field;
using util::csv_number;
using analysis::MeanCi;
using analysis::mean_ci;

/// A group-by column: a numeric or a text axis.
struct ByCol {
  std::string name;
  int num = -1, txt = -1;
};

/// The statistics of one metric of one scheduler in one group.
struct Cell {
  MeanCi value;             ///< over the group's (point, seed) runs, SI unit
  std::size_t pairs = 0;    ///< (point, seed) pairs with the baseline
  double change = NAN;      ///< mean over the pairs of scheduler / baseline - 1
  double change_ci = NAN;   ///< its 95% CI half-width (Student t)
  double ratio = NAN;       ///< mean(scheduler) / mean(baseline) - 1 over the pairs
  double ratio_ci = NAN;    ///< its 95% CI half-width (delta method, Student t)
};

/// The rows of one group: per scheduler and metric the values, and per (point, seed) pair the
/// row of each scheduler.
struct Group {
  std::string key;                    ///< "point 3: axis=value ...", "axis=value  axis=value", or "" (pooled)
  std::vector<std::pair<std::string, std::string>> fields;  ///< the key as (name, value)
  std::map<std::string, std::vector<std::vector<double>>> values;
  std::map<std::pair<double, double>, std::map<std::string, size_t>> pairs;
  std::map<std::string, std::vector<Cell>> cells;  ///< per scheduler, per metric
  std::map<std::string, std::size_t> unfinished;   ///< per scheduler: runs that left jobs unfinished
};

/// Mean-of-ratios and ratio-of-means changes of `a` against `b`, paired.
void paired_stats(const std::vector<double>& a, const std::vector<double>& b, Cell& c) {
  c.pairs = a.size();
  if (a.empty()) return;
  std::vector<double> rel(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) rel[i] = a[i] / b[i] - 1.0;
  const MeanCi r = mean_ci(rel);
  c.change = r.mean;
  c.change_ci = a.size() >= 2 ? r.half_width : NAN;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= static_cast<double>(a.size());
  mb /= static_cast<double>(a.size());
  const double ratio = ma / mb;
  c.ratio = ratio - 1.0;
  if (a.size() >= 2 && mb != 0) {
    // Delta method: ratio - R ~ mean(d) with d_i = (a_i - R b_i) / mean(b), paired.
    std::vector<double> d(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) d[i] = (a[i] - ratio * b[i]) / mb;
    c.ratio_ci = mean_ci(d).half_width;
  }
}

class Summary {
 public:
  Summary(const SummarizeOptions& opt, Table t, const StoreMeta& meta, std::uint64_t failed)
      : opt_(opt), t_(std::move(t)), meta_(meta), failed_(failed) {
    resolve_keys();
    resolve_by();
    resolve_metrics();
    resolve_schedulers();
    resolve_unfinished();
    group_rows();
    compute();
  }

  void print(std::ostream& os) const {
    if (opt_.format == "csv") return print_csv(os);
    if (opt_.format == "json") return print_json(os, Json(nullptr));
    print_table(os);
  }

  /// The summary as JSON, with `precision` (null for a sweep of fixed seeds) as its key of that name.
  void print_json(std::ostream& os, Json precision) const { print_json_impl(os, std::move(precision)); }

 private:
  size_t rows() const { return t_.numeric[static_cast<size_t>(c_id_)].size(); }
  double num(int col, size_t row) const { return t_.numeric[static_cast<size_t>(col)][row]; }
  const std::string& scheduler(size_t row) const { return t_.text[static_cast<size_t>(c_sched_)][row]; }
  std::string pm() const { return opt_.plain ? "+-" : "\u00b1"; }

  void resolve_keys() {
    c_id_ = find(t_.names, "id");
    c_point_ = find(t_.names, "point");
    c_seed_ = find(t_.names, "seed");
    c_sched_ = find(t_.text_names, "scheduler");
    if (c_id_ < 0 || c_point_ < 0 || c_seed_ < 0 || c_sched_ < 0)
      throw InputError(opt_.file, 0, 0, "not a geopipe result file (missing columns)");
  }

  /// The swept parameters of the file (its /scenarios parameter columns).
  std::vector<std::string> axes() const {
    std::vector<std::string> a;
    for (const auto& n : t_.names)
      if (n.find('.') != std::string::npos) a.push_back(n);
    for (const auto& n : t_.text_names)
      if (n.find('.') != std::string::npos) a.push_back(n);
    return a;
  }

  void resolve_by() {
    if (opt_.pool && !opt_.by.empty())
      throw InputError("--pool", 0, 0, "--pool and --by exclude each other (expected one way of grouping)");
    for (const auto& b : opt_.by) {
      ByCol c{b, find(t_.names, b), find(t_.text_names, b)};
      if ((c.num < 0 && c.txt < 0) || b == "id" || b == "scheduler") {
        const std::vector<std::string> a = axes();
        throw InputError("--by", 0, 0,
                         "'" + b + "' is not an axis of this sweep" + util::suggestion_suffix(b, a) +
                             (a.empty() ? std::string(" (it has none)")
                                        : " (expected one of " + util::quoted_list(a, a.size()) + ")"));
      }
      by_.push_back(c);
    }
  }

  void resolve_metrics() {
    // The metrics of what produced the file's rows (StoreMeta::evaluator): a simulation's, or a
    // test function's value.
    const std::string& evaluator = meta_.evaluator;
    const bool of_function = evaluator == metric_source_name(MetricSource::kTestFunction);
    const std::vector<std::string> defaults =
        of_function ? std::vector<std::string>{"value"} : std::vector<std::string>{"avg_jct_s", "total_cost_usd"};
    metrics_ = opt_.metrics.empty() ? defaults : opt_.metrics;
    for (const auto& m : metrics_) {
      const MetricDef* def = find_metric(m);
      const int c = find(t_.names, m);
      if (def && c >= 0 && metric_source_name(def->source) != evaluator)
        throw InputError("--metric", 0, 0,
                         of_function ? "'" + m + "' is a simulation's metric, but this file holds a test function's values "
                                                 "(expected --metric value, the default)"
                                     : "'" + m + "' is a test function's metric, but this file holds a simulation's results "
                                                 "(expected a simulation's metric, e.g. avg_jct_s, the default)");
      if (!def || c < 0) {
        std::vector<std::string> known;
        for (const MetricDef& d : metric_defs())
          if (find(t_.names, d.name) >= 0 && metric_source_name(d.source) == evaluator) known.emplace_back(d.name);
        throw InputError("--metric", 0, 0,
                         "unknown metric '" + m + "'" +
                             (def ? std::string(" (not in this file: written by an older geopipe?)")
                                  : util::suggestion_suffix(m, known) + " (expected one of: " +
                                        util::quoted_list(known, known.size()) + ")"));
      }
      // A metric a file before the HDF5 format that added it did not record (the fairness
      // metrics, format 9, and jct_lower_bound_s, format 10: NaN, results/hdf5/table.h
      // fill_columns_since) is refused, not averaged over the rows that have it. (This layer
      // names no format's code: the version is spelled out here.) jct_lower_bound_s is NaN too in
      // a run under the balanced layer split (docs/model.md, "Lower bound on the mean JCT").
      std::size_t missing = 0;
      for (size_t row = 0; row < rows(); ++row) missing += std::isnan(num(c, row)) ? 1 : 0;
      if (missing > 0)
        throw InputError(opt_.file, 0, 0,
                         fmt::format("'{}' is not recorded in {} of the {} results (written before HDF5 format {}, which "
                                     "added it{}; --resume and merge keep such results as they are: rerun the sweep into a "
                                     "new file to have it)",
                                     m, missing, rows(), m == "jct_lower_bound_s" ? 10 : 9,
                                     m == "jct_lower_bound_s" ? " or, for jct_lower_bound_s, simulated with sim.layer_partition = \"balanced\", where it is not defined" : ""));
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
                       "scheduler '" + base_ + "' is not in this file" + util::suggestion_suffix(base_, scheds_) +
                           " (expected one of " + util::quoted_list(scheds_, scheds_.size()) + ")");
  }

  bool unfinished(size_t row) const { return c_unf_ >= 0 && num(c_unf_, row) > 0; }

  /// Scenarios that left jobs unfinished: refused when a requested metric leaves those jobs
  /// out, unless --allow-unfinished (then flagged in every format).
  void resolve_unfinished() {
    c_unf_ = find(t_.names, "jobs_unfinished");
    std::vector<std::string> affected;
    for (const auto& m : metrics_)
      if (metric_leaves_out_unfinished_jobs(m)) affected.push_back(m);
    size_t first = 0;
    for (size_t row = 0; row < rows(); ++row)
      if (unfinished(row) && unfinished_++ == 0) first = row;
    if (unfinished_ == 0 || affected.empty()) {
      flag_unfinished_ = false;
      return;
    }
    flag_unfinished_ = true;
    if (opt_.allow_unfinished) return;
    const int c_total = find(t_.names, "jobs_total");
    throw InputError(
        opt_.file, 0, 0,
        fmt::format("{} of its {} scenarios left jobs unfinished (the first: id {:g}, {}, point {:g}, seed {:g}: {:g} of {} "
                    "jobs), and {} leave{} those jobs out: a mean over the survivors (results of model version {}; since "
                    "version 2 such a run fails instead: rerun the sweep with this geopipe, or pass --allow-unfinished to "
                    "summarize them anyway, flagged)",
                    unfinished_, rows(), num(c_id_, first), scheduler(first), num(c_point_, first), num(c_seed_, first),
                    num(c_unf_, first), c_total >= 0 ? fmt::format("{:g}", num(c_total, first)) : std::string("?"),
                    util::quoted_list(affected, affected.size()), affected.size() == 1 ? "s" : "", meta_.model_version));
  }

  std::string value_text(int num_col, int txt_col, size_t row) const {
    if (num_col >= 0) {
      const double v = num(num_col, row);
      return std::isnan(v) ? std::string("-") : fmt::format("{:g}", v);
    }
    return t_.text[static_cast<size_t>(txt_col)][row];
  }

  /// The group of a row: its point with the point's axis values (default), the --by axes'
  /// values, or nothing (--pool).
  std::vector<std::pair<std::string, std::string>> group_fields(size_t row) const {
    std::vector<std::pair<std::string, std::string>> f;
    if (opt_.pool) return f;
    if (by_.empty()) {
      f.emplace_back("point", fmt::format("{:g}", num(c_point_, row)));
      for (const auto& a : axes()) f.emplace_back(a, value_text(find(t_.names, a), find(t_.text_names, a), row));
      return f;
    }
    for (const ByCol& b : by_) f.emplace_back(b.name, value_text(b.num, b.txt, row));
    return f;
  }

  static std::string key_of(const std::vector<std::pair<std::string, std::string>>& f) {
    std::string k;
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (i == 0 && f[i].first == "point") {
        k = "point " + f[i].second + (f.size() > 1 ? ":" : "");
        continue;
      }
      k += (k.empty() ? "" : (f.front().first == "point" ? " " : "  ")) + f[i].first + "=" + f[i].second;
    }
    return k;
  }

  /// Groups in order of first appearance (i.e. by id).
  void group_rows() {
    std::map<std::string, size_t> index;
    for (size_t row = 0; row < rows(); ++row) {
      auto fields = group_fields(row);
      const std::string key = key_of(fields);
      auto [it, fresh] = index.emplace(key, groups_.size());
      if (fresh) groups_.push_back(Group{key, std::move(fields), {}, {}, {}, {}});
      Group& g = groups_[it->second];
      auto& v = g.values[scheduler(row)];
      v.resize(metrics_.size());
      for (size_t m = 0; m < metrics_.size(); ++m) v[m].push_back(num(mcol_[m], row));
      g.unfinished[scheduler(row)] += unfinished(row) ? 1 : 0;
      g.pairs[{num(c_point_, row), num(c_seed_, row)}][scheduler(row)] = row;
    }
  }

  void compute() {
    for (Group& g : groups_)
      for (const auto& [s, vals] : g.values) {
        std::vector<Cell>& cells = g.cells[s];
        cells.resize(metrics_.size());
        for (size_t m = 0; m < metrics_.size(); ++m) {
          cells[m].value = mean_ci(vals[m]);
          if (s == base_) continue;
          std::vector<double> a, b;
          for (const auto& [key, rows] : g.pairs) {
            auto x = rows.find(s), y = rows.find(base_);
            if (x == rows.end() || y == rows.end()) continue;
            const double va = num(mcol_[m], x->second), vb = num(mcol_[m], y->second);
            if (vb != 0 && std::isfinite(va) && std::isfinite(vb)) {
              a.push_back(va);
              b.push_back(vb);
            }
          }
          paired_stats(a, b, cells[m]);
        }
      }
  }

  /// Loud notes: a file whose sweep is not finished ("N of M scenarios (x%)"), failed
  /// scenarios (/errors rows), and results that leave unfinished jobs out.
  std::string coverage_note() const {
    std::string out;
    const std::uint64_t have = rows(), total = meta_.total_scenarios;
    if (failed_ > 0)
      out += fmt::format(
          "NOTE: {} scenario{} FAILED (rows in /errors: the message says why, e.g. a scheduler that left jobs waiting; "
          "--resume does not rerun them); every number below leaves them out\n",
          failed_, failed_ == 1 ? "" : "s");
    if (flag_unfinished_)
      out += fmt::format(
          "WARNING: {} scenario{} left jobs unfinished (column 'unfin'): their values below are means over the jobs "
          "that completed or ran, not over every job (results of model version {}; docs/analysis.md, \"Unfinished jobs\")\n",
          unfinished_, unfinished_ == 1 ? "" : "s", meta_.model_version);
    if (meta_.collection || total == 0 || have + failed_ >= total) return out;  // (a complete shard is still part of a sweep)
    if (config::replication_rule_of(meta_.sweep_toml, meta_.schedulers)) return out;  // see the precision line
    return out + fmt::format(
        "NOTE: this file is INCOMPLETE: {} of {} scenarios ({:.1f}%) have results; every number below is of "
        "those only ({})\n",
        have + failed_, total, 100.0 * static_cast<double>(have + failed_) / static_cast<double>(total),
        meta_.shard.empty() ? "finish it with geopipe sweep --resume"
                            : "it is shard " + meta_.shard + " of the sweep: geopipe merge the shards first");
  }

  std::string unit_of(size_t m) const { return display_value(*mdef_[m], 1.0).unit; }
  double shown(size_t m, double v) const { return display_value(*mdef_[m], v).value; }
  std::string stored_unit(size_t m) const { return mdef_[m]->unit; }

  void print_table(std::ostream& os) const {
    os << coverage_note();
    fmt::print(os,
               "{}: {} scenarios with metrics; mean {} 95% CI (Student t) over the (point, seed) runs of each group; "
               "change = scheduler / {} - 1 over the (point, seed) pairs (negative = lower than {}): the mean of "
               "the ratios, and the ratio of the means (delta-method CI)\n",
               opt_.file, rows(), pm(), base_, base_);
    for (const Group& g : groups_) print_group(os, g);
  }

  void print_group(std::ostream& os, const Group& g) const {
    if (!g.key.empty()) fmt::print(os, "\n[{}]\n", g.key);
    else fmt::print(os, "\n");
    fmt::print(os, "{:<20} {:>4}", "scheduler", "n");
    if (flag_unfinished_) fmt::print(os, " {:>5}", "unfin");
    for (size_t m = 0; m < metrics_.size(); ++m) {
      const std::string u = unit_of(m);
      fmt::print(os, "  {:>24} {:>17} {:>17}", u.empty() ? metrics_[m] : metrics_[m] + " [" + u + "]", "change (mean)",
                 "change (ratio)");
    }
    fmt::print(os, "\n");
    for (const auto& s : scheds_) {
      auto it = g.cells.find(s);
      if (it == g.cells.end()) continue;
      fmt::print(os, "{:<20} {:>4}", s, g.values.at(s)[0].size());
      if (flag_unfinished_) fmt::print(os, " {:>5}", g.unfinished.at(s));
      for (size_t m = 0; m < metrics_.size(); ++m) {
        const Cell& c = it->second[m];
        const double mean = shown(m, c.value.mean);
        const double half = shown(m, c.value.half_width);
        // One run has no spread: its CI is unknown, not zero.
        fmt::print(os, "  {:>24}", c.value.n >= 2 ? fmt::format("{:.4g} {} {:.3g}", mean, pm(), half)
                                                  : fmt::format("{:.4g} (no CI)", mean));
        if (s == base_) {
          fmt::print(os, " {:>17} {:>17}", "baseline", "baseline");
          continue;
        }
        const auto pct = [&](double v, double ci) {
          if (std::isnan(v)) return std::string("n/a");
          return std::isnan(ci) ? fmt::format("{:+.1f}%", 100 * v) : fmt::format("{:+.1f}% {} {:.1f}%", 100 * v, pm(), 100 * ci);
        };
        fmt::print(os, " {:>17} {:>17}", pct(c.change, c.change_ci), pct(c.ratio, c.ratio_ci));
      }
      fmt::print(os, "\n");
    }
  }

  void print_csv(std::ostream& os) const {
    os << "group";
    std::vector<std::string> keys;
    if (!groups_.empty())
      for (const auto& [k, v] : groups_.front().fields) keys.push_back(k);
    for (const auto& k : keys) os << "," << csv_field(k);
    os << ",scheduler,metric,unit,n,unfinished_runs,mean,ci_half_width,pairs,baseline,change_mean_of_ratios,"
          "change_mean_of_ratios_ci,change_ratio_of_means,change_ratio_of_means_ci\r\n";
    for (const Group& g : groups_)
      for (const auto& s : scheds_) {
        auto it = g.cells.find(s);
        if (it == g.cells.end()) continue;
        for (size_t m = 0; m < metrics_.size(); ++m) {
          const Cell& c = it->second[m];
          os << csv_field(g.key);
          for (const auto& [k, v] : g.fields) os << "," << csv_field(v);
          os << "," << csv_field(s) << "," << metrics_[m] << "," << stored_unit(m) << "," << c.value.n << ","
             << g.unfinished.at(s) << "," << csv_number(c.value.mean) << "," << csv_number(c.value.n >= 2 ? c.value.half_width : NAN) << ","
             << c.pairs << "," << csv_field(base_) << "," << csv_number(c.change) << "," << csv_number(c.change_ci) << ","
             << csv_number(c.ratio) << "," << csv_number(c.ratio_ci) << "\r\n";
        }
      }
  }

  void print_json_impl(std::ostream& os, Json precision) const {
    Json j;
    j["file"] = opt_.file;
    j["scenarios_with_results"] = rows();
    j["total_scenarios"] = meta_.total_scenarios;
    j["complete"] = meta_.complete;
    j["failed_scenarios"] = failed_;
    j["unfinished_scenarios"] = unfinished_;
    j["baseline"] = base_;
    j["confidence"] = 0.95;
    j["change"] = "scheduler / baseline - 1";
    Json groups = Json::array();
    for (const Group& g : groups_) {
      Json jg;
      jg["group"] = g.key;
      Json fields = Json::object();
      for (const auto& [k, v] : g.fields) fields[k] = v;
      jg["fields"] = std::move(fields);
      Json scheds = Json::array();
      for (const auto& s : scheds_) {
        auto it = g.cells.find(s);
        if (it == g.cells.end()) continue;
        Json js = {{"scheduler", s}, {"unfinished_runs", g.unfinished.at(s)}};
        Json ms = Json::object();
        for (size_t m = 0; m < metrics_.size(); ++m) {
          const Cell& c = it->second[m];
          Json jm = {{"unit", stored_unit(m)},
                     {"n", c.value.n},
                     {"mean", json_number(c.value.mean)},
                     {"ci_half_width", json_number(c.value.n >= 2 ? c.value.half_width : NAN)}};
          if (s != base_) {
            jm["pairs"] = c.pairs;
            jm["change_mean_of_ratios"] = json_number(c.change);
            jm["change_mean_of_ratios_ci"] = json_number(c.change_ci);
            jm["change_ratio_of_means"] = json_number(c.ratio);
            jm["change_ratio_of_means_ci"] = json_number(c.ratio_ci);
          }
          ms[metrics_[m]] = std::move(jm);
        }
        js["metrics"] = std::move(ms);
        scheds.push_back(std::move(js));
      }
      jg["schedulers"] = std::move(scheds);
      groups.push_back(std::move(jg));
    }
    j["groups"] = std::move(groups);
    j["precision"] = std::move(precision);
    os << j.dump(2) << "\n";
  }

  const SummarizeOptions& opt_;
  const Table t_;
  const StoreMeta& meta_;
  std::uint64_t failed_ = 0;     ///< scenarios with an /errors row
  std::size_t unfinished_ = 0;   ///< scenarios with jobs_unfinished > 0
  bool flag_unfinished_ = false; ///< some, and a requested metric leaves those jobs out
  int c_id_ = -1, c_point_ = -1, c_seed_ = -1, c_sched_ = -1, c_unf_ = -1;
  std::vector<ByCol> by_;
  std::vector<std::string> metrics_;
  std::vector<int> mcol_;
  std::vector<const MetricDef*> mdef_;
  std::vector<std::string> scheds_;
  std::string base_;
  std::vector<Group> groups_;
};

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
/// rows (plan/replication.h), as the runner decided them. Empty (no rule) for fixed seeds.
struct PrecisionReport {
  std::optional<config::ReplicationRule> rule;
  std::uint64_t points = 0;
  std::size_t converged = 0, max_seeds = 0, failed = 0, running = 0;
  std::vector<PointPrecision> per_point;
  std::vector<std::uint64_t> allowance;  ///< seeds allowed so far (running points)
  std::string quantity;
};

PrecisionReport precision_of(const Table& t, const StoreMeta& meta) {
  PrecisionReport r;
  r.rule = config::replication_rule_of(meta.sweep_toml, meta.schedulers);
  if (!r.rule) return r;
  const auto& rule = *r.rule;
  r.quantity = rule.paired_vs.empty() ? rule.metric : rule.metric + " change vs " + rule.paired_vs;
  const int c_point = find(t.names, "point"), c_seed = find(t.names, "seed"), c_metric = find(t.names, rule.metric);
  const int c_sched = find(t.text_names, "scheduler");
  if (c_point < 0 || c_seed < 0 || c_metric < 0 || c_sched < 0) return r;
  for (const double p : t.numeric[static_cast<size_t>(c_point)]) r.points = std::max(r.points, static_cast<std::uint64_t>(p) + 1);
  Replication rep(rule, r.points, meta.schedulers);
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
  r.converged = rep.count(PrecisionState::kConverged);
  r.max_seeds = rep.count(PrecisionState::kMaxSeeds);
  r.failed = rep.count(PrecisionState::kFailed);
  r.running = rep.count(PrecisionState::kRunning);
  for (std::uint64_t p = 0; p < r.points; ++p) {
    r.per_point.push_back(rep.precision(p));
    r.allowance.push_back(rep.allowance(p));
  }
  return r;
}

void print_precision(const SummarizeOptions& opt, const PrecisionReport& r, std::ostream& os) {
  if (!r.rule) {
    if (opt.precision) os << "precision: this sweep has a fixed number of seeds (no seeds = { min, max, rel_ci } rule)\n";
    return;
  }
  const auto& rule = *r.rule;
  fmt::print(os,
             "precision: seeds {}..{} per point until the {:g}% CI half-width of {} is <= {:g}% of |mean|{}: {} points, "
             "{} reached it, {} ran out of seeds, {} failed, {} still running{}\n",
             rule.min, rule.max, 100 * rule.confidence, r.quantity, 100 * rule.rel_ci,
             rule.abs_ci > 0 ? fmt::format(" or <= {:g}", rule.abs_ci) : std::string(), r.points, r.converged,
             r.max_seeds, r.failed, r.running, r.running > 0 ? " (the sweep is not finished: geopipe sweep --resume)" : "");
  if (!opt.precision) return;
  fmt::print(os, "{:>8} {:>6} {:>14} {:>14} {:>9}  {}\n", "point", "seeds", "mean", "half_width", "rel", "state");
  for (std::uint64_t p = 0; p < r.points; ++p) {
    const PointPrecision& pp = r.per_point[p];
    if (pp.state == PrecisionState::kRunning) {
      fmt::print(os, "{:>8} {:>6} {:>14} {:>14} {:>9}  {}\n", p, r.allowance[p], "", "", "", state_name(pp.state));
      continue;
    }
    fmt::print(os, "{:>8} {:>6} {:>14.6g} {:>14.6g} {:>8.2f}%  {}\n", p, pp.seeds, pp.mean, pp.half_width,
               100 * pp.rel_half_width, state_name(pp.state));
  }
}

/// The JSON of the same: the rule and the counts whenever the sweep has one; with --precision
/// one entry per point as well. Null for fixed seeds.
Json precision_json(const SummarizeOptions& opt, const PrecisionReport& r) {
  if (!r.rule) return Json(nullptr);
  const auto& rule = *r.rule;
  Json j = {{"min_seeds", rule.min},  {"max_seeds", rule.max}, {"confidence", rule.confidence},
            {"rel_ci", rule.rel_ci},  {"abs_ci", rule.abs_ci}, {"quantity", r.quantity},
            {"points", r.points},     {"reached", r.converged}, {"ran_out_of_seeds", r.max_seeds},
            {"failed", r.failed},     {"running", r.running}};
  if (opt.precision) {
    Json pts = Json::array();
    for (std::uint64_t p = 0; p < r.points; ++p) {
      const PointPrecision& pp = r.per_point[p];
      const bool done = pp.state != PrecisionState::kRunning;
      pts.push_back({{"point", p},
                     {"seeds", done ? pp.seeds : r.allowance[p]},
                     {"mean", done ? json_number(pp.mean) : Json(nullptr)},
                     {"half_width", done ? json_number(pp.half_width) : Json(nullptr)},
                     {"rel_half_width", done ? json_number(pp.rel_half_width) : Json(nullptr)},
                     {"state", state_name(pp.state)}});
    }
    j["per_point"] = std::move(pts);
  }
  return j;
}

}  // namespace

void summarize(const SummarizeOptions& opt, std::ostream& os) {
  if (opt.format != "table" && opt.format != "csv" && opt.format != "json")
    throw InputError("--format", 0, 0, "unknown format '" + opt.format + "' (expected table, csv or json)");
  const StoreContents contents = read_contents(opt.file);
  const StoreMeta& meta = contents.meta;
  const Table t = read_results(opt.file);
  const std::size_t ok = t.numeric.empty() ? 0 : t.numeric.front().size();
  const std::uint64_t failed = contents.done_ids.size() > ok ? contents.done_ids.size() - ok : 0;
  if (opt.precision && opt.format == "csv")
    throw InputError("--precision", 0, 0,
                     "the per-point precision is a table of its own, which one CSV of the summary cannot hold "
                     "(expected --format table or json)");
  const PrecisionReport precision = precision_of(t, meta);
  Summary sum(opt, t, meta, failed);
  if (opt.format == "json") return sum.print_json(os, precision_json(opt, precision));
  sum.print(os);
  if (opt.format == "table") print_precision(opt, precision, os);
}

}  // namespace geopipe::sweep
