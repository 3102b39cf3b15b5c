// The output-format seam (results/output.h): a second, toy format proves that `summarize` and
// `analyze` (report/) read result files only through it. The toy format keeps its "files" in
// memory, keyed by a path ending in ".toy", and is added with register_output_format(): no such
// file exists on disk, so a reader that went around the seam (to the HDF5 store, the default
// format) would fail on it. Every expected value below is computed by hand from the toy's rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/analyze.h"
#include "report/summarize.h"
#include "results/output.h"
#include "util/input_error.h"

namespace geopipe::sweep {
namespace {

// ---- the toy format --------------------------------------------------------------------------

/// One scenario of a toy file: (point, seed, scheduler), the point's axis value, two metrics.
struct ToyRow {
  std::int64_t id;
  std::int64_t point;
  std::uint64_t seed;
  std::string scheduler;
  double jobs;  ///< the axis "workload.jobs"
  double avg_jct_s;
  double total_cost_usd;
};

struct ToyFile {
  StoreMeta meta;
  std::vector<ToyRow> rows;    ///< successful results
  std::vector<ToyRow> failed;  ///< failed scenarios (their metrics are not used)
  std::vector<std::string> factors;  ///< the design's factors (analyze)
  std::vector<double> unit;          ///< the design matrix, row-major
};

std::map<std::string, ToyFile>& toy_files() {
  static std::map<std::string, ToyFile> files;
  return files;
}

/// How often each read of the toy format was called.
struct ToyCalls {
  int contents = 0, results = 0, metric = 0, merge = 0;
};
ToyCalls& toy_calls() {
  static ToyCalls calls;
  return calls;
}

const ToyFile& toy_file(const std::string& path) {
  const auto it = toy_files().find(path);
  if (it == toy_files().end()) throw InputError(path, 0, 0, "no such toy file");
  return it->second;
}

StoreContents toy_read_contents(const std::string& path) {
  ++toy_calls().contents;
  const ToyFile& f = toy_file(path);
  StoreContents c;
  c.meta = f.meta;
  for (const ToyRow& r : f.rows) c.done_ids.push_back(r.id);
  for (const ToyRow& r : f.failed) c.done_ids.push_back(r.id);
  std::sort(c.done_ids.begin(), c.done_ids.end());
  return c;
}

Table toy_read_results(const std::string& path) {
  ++toy_calls().results;
  const ToyFile& f = toy_file(path);
  Table t;
  t.names = {"id", "point", "seed", "workload.jobs", "avg_jct_s", "total_cost_usd"};
  t.numeric.resize(t.names.size());
  t.text_names = {"scheduler"};
  t.text.resize(1);
  for (const ToyRow& r : f.rows) {
    const std::vector<double> v = {static_cast<double>(r.id), static_cast<double>(r.point),
                                   static_cast<double>(r.seed), r.jobs, r.avg_jct_s, r.total_cost_usd};
    for (std::size_t c = 0; c < v.size(); ++c) t.numeric[c].push_back(v[c]);
    t.text[0].push_back(r.scheduler);
  }
  return t;
}

std::uint32_t scheduler_index(const ToyFile& f, const std::string& name) {
  const auto& s = f.meta.schedulers;
  return static_cast<std::uint32_t>(std::find(s.begin(), s.end(), name) - s.begin());
}

MetricByScenario toy_read_metric(const std::string& path, const std::string& metric) {
  ++toy_calls().metric;
  const ToyFile& f = toy_file(path);
  if (metric != "avg_jct_s" && metric != "total_cost_usd")
    throw InputError(path, 0, 0, "has no metric column '" + metric + "'");
  MetricByScenario m;
  m.design.design = f.meta.design;
  m.design.factors = f.factors;
  m.design.unit = f.unit;
  m.design.schedulers = f.meta.schedulers;
  m.design.total_scenarios = f.meta.total_scenarios;
  m.design.num_scenarios = f.rows.size() + f.failed.size();
  m.design.complete = f.meta.complete;
  for (const ToyRow& r : f.rows) {
    m.point.push_back(r.point);
    m.seed.push_back(r.seed);
    m.scheduler.push_back(scheduler_index(f, r.scheduler));
    m.value.push_back(metric == "avg_jct_s" ? r.avg_jct_s : r.total_cost_usd);
    m.unfinished.push_back(0);
    m.scenario_points = std::max(m.scenario_points, static_cast<std::uint64_t>(r.point) + 1);
  }
  for (const ToyRow& r : f.failed) {
    m.failed.push_back({r.point, r.seed, scheduler_index(f, r.scheduler), "toy failure"});
    m.scenario_points = std::max(m.scenario_points, static_cast<std::uint64_t>(r.point) + 1);
  }
  return m;
}

// The toy format is read-only: it cannot be written or merged.
OpenedOutput toy_open(const OutputRequest& rq, const config::SweepSpec&, const Plan&) {
  throw InputError(rq.path, 0, 0, "the toy format is read-only");
}
void toy_check(const OutputRequest& rq, const config::SweepSpec&, const Plan&) {
  throw InputError(rq.path, 0, 0, "the toy format is read-only");
}
MergeSummary toy_merge(const std::vector<std::string>&, const std::string& output) {
  ++toy_calls().merge;
  throw InputError(output, 0, 0, "the toy format is read-only");
}

OutputFormat toy_format() {
  return {"toy", {".toy"}, toy_open, toy_check, toy_merge, toy_read_contents, toy_read_results, toy_read_metric};
}

/// Registers the toy format once per process (the tests of this file may run in one process).
void use_toy_format() {
  static const bool registered = [] {
    register_output_format(toy_format());
    return true;
  }();
  (void)registered;
}

StoreMeta toy_meta(const std::string& design, std::uint64_t total, bool complete) {
  StoreMeta m;
  m.sweep_name = "toy";
  m.sweep_toml = "[sweep]\nname = \"toy\"\n";
  m.schedulers = {"alpha", "beta"};
  m.axes = {"workload.jobs"};
  m.total_scenarios = total;
  m.num_scenarios = total;
  m.complete = complete;
  m.model_version = 2;
  m.design = design;
  return m;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

/// Sample standard deviation.
double stdev(const std::vector<double>& v) {
  const double m = mean(v);
  double ss = 0;
  for (const double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

/// Student's t quantile 0.975 with 2 degrees of freedom, in closed form: (2p - 1) / sqrt(2p(1 - p)).
const double kT975Df2 = 0.95 / std::sqrt(2 * 0.975 * 0.025);

// ---- summarize -------------------------------------------------------------------------------

/// A grid of 3 points x 3 seeds x 2 schedulers: points 0 and 1 done (12 results), the first
/// scenario of point 2 failed, the others not run. ids: point * 6 + (seed - 1) * 2 + scheduler.
void make_summary_file(const std::string& path) {
  ToyFile f;
  f.meta = toy_meta("grid", 18, false);
  const double jobs[2] = {100, 200};
  const double jct[2][2][3] = {{{100, 110, 120}, {90, 99, 120}},   // point 0: alpha, beta over seeds 1..3
                               {{200, 240, 250}, {220, 216, 300}}};  // point 1
  const double cost[2][2][3] = {{{10, 12, 14}, {11, 12, 13}}, {{20, 25, 30}, {18, 25, 36}}};
  for (std::int64_t p = 0; p < 2; ++p)
    for (std::uint64_t seed = 1; seed <= 3; ++seed)
      for (std::size_t s = 0; s < 2; ++s) {
        const auto pi = static_cast<std::size_t>(p);
        f.rows.push_back({p * 6 + static_cast<std::int64_t>((seed - 1) * 2 + s), p, seed, f.meta.schedulers[s], jobs[pi],
                          jct[pi][s][seed - 1], cost[pi][s][seed - 1]});
      }
  f.failed.push_back({12, 2, 1, "alpha", 300, NAN, NAN});
  toy_files()[path] = f;
}

/// The rows of `path` of one point and scheduler, as values of a metric.
std::vector<double> values_of(const std::string& path, std::int64_t point, const std::string& scheduler,
                              double ToyRow::*metric) {
  std::vector<double> v;
  for (const ToyRow& r : toy_files().at(path).rows)
    if (r.point == point && r.scheduler == scheduler) v.push_back(r.*metric);
  return v;
}

TEST(OutputFormats, SummarizeReadsAToyFormatThroughTheSeam) {
  use_toy_format();
  const std::string path = "summary.toy";
  make_summary_file(path);
  const ToyCalls before = toy_calls();
  SummarizeOptions opt;
  opt.file = path;
  opt.format = "json";
  std::ostringstream os;
  summarize(opt, os);
  // It read the toy's contents and rows (and nothing else could have answered for "summary.toy").
  EXPECT_EQ(toy_calls().contents, before.contents + 1);
  EXPECT_EQ(toy_calls().results, before.results + 1);

  const nlohmann::json j = nlohmann::json::parse(os.str());
  EXPECT_EQ(j["file"], path);
  EXPECT_EQ(j["scenarios_with_results"], 12);
  EXPECT_EQ(j["total_scenarios"], 18);  // from the toy's metadata
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["failed_scenarios"], 1);  // 13 done ids, 12 of them with metrics
  EXPECT_EQ(j["baseline"], "alpha");
  ASSERT_EQ(j["groups"].size(), 2u);
  for (std::int64_t p = 0; p < 2; ++p) {
    const nlohmann::json& g = j["groups"][static_cast<std::size_t>(p)];
    EXPECT_EQ(g["group"], "point " + std::to_string(p) + ": workload.jobs=" + (p == 0 ? "100" : "200"));
    ASSERT_EQ(g["schedulers"].size(), 2u);
    EXPECT_EQ(g["schedulers"][0]["scheduler"], "alpha");
    EXPECT_EQ(g["schedulers"][1]["scheduler"], "beta");
    for (const auto& [metric, member] :
         {std::pair{"avg_jct_s", &ToyRow::avg_jct_s}, std::pair{"total_cost_usd", &ToyRow::total_cost_usd}}) {
      SCOPED_TRACE(std::string(metric) + " at point " + std::to_string(p));
      const std::vector<double> a = values_of(path, p, "alpha", member), b = values_of(path, p, "beta", member);
      ASSERT_EQ(a.size(), 3u);
      ASSERT_EQ(b.size(), 3u);
      const nlohmann::json& ja = g["schedulers"][0]["metrics"][metric];
      const nlohmann::json& jb = g["schedulers"][1]["metrics"][metric];
      EXPECT_EQ(ja["n"], 3);
      EXPECT_DOUBLE_EQ(ja["mean"].get<double>(), mean(a));
      EXPECT_NEAR(ja["ci_half_width"].get<double>(), kT975Df2 * stdev(a) / std::sqrt(3.0), 1e-9 * mean(a));
      EXPECT_FALSE(ja.contains("change_mean_of_ratios"));  // the baseline
      EXPECT_DOUBLE_EQ(jb["mean"].get<double>(), mean(b));
      EXPECT_NEAR(jb["ci_half_width"].get<double>(), kT975Df2 * stdev(b) / std::sqrt(3.0), 1e-9 * mean(b));
      // beta against alpha, paired by (point, seed)
      std::vector<double> rel;
      for (std::size_t k = 0; k < 3; ++k) rel.push_back(b[k] / a[k] - 1);
      EXPECT_EQ(jb["pairs"], 3);
      EXPECT_NEAR(jb["change_mean_of_ratios"].get<double>(), mean(rel), 1e-12);
      EXPECT_NEAR(jb["change_mean_of_ratios_ci"].get<double>(), kT975Df2 * stdev(rel) / std::sqrt(3.0), 1e-12);
      EXPECT_NEAR(jb["change_ratio_of_means"].get<double>(), mean(b) / mean(a) - 1, 1e-12);
    }
  }
}

TEST(OutputFormats, SummarizeNotesComeFromTheToyContents) {
  use_toy_format();
  const std::string path = "notes.toy";
  make_summary_file(path);
  SummarizeOptions opt;
  opt.file = path;
  opt.plain = true;
  std::ostringstream os;
  summarize(opt, os);
  const std::string out = os.str();
  // The failed scenario is a done id without metrics; 12 + 1 of the toy's 18 scenarios are done.
  EXPECT_NE(out.find("NOTE: 1 scenario FAILED"), std::string::npos) << out;
  EXPECT_NE(out.find("NOTE: this file is INCOMPLETE: 13 of 18 scenarios (72.2%) have results; every number below is "
                     "of those only (finish it with geopipe sweep --resume)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("notes.toy: 12 scenarios with metrics"), std::string::npos) << out;
  EXPECT_NE(out.find("[point 1: workload.jobs=200]"), std::string::npos) << out;
}

// ---- analyze ---------------------------------------------------------------------------------

/// A one-at-a-time design of 2 factors: the base, factor 0 at two levels, factor 1 at one;
/// 2 seeds, 2 schedulers, every scenario done. ids: point * 4 + (seed - 1) * 2 + scheduler.
void make_oat_file(const std::string& path) {
  ToyFile f;
  f.meta = toy_meta("oat", 16, true);
  f.factors = {"workload.jobs", "network.scale"};
  f.unit = {NAN, NAN, 0.25, NAN, 0.75, NAN, NAN, 0.5};
  const double jct[4][2][2] = {{{100, 104}, {80, 86}},   // point 0 (base): alpha, beta over seeds 1, 2
                               {{130, 126}, {100, 90}},  // factor 0, low
                               {{90, 98}, {60, 77}},     // factor 0, high
                               {{101, 107}, {95, 107}}}; // factor 1
  for (std::int64_t p = 0; p < 4; ++p)
    for (std::uint64_t seed = 1; seed <= 2; ++seed)
      for (std::size_t s = 0; s < 2; ++s) {
        const double v = jct[p][s][seed - 1];
        f.rows.push_back({p * 4 + static_cast<std::int64_t>((seed - 1) * 2 + s), p, seed, f.meta.schedulers[s], 0, v, v / 10});
      }
  toy_files()[path] = f;
}

/// y per point: the mean over seeds of `scheduler`'s avg_jct_s, or of its paired change
/// against `vs`.
std::vector<double> oat_y(const std::string& path, const std::string& scheduler, const std::string& vs = "") {
  std::vector<double> y;
  for (std::int64_t p = 0; p < 4; ++p) {
    const std::vector<double> a = values_of(path, p, scheduler, &ToyRow::avg_jct_s);
    if (vs.empty()) {
      y.push_back(mean(a));
      continue;
    }
    const std::vector<double> b = values_of(path, p, vs, &ToyRow::avg_jct_s);
    std::vector<double> rel;
    for (std::size_t k = 0; k < a.size(); ++k) rel.push_back(a[k] / b[k] - 1);
    y.push_back(mean(rel));
  }
  return y;
}

void expect_oat(const AnalyzeReport& r, const std::vector<double>& y) {
  ASSERT_EQ(r.points, 4u);
  EXPECT_EQ(r.factors, (std::vector<std::string>{"workload.jobs", "network.scale"}));
  EXPECT_FALSE(r.constant);
  EXPECT_DOUBLE_EQ(r.base_value, y[0]);
  ASSERT_EQ(r.oat.size(), 2u);
  EXPECT_EQ(r.oat[0].levels, 2u);
  EXPECT_DOUBLE_EQ(r.oat[0].y_min, std::min({y[0], y[1], y[2]}));
  EXPECT_DOUBLE_EQ(r.oat[0].y_max, std::max({y[0], y[1], y[2]}));
  EXPECT_EQ(r.oat[1].levels, 1u);
  EXPECT_DOUBLE_EQ(r.oat[1].y_min, std::min(y[0], y[3]));
  EXPECT_DOUBLE_EQ(r.oat[1].y_max, std::max(y[0], y[3]));
  EXPECT_EQ(r.noise.seeds_min, 2u);
  EXPECT_EQ(r.noise.seeds_max, 2u);
  const double m = mean(y);
  double var = 0;
  for (const double v : y) var += (v - m) * (v - m);
  EXPECT_NEAR(r.noise.variance, var / 4, 1e-9 * var);
}

TEST(OutputFormats, AnalyzeReadsAToyFormatThroughTheSeam) {
  use_toy_format();
  const std::string path = "design.toy";
  make_oat_file(path);
  const ToyCalls before = toy_calls();
  AnalyzeOptions opt;
  opt.method = "oat";
  opt.file = path;
  const AnalyzeReport r = analyze(opt);
  EXPECT_EQ(toy_calls().metric, before.metric + 1);
  EXPECT_EQ(r.options.scheduler, "alpha");  // the toy's first scheduler
  EXPECT_EQ(r.quantity, "avg_jct_s of alpha");
  const std::vector<double> y = oat_y(path, "alpha");
  EXPECT_EQ(y, (std::vector<double>{102, 128, 94, 104}));  // the hand computation itself
  expect_oat(r, y);
  // The standard error of each point's mean over its 2 seeds: |x1 - x2| / 2; their RMS.
  double se2 = 0;
  for (std::int64_t p = 0; p < 4; ++p) {
    const std::vector<double> a = values_of(path, p, "alpha", &ToyRow::avg_jct_s);
    se2 += (a[0] - a[1]) * (a[0] - a[1]) / 4;
  }
  EXPECT_NEAR(r.noise.rms_standard_error, std::sqrt(se2 / 4), 1e-12);
}

TEST(OutputFormats, AnalyzePairedChangeOfAToyFormat) {
  use_toy_format();
  const std::string path = "paired.toy";
  make_oat_file(path);
  AnalyzeOptions opt;
  opt.method = "oat";
  opt.file = path;
  opt.scheduler = "beta";
  opt.paired_vs = "alpha";
  const AnalyzeReport r = analyze(opt);
  EXPECT_EQ(r.quantity, "paired change of avg_jct_s, beta / alpha - 1");
  expect_oat(r, oat_y(path, "beta", "alpha"));
}

TEST(OutputFormats, AnalyzeSeesTheToyDesignAndFailures) {
  use_toy_format();
  make_oat_file("lhs.toy");
  toy_files()["lhs.toy"].meta.design = "lhs";
  AnalyzeOptions opt;
  opt.method = "oat";
  opt.file = "lhs.toy";
  try {
    analyze(opt);
    FAIL() << "analyze oat accepted an lhs design";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("this file's sweep has design = \"lhs\""), std::string::npos) << e.what();
  }
  make_oat_file("failed.toy");
  ToyFile& f = toy_files()["failed.toy"];
  f.failed.push_back(f.rows.back());
  f.rows.pop_back();
  opt.file = "failed.toy";
  opt.scheduler = "beta";
  try {
    analyze(opt);
    FAIL() << "analyze accepted a failed scenario";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1 scenario of beta failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("toy failure"), std::string::npos) << e.what();
  }
}

// ---- the table of formats ----------------------------------------------------------------------

TEST(OutputFormats, PathsGoToTheFormatOfTheirEnding) {
  use_toy_format();
  make_summary_file("a.toy");
  const ToyCalls before = toy_calls();
  EXPECT_EQ(read_contents("a.toy").done_ids.size(), 13u);
  EXPECT_EQ(read_results("a.toy").numeric.front().size(), 12u);
  EXPECT_EQ(read_metric("a.toy", "avg_jct_s").value.size(), 12u);
  EXPECT_EQ(toy_calls().contents, before.contents + 1);
  EXPECT_EQ(toy_calls().results, before.results + 1);
  EXPECT_EQ(toy_calls().metric, before.metric + 1);
  // Other endings, and none, go to HDF5 (the default), which has no such file.
  for (const std::string p : {"missing.h5", "missing.hdf5", "missing", "missing.toy.bak"}) {
    SCOPED_TRACE(p);
    EXPECT_THROW(read_contents(p), InputError);
    EXPECT_THROW(read_results(p), InputError);
    EXPECT_THROW(read_metric(p, "avg_jct_s"), InputError);
  }
  EXPECT_EQ(toy_calls().contents, before.contents + 1);
  EXPECT_EQ(toy_calls().metric, before.metric + 1);
  // merge: inputs must be of the output's format; a toy output goes to the toy's merge.
  EXPECT_THROW(merge_results({"a.toy"}, "out.h5"), InputError);
  EXPECT_EQ(toy_calls().merge, before.merge);
  EXPECT_THROW(merge_results({"a.toy"}, "out.toy"), InputError);
  EXPECT_EQ(toy_calls().merge, before.merge + 1);
}

TEST(OutputFormats, RegistrationRefusesIncompleteOrAmbiguousFormats) {
  use_toy_format();
  const auto refused = [](OutputFormat f) {
    try {
      register_output_format(std::move(f));
    } catch (const std::invalid_argument&) {
      return true;
    }
    return false;
  };
  OutputFormat f = toy_format();
  EXPECT_TRUE(refused(f));  // the toy is in the table already
  f.name = "hdf5";
  f.endings = {".other"};
  EXPECT_TRUE(refused(f));  // a name of the table
  f.name = "other";
  EXPECT_TRUE(refused([&] { auto g = f; g.endings = {}; return g; }()));
  EXPECT_TRUE(refused([&] { auto g = f; g.endings = {""}; return g; }()));
  EXPECT_TRUE(refused([&] { auto g = f; g.endings = {".h5"}; return g; }()));
  EXPECT_TRUE(refused([&] { auto g = f; g.endings = {".x.h5"}; return g; }()));  // ends with ".h5"
  EXPECT_TRUE(refused([&] { auto g = f; g.endings = {"5"}; return g; }()));      // the end of ".h5"
  EXPECT_TRUE(refused([&] { auto g = f; g.read_metric = nullptr; return g; }()));
  EXPECT_TRUE(refused([&] { auto g = f; g.read_contents = nullptr; return g; }()));
  EXPECT_TRUE(refused([&] { auto g = f; g.name = ""; return g; }()));
  // None of them was added: ".other" still goes to HDF5.
  const ToyCalls before = toy_calls();
  EXPECT_THROW(read_contents("x.other"), InputError);
  EXPECT_EQ(toy_calls().contents, before.contents);
}

}  // namespace
}  // namespace geopipe::sweep
