// read_joined() of the result store (results/hdf5/store.h): the whole file as columns, for
// `geopipe summarize`.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include "sweepfile/loader.h"
#include "util/input_error.h"

#include "results/hdf5/file.h"
#include "results/hdf5/table.h"
#include "results/hdf5/store.h"

namespace geopipe::sweep {

using namespace h5;

Table read_joined(const std::string& path) {
  Lock lock;
  Input in = open_input(path);  // checked: the tables' sizes are bounded by the file size
  const Layout& sl = in.scen_layout;
  const Layout ml = layout_of(in.metrics.get(), path, "metrics");
  Hid& scen = in.scen;
  Hid& met = in.metrics;
  const Field* sid = sl.find("id");
  const Field* mid = ml.find("id");
  const Field* mst = ml.find("status");
  if (!sid || !mid || !mst) not_geopipe(path, "/scenarios or /metrics lacks the id/status columns");
  const Rows srows = sorted_unique(read_table(scen.get(), sl, path, "scenarios"),
                                   [&](const unsigned char* r) { return get_i64(r, *sid); });
  Rows mvalid(ml.size);
  {
    const Rows raw = read_table(met.get(), ml, path, "metrics");
    for (std::size_t i = 0; i < raw.n; ++i)
      if (get_i64(raw.row(i), *mid) >= 0 && get_i64(raw.row(i), *mst) == 1)
        std::memcpy(mvalid.add(), raw.row(i), raw.row_size);
  }
  const Rows mrows = sorted_unique(mvalid, [&](const unsigned char* r) { return get_i64(r, *mid); });

  Table t;
  std::vector<const Field*> snum, stext, mnum;
  for (const auto& f : sl.fields) {
    if (f.kind == Kind::Str) {
      stext.push_back(&f);
      t.text_names.push_back(f.name);
    } else {
      snum.push_back(&f);
      t.names.push_back(f.name);
    }
  }
  for (const auto& f : ml.fields) {
    if (&f == mid || &f == mst || f.kind == Kind::Str) continue;
    mnum.push_back(&f);
    t.names.push_back(f.name);
  }
  t.numeric.assign(t.names.size(), {});
  t.text.assign(t.text_names.size(), {});
  std::size_t m = 0;
  for (std::size_t i = 0; i < srows.n; ++i) {
    const std::int64_t id = get_i64(srows.row(i), *sid);
    while (m < mrows.n && get_i64(mrows.row(m), *mid) < id) ++m;
    if (m >= mrows.n || get_i64(mrows.row(m), *mid) != id) continue;
    std::size_t c = 0;
    for (const Field* f : snum) t.numeric[c++].push_back(get_f64(srows.row(i), *f));
    for (const Field* f : mnum) t.numeric[c++].push_back(get_f64(mrows.row(m), *f));
    for (std::size_t k = 0; k < stext.size(); ++k) t.text[k].push_back(get_str(srows.row(i), *stext[k]));
  }
  if (in.metrics_format < 5) {
    // A file of format 3 or 4: its results predate egress, so their electricity cost is their
    // total cost and their egress 0, and layer partitions, so no search missed by its split
    // (fill_format5_columns, results/hdf5/table.h).
    const auto total = std::find(t.names.begin(), t.names.end(), "total_cost_usd");
    if (total != t.names.end()) {
      const std::vector<double> cost = t.numeric[static_cast<std::size_t>(total - t.names.begin())];
      t.names.push_back("electricity_cost_usd");
      t.numeric.push_back(cost);
      t.names.push_back("egress_cost_usd");
      t.numeric.emplace_back(cost.size(), 0.0);
    }
    t.names.push_back("sched_partition_misses");  // every split was even
    t.numeric.emplace_back(t.numeric.empty() ? 0 : t.numeric[0].size(), 0.0);
  }
  if (std::find(t.names.begin(), t.names.end(), "value") == t.names.end()) {
    // A file before format 6: a test function's values were stored as avg_jct_s; a simulation
    // has none (fill_columns_since, results/hdf5/table.h).
    const std::size_t n = t.numeric.empty() ? 0 : t.numeric[0].size();
    const auto jct = std::find(t.names.begin(), t.names.end(), "avg_jct_s");
    std::vector<double> value(n, 0.0);
    if (in.evaluator() == MetricSource::kTestFunction && jct != t.names.end()) {
      std::vector<double>& stored = t.numeric[static_cast<std::size_t>(jct - t.names.begin())];
      value.swap(stored);
      stored.assign(n, 0.0);
    }
    t.names.push_back("value");
    t.numeric.push_back(std::move(value));
  }
  if (in.metrics_format < 7) {
    // A file before format 7: every job was one pipeline, so nothing was synchronised
    // (fill_columns_since, results/hdf5/table.h).
    const std::size_t n = t.numeric.empty() ? 0 : t.numeric[0].size();
    for (const char* name : {"sync_bytes", "sync_fraction"})
      if (std::find(t.names.begin(), t.names.end(), name) == t.names.end()) {
        t.names.push_back(name);
        t.numeric.emplace_back(n, 0.0);
      }
  }
  if (in.metrics_format < 8) {
    // A file before format 8: nothing failed and every allocated GPU-hour was useful
    // (fill_columns_since, results/hdf5/table.h).
    const std::size_t n = t.numeric.empty() ? 0 : t.numeric[0].size();
    const double goodput = in.evaluator() == MetricSource::kSimulation ? 1.0 : 0.0;
    for (const char* name : {"failures", "preemptions", "restarts", "lost_gpu_hours", "checkpoint_gpu_hours", "goodput"})
      if (std::find(t.names.begin(), t.names.end(), name) == t.names.end()) {
        t.names.push_back(name);
        t.numeric.emplace_back(n, std::string_view(name) == "goodput" ? goodput : 0.0);
      }
  }
  if (in.metrics_format < 9) {
    // A file before format 9: its fairness metrics are not recorded (fill_columns_since,
    // results/hdf5/table.h): NaN, which summarize refuses.
    const std::size_t n = t.numeric.empty() ? 0 : t.numeric[0].size();
    const double v = in.evaluator() == MetricSource::kSimulation ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    for (const char* name : {"p99_queue_delay_s", "avg_ftf_rho", "max_ftf_rho", "unfair_fraction", "jain_fairness"})
      if (std::find(t.names.begin(), t.names.end(), name) == t.names.end()) {
        t.names.push_back(name);
        t.numeric.emplace_back(n, v);
      }
  }
  if (in.metrics_format < 10 && std::find(t.names.begin(), t.names.end(), "jct_lower_bound_s") == t.names.end()) {
    // A file before format 10: the lower bound on the mean JCT is not recorded, as above.
    const std::size_t n = t.numeric.empty() ? 0 : t.numeric[0].size();
    t.names.push_back("jct_lower_bound_s");
    t.numeric.emplace_back(n, in.evaluator() == MetricSource::kSimulation ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  }
  return t;
}

namespace {

DesignTable design_of(Input& in, const std::string& path) {
  DesignTable d;
  d.design = in.meta.design;
  d.evaluator = in.meta.evaluator;
  d.schedulers = in.meta.schedulers;
  d.total_scenarios = in.meta.total_scenarios;
  d.num_scenarios = in.meta.num_scenarios;
  d.complete = in.meta.complete;
  d.collection = in.meta.collection;
  d.shard = in.meta.shard;
  if (!in.design.valid())
    throw InputError(path, 0, 0,
                     in.meta.collection ? std::string("is a collection of several sweeps: it has no design matrix to analyse")
                                        : "has no design matrix (/design): its sweep's design is '" +
                                              (in.meta.design.empty() ? std::string("grid") : in.meta.design) +
                                              "' (expected a file of a design = \"sobol\", \"morris\", \"oat\" or \"lhs\" sweep)");
  const Layout& l = in.design_layout;
  for (std::size_t j = 1; j < l.fields.size(); ++j) d.factors.push_back(l.fields[j].name);
  const Rows rows = read_table(in.design.get(), l, path, "design");
  d.unit.resize(rows.n * d.factors.size());
  for (std::size_t i = 0; i < rows.n; ++i) {
    if (get_i64(rows.row(i), l.fields[0]) != static_cast<std::int64_t>(i))
      throw InputError(path, 0, 0, "damaged result file: /design row " + std::to_string(i) + " is not point " +
                                       std::to_string(i) + kDamagedAdvice);
    for (std::size_t j = 0; j < d.factors.size(); ++j) d.unit[i * d.factors.size() + j] = get_f64(rows.row(i), l.fields[1 + j]);
  }
  return d;
}

}  // namespace

DesignTable read_design(const std::string& path) {
  Lock lock;
  Input in = open_input(path);
  return design_of(in, path);
}

MetricByScenario read_metric_by_scenario(const std::string& path, const std::string& metric) {
  Lock lock;
  Input in = open_input(path);  // checked once: ids, one row per id, sizes
  MetricByScenario out;
  out.design = design_of(in, path);
  out.design.replication = config::replication_rule_of(in.meta.sweep_toml, in.meta.schedulers).has_value();
  const Layout ml = layout_of(in.metrics.get(), path, "metrics");
  const Field* m_id = ml.find("id");
  const Field* m_status = ml.find("status");
  const Field* m_value = ml.find(metric);
  // Before format 6 a test function's value was stored as avg_jct_s, and a simulation had none
  // (0, as format 6 writes it).
  const bool before_value = !m_value && metric == "value";
  if (before_value && in.evaluator() == MetricSource::kTestFunction) m_value = ml.find("avg_jct_s");
  const bool no_value = before_value && !m_value;
  if (!m_id || !m_status) not_geopipe(path, "/metrics lacks the id/status columns");
  if (!m_value && !no_value) throw InputError(path, 0, 0, "has no metric column '" + metric + "' (written by an older geopipe?)");
  const Field* m_unfinished = ml.find("jobs_unfinished");
  // (id, value) of the successful results, sorted by id (an interrupted file's rows may not be),
  // and the ids of those that left jobs unfinished.
  std::vector<std::pair<std::int64_t, double>> values;
  std::vector<std::int64_t> unfinished_ids;
  values.reserve(static_cast<std::size_t>(in.n_metrics));
  Hid mt = make_type(ml, path);
  each_row(in.metrics.get(), mt.get(), ml.size, in.n_metrics, path, "metrics", [&](const unsigned char* row) {
    const std::int64_t id = get_i64(row, *m_id);
    if (id < 0 || get_i64(row, *m_status) != 1) return;
    values.emplace_back(id, no_value ? 0.0 : get_f64(row, *m_value));
    if (m_unfinished && get_f64(row, *m_unfinished) > 0) unfinished_ids.push_back(id);
  });
  std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::sort(unfinished_ids.begin(), unfinished_ids.end());
  // A metric of results written before the format that added it (9: the fairness metrics, 10:
  // jct_lower_bound_s) is not recorded (NaN, fill_columns_since); jct_lower_bound_s is NaN too
  // in a run under the balanced layer split (docs/model.md, "Lower bound on the mean JCT").
  const auto missing = std::count_if(values.begin(), values.end(), [](const auto& v) { return std::isnan(v.second); });
  if (missing > 0)
    throw InputError(path, 0, 0,
                     "'" + metric + "' is not recorded in " + std::to_string(missing) + " of the " +
                         std::to_string(values.size()) +
                         " results (written before HDF5 format " + std::to_string(format_adding_column(metric)) +
                         ", which added it" + (is_format10_column(metric) ? std::string(" or, for jct_lower_bound_s, simulated with sim.layer_partition = \"balanced\", where it is not defined") : std::string()) +
                         "; --resume and merge keep such results "
                         "as they are: rerun the sweep into a new file to have it)");
  // The failed scenarios (/errors rows): (id, message), sorted by id.
  std::vector<std::pair<std::int64_t, std::string>> errors;
  if (in.errors.valid() && in.n_errors > 0) {
    const Layout& el = errors_layout();
    const Field& e_id = el.at("id");
    const Field& e_msg = el.at("message");
    Hid et = make_type(el, path);
    each_row(in.errors.get(), et.get(), el.size, in.n_errors, path, "errors", [&](const unsigned char* row) {
      const std::int64_t id = get_i64(row, e_id);
      if (id >= 0) errors.emplace_back(id, get_str(row, e_msg));
    });
    std::sort(errors.begin(), errors.end());
  }
  const Layout& sl = in.scen_layout;
  const Field& s_id = sl.at("id");
  const Field& s_point = sl.at("point");
  const Field& s_seed = sl.at("seed");
  const Field& s_sched = sl.at("scheduler");
  std::unordered_map<std::string, std::uint32_t> sched_index;
  for (std::size_t k = 0; k < out.design.schedulers.size(); ++k)
    sched_index.emplace(out.design.schedulers[k], static_cast<std::uint32_t>(k));
  Hid st = make_type(sl, path);
  each_row(in.scen.get(), st.get(), sl.size, in.n_scen, path, "scenarios", [&](const unsigned char* row) {
    const std::int64_t id = get_i64(row, s_id);
    const std::int64_t pt = get_i64(row, s_point);
    if (pt >= 0) out.scenario_points = std::max(out.scenario_points, static_cast<std::uint64_t>(pt) + 1);
    const auto s = sched_index.find(get_str(row, s_sched));
    if (s == sched_index.end()) return;  // validation guarantees it is one of the file's
    const auto e = std::lower_bound(errors.begin(), errors.end(), id,
                                    [](const auto& v, std::int64_t x) { return v.first < x; });
    if (e != errors.end() && e->first == id)
      out.failed.push_back({pt, static_cast<std::uint64_t>(get_i64(row, s_seed)), s->second, e->second});
    const auto it = std::lower_bound(values.begin(), values.end(), id,
                                     [](const auto& v, std::int64_t x) { return v.first < x; });
    if (it == values.end() || it->first != id) return;
    out.point.push_back(get_i64(row, s_point));
    out.seed.push_back(static_cast<std::uint64_t>(get_i64(row, s_seed)));
    out.scheduler.push_back(s->second);
    out.value.push_back(it->second);
    out.unfinished.push_back(std::binary_search(unfinished_ids.begin(), unfinished_ids.end(), id) ? 1 : 0);
  });
  return out;
}

}  // namespace geopipe::sweep
