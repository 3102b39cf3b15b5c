// Tests of sweep files (src/sweepfile/loader.h, docs/sweep-format.md): expansion order,
// ranges, zips, explicit points, schedulers and seeds, [sweep.set], columns, the hash,
// ScenarioFactory (including concurrent use), every shipped sweep under sweeps/, and a
// data-driven test over tests/config/sweeps/bad/*.toml whose first line is
// "# expect: <substring of the error message>" ("A ... B": A, then later B).
#include <gtest/gtest.h>

#include "expectations.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "config/scenario_loader.h"
#include "sweepfile/loader.h"
#include "util/input_error.h"
#include "sched/registry.h"
#include "util/hash.h"

namespace fs = std::filesystem;
using namespace geopipe;
using util::fnv1a64;
using namespace geopipe::config;

namespace {

const std::string kDir = GEOPIPE_CONFIG_TEST_DIR;
const std::string kSourceDir = GEOPIPE_SOURCE_DIR;
const std::string kSweeps = kDir + "/sweeps";
const std::string kBase = fs::absolute(kSweeps + "/base/two-regions.toml").lexically_normal().string();
const std::string kSixRegions = fs::absolute(kSourceDir + "/sweeps/base/six-regions.toml").lexically_normal().string();

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A fresh directory for the files of one test, removed at the end.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("geopipe_test_sweep_" + std::string(info ? info->name() : "x") + "_" +
            std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p.string();
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

/// "[sweep]" header with the two-region base (absolute path), then `rest`.
std::string sweep_text(const std::string& rest, const std::string& schedulers = "[\"bace-pipe\"]",
                       const std::string& seeds = "2", const std::string& base = kBase) {
  return "[sweep]\nname = \"t\"\nbase = \"" + base + "\"\nschedulers = " + schedulers + "\nseeds = " + seeds + "\n" +
         rest;
}

SweepSpec load_text(const TempDir& tmp, const std::string& text, const std::vector<Override>& cli = {}) {
  return load_sweep_file(tmp.write("sweep.toml", text), cli);
}

/// Runs `f`, expecting an InputError; returns its what().
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

/// The value this point gives `param` (TOML text), or "" if it does not set it.
std::string value_of(const SweepPoint& p, const std::string& param) {
  std::string v;
  for (const auto& o : p.overrides)
    if (o.path == param) v = o.value;
  return v;
}

std::vector<double> column_values(const SweepSpec& s, std::size_t col) {
  std::vector<double> out;
  for (std::size_t i = 0; i < s.num_points(); ++i) out.push_back(s.point(i).numeric.at(col));
  return out;
}

/// Text that differs whenever two scenarios differ in anything the tests care about.
std::string fingerprint(const Scenario& sc) {
  std::ostringstream os;
  os.precision(17);
  os << sc.name << '|' << sc.source_path << '|' << sc.bandwidth_scale << '|' << sc.capacity_scale << '|'
     << sc.compute.mfu << '|' << sc.workload.num_jobs << '|' << sc.workload.load_scale << '|'
     << sc.workload.arrival_rate_per_hour << '|' << sc.scheduler.preset << '|' << sc.scheduler.epsilon << '|';
  for (const auto& r : sc.topology.regions) os << r.name << ':' << r.gpu_count << ':' << r.pue << ',';
  for (const auto& l : sc.topology.links) os << l.capacity_bytes_per_s << '/' << l.latency_s << ',';
  for (const auto& m : sc.workload.mix) os << m.model << ':' << m.weight << ':' << m.gpus_per_stage << ',';
  const auto jobs = sc.jobs_for_seed(3);
  os << '|' << jobs.size();
  for (const auto& j : jobs) os << ',' << j.arrival_s << ':' << j.model << ':' << j.stages << ':' << j.iterations;
  return os.str();
}

int region(const Scenario& sc, const std::string& name) {
  const int r = sc.topology.find_region(name);
  EXPECT_GE(r, 0) << name;
  return r;
}

}  // namespace

// ============================================================================================
// Expansion
// ============================================================================================

TEST(SweepExpand, ProductOrderLastAxisFastest) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1, 2.0]

[[axis]]
param = "workload.load_scale"
values = [1, 2]
)",
                                                "[\"bace-pipe\", \"cost-first\"]", "3"));
  ASSERT_EQ(s.num_points(), 6u);
  EXPECT_EQ(s.num_scenarios(), 6u * 3u * 2u);
  const std::vector<std::pair<std::string, std::string>> expect = {
      {"0.5", "1"}, {"0.5", "2"}, {"1", "1"}, {"1", "2"}, {"2.0", "1"}, {"2.0", "2"}};
  for (std::size_t i = 0; i < expect.size(); ++i) {
    const SweepPoint p = s.point(i);
    ASSERT_EQ(p.overrides.size(), 2u);
    EXPECT_EQ(p.overrides[0].path, "network.bandwidth_scale");
    EXPECT_EQ(p.overrides[1].path, "workload.load_scale");
    EXPECT_EQ(p.overrides[0].value, expect[i].first) << i;  // the file's own TOML type is kept
    EXPECT_EQ(p.overrides[1].value, expect[i].second) << i;
  }
  ASSERT_EQ(s.columns.size(), 2u);
  EXPECT_EQ(s.columns[0].param, "network.bandwidth_scale");
  EXPECT_EQ(s.columns[1].param, "workload.load_scale");
  EXPECT_TRUE(s.columns[0].numeric);
  EXPECT_TRUE(s.columns[1].numeric);
  EXPECT_EQ(column_values(s, 0), (std::vector<double>{0.5, 0.5, 1, 1, 2, 2}));
  EXPECT_EQ(column_values(s, 1), (std::vector<double>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(s.point(4).text[0], "2.0");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.base_path, kBase);
  EXPECT_EQ(s.base_text, read_file(kBase));
  EXPECT_EQ(s.text, read_file(s.path));
}

TEST(SweepExpand, DesignGridIsTheDefault) {
  TempDir tmp;
  const std::string axes = R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1, 2.0]
)";
  const SweepSpec implicit = load_text(tmp, sweep_text(axes));
  const SweepSpec expl = load_text(tmp, sweep_text("design = \"grid\"\n" + axes));
  ASSERT_EQ(expl.num_points(), 3u);
  ASSERT_EQ(implicit.num_points(), expl.num_points());
  for (std::size_t i = 0; i < expl.num_points(); ++i)
    EXPECT_EQ(value_of(expl.point(i), "network.bandwidth_scale"),
              value_of(implicit.point(i), "network.bandwidth_scale"));
}

TEST(SweepExpand, OverridesPointAtTheValuesInTheFile) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text("[[axis]]\nparam = \"network.bandwidth_scale\"\nvalues = [0.5,  2]\n"));
  ASSERT_EQ(s.num_points(), 2u);
  const Override a = s.point(0).overrides.at(0);
  const Override b = s.point(1).overrides.at(0);
  EXPECT_EQ(a.origin, s.path);
  EXPECT_EQ(a.line, 8);
  EXPECT_EQ(a.column, 11);
  EXPECT_EQ(b.line, 8);
  EXPECT_EQ(b.column, 17);
}

TEST(SweepExpand, LinspaceValuesExact) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
range = { start = 0.5, stop = 2.0, num = 4 }
)"));
  EXPECT_EQ(column_values(s, 0), (std::vector<double>{0.5, 1.0, 1.5, 2.0}));
  EXPECT_EQ(s.point(1).overrides[0].value, "1.0");  // floats stay floats
  EXPECT_EQ(s.point(2).text[0], "1.5");

  const SweepSpec d = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
range = { start = 2, stop = 0.5, num = 4 }    # descending is fine
)"));
  EXPECT_EQ(column_values(d, 0), (std::vector<double>{2.0, 1.5, 1.0, 0.5}));

  const SweepSpec t = load_text(tmp, sweep_text(R"(
[[axis]]
param = "sim.mfu"
range = { start = 0.1, stop = 0.3, num = 3 }    # 0.2 exactly, not 0.19999999999999998
)"));
  EXPECT_EQ(column_values(t, 0), (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(t.point(1).overrides[0].value, "0.2");

  const SweepSpec one = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
range = { start = 0.75, stop = 4, num = 1 }
)"));
  EXPECT_EQ(column_values(one, 0), (std::vector<double>{0.75}));
}

TEST(SweepExpand, LogRangeValuesExact) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
range = { start = 0.125, stop = 8.0, num = 7, log = true }
)"));
  EXPECT_EQ(column_values(s, 0), (std::vector<double>{0.125, 0.25, 0.5, 1, 2, 4, 8}));
  const SweepSpec t = load_text(tmp, sweep_text(R"(
[[axis]]
param = "workload.load_scale"
range = { start = 1, stop = 1000, num = 4, log = true }
)"));
  EXPECT_EQ(column_values(t, 0), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(t.point(3).overrides[0].value, "1000.0");
}

TEST(SweepExpand, IntegerAxes) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "workload.num_jobs"
range = { start = 10, stop = 40, num = 4 }
integer = true

[[axis]]
param = "cluster.region.a.gpus"
values = [2.4, 6.6]
integer = true
)"));
  ASSERT_EQ(s.num_points(), 8u);
  EXPECT_EQ(s.point(0).overrides[0].value, "10");
  EXPECT_EQ(s.point(2).overrides[0].value, "20");
  EXPECT_EQ(s.point(7).overrides[0].value, "40");
  EXPECT_EQ(s.point(0).overrides[1].value, "2");
  EXPECT_EQ(s.point(1).overrides[1].value, "7");
  EXPECT_DOUBLE_EQ(s.point(1).numeric[1], 7.0);
  ScenarioFactory f(s);
  const Scenario sc = f.make(7);
  EXPECT_EQ(sc.workload.num_jobs, 40);
  EXPECT_EQ(sc.topology.regions[static_cast<std::size_t>(region(sc, "a"))].gpu_count, 7);
}

TEST(SweepExpand, ZipGroupsVaryTogether) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "workload.load_scale"
values = [1, 2]

[[zip]]
[[zip.axis]]
param = "network.bandwidth_scale"
values = [0.5, 1, 2]
[[zip.axis]]
param = "cluster.capacity_scale"
range = { start = 0.5, stop = 2, num = 3 }
)"));
  ASSERT_EQ(s.num_points(), 6u);
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.columns[0].param, "workload.load_scale");
  EXPECT_EQ(s.columns[1].param, "network.bandwidth_scale");
  EXPECT_EQ(s.columns[2].param, "cluster.capacity_scale");
  EXPECT_EQ(column_values(s, 0), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(column_values(s, 1), (std::vector<double>{0.5, 1, 2, 0.5, 1, 2}));
  EXPECT_EQ(column_values(s, 2), (std::vector<double>{0.5, 1.25, 2, 0.5, 1.25, 2}));
}

TEST(SweepExpand, DimensionsInFileOrderAcrossAxisAndZip) {
  TempDir tmp;
  // The [[zip]] comes first in the file, so it is the slower dimension.
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[zip]]
[[zip.axis]]
param = "network.bandwidth_scale"
values = [0.5, 2]
[[zip.axis]]
param = "sim.mfu"
values = [0.3, 0.5]

[[axis]]
param = "workload.load_scale"
values = [1, 2, 3]
)"));
  ASSERT_EQ(s.num_points(), 6u);
  EXPECT_EQ(s.columns[0].param, "network.bandwidth_scale");
  EXPECT_EQ(s.columns[1].param, "sim.mfu");
  EXPECT_EQ(s.columns[2].param, "workload.load_scale");
  EXPECT_EQ(column_values(s, 0), (std::vector<double>{0.5, 0.5, 0.5, 2, 2, 2}));
  EXPECT_EQ(column_values(s, 1), (std::vector<double>{0.3, 0.3, 0.3, 0.5, 0.5, 0.5}));
  EXPECT_EQ(column_values(s, 2), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(SweepExpand, ExplicitPointsAppended) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0]

[[point]]
"network.bandwidth_scale" = 0.1
"workload.load_scale" = 3

[[point]]
workload.num_jobs = 5        # dotted keys work too
)"));
  ASSERT_EQ(s.num_points(), 4u);
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.columns[1].param, "workload.load_scale");
  EXPECT_EQ(s.columns[2].param, "workload.num_jobs");
  EXPECT_TRUE(std::isnan(s.point(0).numeric[1]));
  EXPECT_EQ(s.point(0).text[1], "");
  EXPECT_DOUBLE_EQ(s.point(2).numeric[0], 0.1);
  EXPECT_DOUBLE_EQ(s.point(2).numeric[1], 3);
  EXPECT_EQ(s.point(2).text[1], "3");
  EXPECT_EQ(s.point(3).overrides.size(), 1u);
  EXPECT_EQ(value_of(s.point(3), "workload.num_jobs"), "5");
  EXPECT_TRUE(std::isnan(s.point(3).numeric[0]));
  ScenarioFactory f(s);
  EXPECT_DOUBLE_EQ(f.make(2).workload.load_scale, 3);
  EXPECT_EQ(f.make(3).workload.num_jobs, 5);
}

TEST(SweepExpand, PointsOnlyAndBaseOnly) {
  TempDir tmp;
  const SweepSpec base_only = load_text(tmp, sweep_text(""));
  ASSERT_EQ(base_only.num_points(), 1u);
  EXPECT_TRUE(base_only.point(0).overrides.empty());
  EXPECT_TRUE(base_only.columns.empty());
  EXPECT_EQ(base_only.num_scenarios(), 2u);

  // With no axes or zips, only the explicit points run (an empty [[point]] is the base).
  const SweepSpec pts = load_text(tmp, sweep_text(R"(
[[point]]
[[point]]
"sim.mfu" = 0.3
)"));
  ASSERT_EQ(pts.num_points(), 2u);
  EXPECT_TRUE(pts.point(0).overrides.empty());
  EXPECT_EQ(value_of(pts.point(1), "sim.mfu"), "0.3");
}

TEST(SweepExpand, SchedulersAllAndSeeds) {
  TempDir tmp;
  const SweepSpec all = load_text(tmp, sweep_text("", "\"all\"", "4"));
  EXPECT_EQ(all.schedulers, preset_names());
  EXPECT_EQ(all.seeds, (std::vector<std::uint64_t>{1, 2, 3, 4}));

  const SweepSpec list = load_text(tmp, sweep_text("", "[\"cost-first\", \"bace-pipe\"]", "[5, 0, 9]"));
  EXPECT_EQ(list.schedulers, (std::vector<std::string>{"cost-first", "bace-pipe"}));
  EXPECT_EQ(list.seeds, (std::vector<std::uint64_t>{5, 0, 9}));
  EXPECT_EQ(list.num_scenarios(), 6u);
}

TEST(SweepExpand, FixedSetBothSyntaxesThenCommandLine) {
  TempDir tmp;
  const std::string text = sweep_text(R"(
[sweep.set]
"workload.num_jobs" = 7
sim.mfu = 0.3

[sweep.set.network]
bandwidth_scale = 0.25

[sweep.set.cluster.region.b]
gpus = 4
)");
  const SweepSpec s = load_text(tmp, text, {parse_override("scheduler.epsilon=0.5")});
  ASSERT_EQ(s.fixed.size(), 5u);
  EXPECT_EQ(s.fixed[0].path, "workload.num_jobs");
  EXPECT_EQ(s.fixed[0].value, "7");
  EXPECT_EQ(s.fixed[0].origin, s.path);
  EXPECT_EQ(s.fixed[0].line, 8);
  EXPECT_EQ(s.fixed[0].column, 23);
  EXPECT_EQ(s.fixed[1].path, "sim.mfu");
  EXPECT_EQ(s.fixed[1].value, "0.3");
  EXPECT_EQ(s.fixed[2].path, "network.bandwidth_scale");
  EXPECT_EQ(s.fixed[2].value, "0.25");
  EXPECT_EQ(s.fixed[3].path, "cluster.region.b.gpus");
  EXPECT_EQ(s.fixed[4].path, "scheduler.epsilon");
  EXPECT_EQ(s.fixed[4].origin, "--set");
  EXPECT_TRUE(s.columns.empty());  // fixed parameters are not columns

  ScenarioFactory f(s);
  const Scenario sc = f.make(0);
  EXPECT_EQ(sc.workload.num_jobs, 7);
  EXPECT_DOUBLE_EQ(sc.compute.mfu, 0.3);
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 0.25);
  EXPECT_EQ(sc.topology.regions[static_cast<std::size_t>(region(sc, "b"))].gpu_count, 4);
  EXPECT_DOUBLE_EQ(sc.scheduler.epsilon, 0.5);
}

// A fixed value of a parameter the sweep varies would be replaced by the points' values without
// a word: a --set of any swept parameter is an error at the first value that replaces it, a
// [sweep.set] entry of an axis's or zip's parameter an error at the entry, however the paths
// are spelled.
// ---- Latin hypercube design -------------------------------------------------------------------

std::string lhs_text(const std::string& factors, const std::string& lhs = "samples = 40\nseed = 5\n") {
  return sweep_text("design = \"lhs\"\n\n[lhs]\n" + lhs + "\n" + factors);
}

const std::string kLhsFactors = R"([[factor]]
param = "network.bandwidth_scale"
min = 0.5
max = 2.5

[[factor]]
param = "workload.load_scale"
kind = "log-uniform"
min = 0.25
max = 4.0

[[factor]]
param = "workload.num_jobs"
kind = "integer"
min = 3
max = 6

[[factor]]
param = "sim.mfu"
kind = "discrete"
values = [0.3, 0.35, 0.4, 0.45]
)";

// Each factor's range is cut into N strata of equal probability with exactly one point in each
// (log-uniform: in log space); integer and discrete factors get each value N / (count) times
// when that divides; the points are the same for the same file, and another seed moves them.
TEST(SweepLhs, StratifiedDeterministicAndSeeded) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, lhs_text(kLhsFactors));
  ASSERT_EQ(s.num_points(), 40u);
  ASSERT_EQ(s.columns.size(), 4u);
  EXPECT_EQ(s.columns[0].param, "network.bandwidth_scale");
  EXPECT_TRUE(s.columns[3].numeric);
  std::vector<int> bw(40, 0), load(40, 0);
  std::map<double, int> jobs, mfu;
  for (std::size_t i = 0; i < 40; ++i) {
    const SweepPoint p = s.point(i);
    ASSERT_EQ(p.overrides.size(), 4u);
    const double b = p.numeric[0], l = p.numeric[1];
    ASSERT_GE(b, 0.5);
    ASSERT_LT(b, 2.5);
    ++bw[static_cast<std::size_t>((b - 0.5) / 2.0 * 40)];
    ++load[static_cast<std::size_t>((std::log(l) - std::log(0.25)) / (std::log(4.0) - std::log(0.25)) * 40)];
    ++jobs[p.numeric[2]];
    ++mfu[p.numeric[3]];
    EXPECT_EQ(p.overrides[2].value, std::to_string(static_cast<int>(p.numeric[2])));  // an integer, not "3.0"
  }
  EXPECT_EQ(bw, std::vector<int>(40, 1));
  EXPECT_EQ(load, std::vector<int>(40, 1));
  EXPECT_EQ(jobs, (std::map<double, int>{{3, 10}, {4, 10}, {5, 10}, {6, 10}}));
  EXPECT_EQ(mfu, (std::map<double, int>{{0.3, 10}, {0.35, 10}, {0.4, 10}, {0.45, 10}}));
  // Deterministic; the seed moves the points; a factor's values do not depend on the factors after it.
  const SweepSpec again = load_text(tmp, lhs_text(kLhsFactors));
  EXPECT_EQ(again.point_digests, s.point_digests);
  const SweepSpec other = load_text(tmp, lhs_text(kLhsFactors, "samples = 40\nseed = 6\n"));
  EXPECT_NE(other.point(0).numeric[0], s.point(0).numeric[0]);
  const SweepSpec fewer = load_text(tmp, lhs_text(kLhsFactors.substr(0, kLhsFactors.find("[[factor]]\nparam = \"workload.load_scale\""))));
  ASSERT_EQ(fewer.columns.size(), 1u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(fewer.point(i).numeric[0], s.point(i).numeric[0]);
}

TEST(SweepLhs, ShippedExampleLoadsAndBuilds) {
  const SweepSpec s = load_sweep_file(kSweeps + "/good/lhs.toml");
  EXPECT_EQ(s.num_scenarios(), 16u * 2u * 2u);
  EXPECT_TRUE(s.checked_all);
  ScenarioFactory f(s);
  std::map<int, int> gpus;
  for (std::size_t i = 0; i < 16; ++i) ++gpus[f.make(i).topology.regions.at(1).gpu_count];
  EXPECT_EQ(gpus, (std::map<int, int>{{4, 4}, {5, 4}, {6, 4}, {7, 4}}));
}

// A sampling design larger than SweepLoadOptions::check_all_up_to builds only a sample of its
// points, but checks each value on its own: a value out of the schema's range in a point that
// is not built is still reported, at its [[factor]].
TEST(SweepLhs, LargeDesignsCheckEveryValue) {
  TempDir tmp;
  SweepLoadOptions small;
  small.check_all_up_to = 10;
  small.sample_points = 5;
  const std::string ok = lhs_text("[[factor]]\nparam = \"network.bandwidth_scale\"\nkind = \"log-uniform\"\nmin = 0.5\nmax = 4.0\n");
  const SweepSpec s = load_sweep_file(tmp.write("ok.toml", ok), {}, small);
  EXPECT_FALSE(s.checked_all);
  EXPECT_EQ(s.points_checked, 5u);
  std::string bad = ok;
  bad.replace(bad.find("max = 4.0"), 9, "max = 4.0e6");  // the top stratum (point values > 1e6) is invalid
  const std::string e = input_error_of([&] { load_sweep_file(tmp.write("bad.toml", bad), {}, small); });
  EXPECT_NE(e.find("bad.toml:12:1: network.bandwidth_scale must be <= 1000000 (got "), std::string::npos) << e;
}

TEST(SweepLhs, BadInputIsLocated) {
  TempDir tmp;
  struct Case {
    std::string text, want;
  };
  const std::string f = "[[factor]]\nparam = \"network.bandwidth_scale\"\n";
  const std::vector<Case> cases = {
      {lhs_text(f + "min = 2.0\nmax = 1.0\n"), ":15:7: factor[0]: max must be greater than min (got min = 2.0, max = 1.0)"},
      {lhs_text(f + "kind = \"log_uniform\"\nmin = 1\nmax = 2\n"), ":14:8: factor[0].kind: unknown kind 'log_uniform' (did you mean 'log-uniform'?)"},
      {lhs_text(f + "kind = \"log-uniform\"\nmin = 0.0\nmax = 2\n"), ":15:7: factor[0].min must be > 0 for kind = \"log-uniform\" (got 0.0)"},
      {lhs_text(f + "min = 1\nmax = 2\n", "samples = 0\n"), ":9:11: lhs.samples must be in [1, 10000000] (got 0)"},
      {lhs_text(f + "kind = \"integer\"\nmin = 1.5\nmax = 4\n"), ":15:7: factor[0].min: expected an integer for kind = \"integer\", got a float"},
      {lhs_text(f + "kind = \"discrete\"\n"), ":12:1: factor[0]: missing 'values'"},
      {lhs_text(f + "values = [1, 2]\nmin = 1\n"), ": values = [...] is for kind = \"discrete\""},
      {lhs_text(f + "min = 1\nmax = 2\nstep = 1\n"), ":16:1: unknown key 'step' in factor[0]"},
      {lhs_text("[[factor]]\nparam = \"network.bandwith_scale\"\nmin = 1\nmax = 2\n"), ":13:9: unknown parameter 'network.bandwith_scale' (did you mean 'network.bandwidth_scale'?)"},
      {lhs_text(f + "min = 1\nmax = 2\n" + f + "min = 1\nmax = 3\n"), ":17:9: factor[1].param: 'network.bandwidth_scale' is already factor[0]"},
      {lhs_text(f + "min = 1\nmax = 2\n") + "\n[[axis]]\nparam = \"sim.mfu\"\nvalues = [0.3]\n", "[[axis]] belongs to design 'grid', but this sweep's design is 'lhs'"},
      {sweep_text("design = \"lhs\"\n"), ":1:1: design 'lhs' needs an [lhs] table"},
      {lhs_text(""), ": design 'lhs' has no [[factor]]"},
      {sweep_text("[[factor]]\nparam = \"sim.mfu\"\nmin = 0.1\nmax = 0.2\n"), "[[factor]] belongs to design 'lhs', but this sweep's design is 'grid'"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error_of([&] { load_text(tmp, c.text); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e << "\nin:\n" << c.text;
  }
}

// ---- one-at-a-time design ---------------------------------------------------------------------

// The base, then each factor's levels with every other parameter at the base's value: a
// log-uniform factor's levels are geometric, an integer factor's repeated values are dropped,
// a discrete factor takes each value; /design has the varied factor's u and NaN elsewhere.
TEST(SweepOat, BaseThenEachFactorAlone) {
  TempDir tmp;
  const std::string factors = R"([[factor]]
param = "network.bandwidth_scale"
kind = "log-uniform"
min = 0.25
max = 4.0

[[factor]]
param = "workload.num_jobs"
kind = "integer"
min = 3
max = 5

[[factor]]
param = "sim.mfu"
kind = "discrete"
values = [0.3, 0.45]
)";
  const SweepSpec s = load_text(tmp, sweep_text("design = \"oat\"\n\n" + factors));  // [oat] optional: 5 levels
  ASSERT_EQ(s.num_points(), 1u + 5u + 3u + 2u);
  EXPECT_TRUE(s.point(0).overrides.empty());
  for (std::size_t i = 1; i < s.num_points(); ++i) EXPECT_EQ(s.point(i).overrides.size(), 1u) << i;
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(s.point(1 + k).overrides[0].path, "network.bandwidth_scale");
    EXPECT_NEAR(s.point(1 + k).numeric[0], 0.25 * std::pow(2.0, static_cast<double>(k)), 1e-12);
  }
  EXPECT_EQ(s.point(6).overrides[0].value, "3");
  EXPECT_EQ(s.point(7).overrides[0].value, "4");
  EXPECT_EQ(s.point(8).overrides[0].value, "5");
  EXPECT_EQ(s.point(9).overrides[0].value, "0.3");
  EXPECT_EQ(s.point(10).overrides[0].value, "0.45");
  ASSERT_EQ(s.unit_factors.size(), 3u);
  ASSERT_EQ(s.unit.size(), 11u * 3u);
  EXPECT_TRUE(std::isnan(s.unit[0]) && std::isnan(s.unit[1]) && std::isnan(s.unit[2]));
  EXPECT_EQ(s.unit[3 * 3 + 0], 0.5);  // point 3: the bandwidth's third level
  EXPECT_TRUE(std::isnan(s.unit[3 * 3 + 1]));
  EXPECT_EQ(s.design, "oat");
  // levels = 2: the ends of each range
  const SweepSpec two = load_text(tmp, sweep_text("design = \"oat\"\n\n[oat]\nlevels = 2\n\n" + factors));
  EXPECT_EQ(two.num_points(), 1u + 2u + 2u + 2u);
  const std::string e = input_error_of([&] { load_text(tmp, sweep_text("design = \"oat\"\n\n[oat]\nlevels = 1\n\n" + factors)); });
  EXPECT_NE(e.find(":9:10: oat.levels must be in [2, 1000000] (got 1)"), std::string::npos) << e;
  const std::string none = input_error_of([&] { load_text(tmp, sweep_text("design = \"oat\"\n")); });
  EXPECT_NE(none.find("design 'oat' has no [[factor]]"), std::string::npos) << none;
}

// ---- Sobol' (Saltelli) design ----------------------------------------------------------------

std::string sobol_text(const std::string& factors, const std::string& sobol = "samples = 16\n") {
  return sweep_text("design = \"sobol\"\n\n[sobol]\n" + sobol + "\n" + factors);
}

const std::string kTwoFactors = R"([[factor]]
param = "network.bandwidth_scale"
min = 0.5
max = 2.5

[[factor]]
param = "workload.load_scale"
kind = "log-uniform"
min = 0.25
max = 4.0
)";

// SALib's layout: per sample A, AB_1..AB_D, BA_1..BA_D, B, where AB_j is A with column j from
// B and BA_j is B with column j from A; the base sample (A | B) is a balanced (0, m, 2D)-net:
// with N = 16, each of the 16 intervals [k/16, (k+1)/16) of every coordinate holds one point.
TEST(SweepSobol, SaltelliBlocksOnABalancedSequence) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sobol_text(kTwoFactors));
  const std::size_t d = 2, k = 2 * d + 2, n = 16;
  ASSERT_EQ(s.num_points(), n * k);
  ASSERT_EQ(s.unit.size(), n * k * d);
  EXPECT_EQ(s.design, "sobol");
  auto u = [&](std::size_t point, std::size_t j) { return s.unit[point * d + j]; };
  std::vector<std::vector<int>> strata(2 * d, std::vector<int>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = i * k, b = i * k + k - 1;
    for (std::size_t j = 0; j < d; ++j) {
      ++strata[j][static_cast<std::size_t>(u(a, j) * n)];
      ++strata[d + j][static_cast<std::size_t>(u(b, j) * n)];
      for (std::size_t c = 0; c < d; ++c) {
        EXPECT_EQ(u(a + 1 + j, c), c == j ? u(b, c) : u(a, c)) << "AB_" << j << " of sample " << i;
        EXPECT_EQ(u(a + 1 + d + j, c), c == j ? u(a, c) : u(b, c)) << "BA_" << j << " of sample " << i;
      }
    }
    // The values are the unit coordinates mapped by the factors' kinds.
    EXPECT_NEAR(s.point(a).numeric[0], 0.5 + 2.0 * u(a, 0), 1e-12);
    EXPECT_NEAR(s.point(a).numeric[1], std::exp(std::log(0.25) + u(a, 1) * (std::log(4.0) - std::log(0.25))), 1e-12);
  }
  for (const auto& c : strata) EXPECT_EQ(c, std::vector<int>(n, 1));
  // Deterministic; the seed moves every point (a new digital shift) and keeps the balance.
  EXPECT_EQ(load_text(tmp, sobol_text(kTwoFactors)).unit, s.unit);
  const SweepSpec other = load_text(tmp, sobol_text(kTwoFactors, "samples = 16\nseed = 2\n"));
  EXPECT_NE(other.unit[0], s.unit[0]);
  // Without second order: A, AB_j, B.
  const SweepSpec first = load_text(tmp, sobol_text(kTwoFactors, "samples = 16\nsecond_order = false\n"));
  ASSERT_EQ(first.num_points(), n * (d + 2));
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(first.unit[(i * (d + 2)) * d], s.unit[(i * k) * d]);                    // A_i
    EXPECT_EQ(first.unit[(i * (d + 2) + d + 1) * d], s.unit[(i * k + k - 1) * d]);  // B_i
  }
}

TEST(SweepSobol, BadInputIsLocated) {
  TempDir tmp;
  struct Case {
    std::string text, want;
  };
  const std::vector<Case> cases = {
      {sobol_text(kTwoFactors, "samples = 100\n"), ":9:11: sobol.samples must be a power of two (got 100; the nearest are 64 and 128)"},
      {sobol_text(kTwoFactors, "samples = 1\n"), ":9:11: sobol.samples must be in [2, 16777216] (got 1)"},
      {sobol_text(kTwoFactors, "samples = 8\nsecond_order = 1\n"), ":10:16: sobol.second_order: expected true or false, got an integer"},
      {sobol_text(kTwoFactors, "samples = 8\nsecond = true\n"), ":10:1: unknown key 'second' in [sobol] (expected one of 'samples', 'second_order', 'seed')"},
      {sobol_text(kTwoFactors, "N = 8\n"), ":9:1: unknown key 'N' in [sobol]"},
      {sobol_text(kTwoFactors, "seed = 8\n"), ": sobol: missing 'samples' (expected the number of base samples N, a power of two)"},
      {sweep_text("design = \"sobol\"\n\n" + kTwoFactors), ":1:1: design 'sobol' needs a [sobol] table"},
      {sobol_text(""), ": design 'sobol' has no [[factor]]"},
      {sobol_text("[[factor]]\nparam = \"network.bandwidth_scale\"\nmin = 2\nmax = 1\n"), ":14:7: factor[0]: max must be greater than min"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error_of([&] { load_text(tmp, c.text); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e << "\nin:\n" << c.text;
  }
}

// ---- Morris design ---------------------------------------------------------------------------

std::string morris_text(const std::string& factors, const std::string& morris = "trajectories = 10\n") {
  return sweep_text("design = \"morris\"\n\n[morris]\n" + morris + "\n" + factors);
}

// Trajectories of D + 1 points on the p-level grid, each step moving exactly one factor by
// Delta = p / (2 (p - 1)), every factor once per trajectory; adding trajectories keeps the
// earlier ones.
TEST(SweepMorris, OneFactorPerStepOnTheGrid) {
  TempDir tmp;
  const std::string factors = kTwoFactors + "\n[[factor]]\nparam = \"sim.mfu\"\nkind = \"discrete\"\nvalues = [0.3, 0.35, 0.4, 0.45]\n";
  const SweepSpec s = load_text(tmp, morris_text(factors, "trajectories = 10\nlevels = 6\n"));
  const std::size_t d = 3, r = 10;
  const double delta = 6.0 / (2.0 * 5.0);
  ASSERT_EQ(s.num_points(), r * (d + 1));
  EXPECT_EQ(s.design, "morris");
  for (std::size_t t = 0; t < r; ++t) {
    std::vector<int> moved(d, 0);
    for (std::size_t step = 1; step <= d; ++step) {
      const std::size_t p = t * (d + 1) + step;
      std::size_t changed = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double now = s.unit[p * d + j], before = s.unit[(p - 1) * d + j];
        const double level = now * 5.0;
        EXPECT_NEAR(level, std::round(level), 1e-12) << "off the grid";
        EXPECT_GE(now, 0.0);
        EXPECT_LE(now, 1.0);
        if (now != before) {
          ++changed;
          ++moved[j];
          EXPECT_NEAR(std::abs(now - before), delta, 1e-12);
        }
      }
      EXPECT_EQ(changed, 1u) << "trajectory " << t << " step " << step;
    }
    EXPECT_EQ(moved, std::vector<int>(d, 1)) << "trajectory " << t;
  }
  // Adding trajectories keeps the earlier ones; the seed moves them.
  const SweepSpec more = load_text(tmp, morris_text(factors, "trajectories = 12\nlevels = 6\n"));
  ASSERT_EQ(more.unit.size(), 12u * (d + 1) * d);
  EXPECT_TRUE(std::equal(s.unit.begin(), s.unit.end(), more.unit.begin()));
  EXPECT_NE(load_text(tmp, morris_text(factors, "trajectories = 10\nlevels = 6\nseed = 3\n")).unit, s.unit);
  // A discrete factor's p levels map to its values, u = 1 to the last.
  std::set<std::string> mfu;
  for (std::size_t p = 0; p < s.num_points(); ++p) mfu.insert(s.point(p).text[2]);
  EXPECT_TRUE(mfu.count("0.45") == 1 && mfu.count("0.3") == 1) << "levels 0 and 1 reach both ends";
}

TEST(SweepMorris, BadInputIsLocated) {
  TempDir tmp;
  struct Case {
    std::string text, want;
  };
  const std::vector<Case> cases = {
      {morris_text(kTwoFactors, "trajectories = 1\n"), ":9:16: morris.trajectories must be in [2, 1000000] (got 1)"},
      {morris_text(kTwoFactors, "trajectories = 4\nlevels = 5\n"), ":10:10: morris.levels must be even (got 5)"},
      {morris_text(kTwoFactors, "trajectories = 4\nlevel = 4\n"), ":10:1: unknown key 'level' in [morris] (did you mean 'levels'?)"},
      {sweep_text("design = \"morris\"\n\n" + kTwoFactors), ":1:1: design 'morris' needs a [morris] table"},
      {morris_text("[[factor]]\nparam = \"network.bandwidth_scale\"\nkind = \"normal\"\nmin = 1\nmax = 2\n"),
       ":13:8: factor[0].kind: unknown kind 'normal'"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error_of([&] { load_text(tmp, c.text); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e << "\nin:\n" << c.text;
  }
}

// ---- test functions --------------------------------------------------------------------------

// A [test_function] sweep has no base, no schedulers and optional seeds; its factors are the
// function's inputs on its domain; the constants are fixed parameters and part of the keys.
TEST(SweepTestFunction, InputsAreTheFactors) {
  TempDir tmp;
  const std::string text = "[sweep]\nname = \"ish\"\ndesign = \"lhs\"\n\n[test_function]\nname = \"ishigami\"\n\n[lhs]\nsamples = 8\n";
  const SweepSpec s = load_text(tmp, text);
  ASSERT_TRUE(s.test_function.has_value());
  EXPECT_EQ(s.schedulers, std::vector<std::string>{"ishigami"});
  EXPECT_EQ(s.seeds, std::vector<std::uint64_t>{1});
  EXPECT_EQ(s.base_text, "");
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.columns[2].param, "x3");
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(s.point(i).numeric[j], -pi + 2 * pi * s.unit[i * 3 + j], 1e-12);
  std::vector<std::string> params;
  for (const auto& p : s.parameters) params.push_back(p.path + "=" + p.value);
  EXPECT_EQ(params, (std::vector<std::string>{"test_function.a=7.0", "test_function.b=0.1", "test_function.name=\"ishigami\"",
                                               "x1=", "x2=", "x3="}));
  ASSERT_EQ(s.point_digests.size(), 8u);
  EXPECT_NE(s.point_digests[0], s.point_digests[1]);
  // Another constant is another function: every key changes.
  std::string b = text;
  b.insert(b.find("\n\n[lhs]"), "\nb = 0.2");
  const SweepSpec other = load_text(tmp, b);
  EXPECT_EQ(other.unit, s.unit);
  EXPECT_NE(other.point_digests[0], s.point_digests[0]);
  // The G-function: D = the coefficients' count, inputs on [0, 1].
  const SweepSpec g = load_text(tmp, "[sweep]\nname = \"g\"\ndesign = \"sobol\"\nseeds = 2\n[test_function]\nname = \"sobol-g\"\na = [0, 9]\n[sobol]\nsamples = 4\n");
  EXPECT_EQ(g.columns.size(), 2u);
  EXPECT_EQ(g.num_scenarios(), 4u * 6u * 2u);
  EXPECT_EQ(g.point(0).numeric[1], g.unit[1]);
}

TEST(SweepTestFunction, BadInputIsLocated) {
  TempDir tmp;
  const std::string head = "[sweep]\nname = \"t\"\ndesign = \"lhs\"\n";
  const std::string lhs = "[lhs]\nsamples = 4\n";
  struct Case {
    std::string text, want;
  };
  const std::vector<Case> cases = {
      {head + "[test_function]\nname = \"ishigame\"\n" + lhs, ":5:8: test_function.name: unknown test function 'ishigame' (did you mean 'ishigami'?)"},
      {head + "[test_function]\nname = \"ishigami\"\nc = 1\n" + lhs, ":6:1: unknown key 'c' in [test_function] (ishigami)"},
      {head + "[test_function]\nname = \"sobol-g\"\na = [1, -2]\n" + lhs, ":6:9: test_function.a[1] must be >= 0 (got -2.0)"},
      {head + "[test_function]\nname = \"sobol-g\"\na = []\n" + lhs, ":6:5: test_function.a: expected a non-empty array"},
      {head + "[test_function]\n" + lhs, "[test_function] is missing 'name'"},
      {head + "[test_function]\nname = \"ishigami\"\n" + lhs + "[[factor]]\nparam = \"x1\"\nmin = 0\nmax = 1\n",
       ":8:1: a sweep with a [test_function] takes no [[factor]]: the function's inputs x1 .. x3 are its factors"},
      {"[sweep]\nname = \"t\"\nbase = \"b.toml\"\ndesign = \"lhs\"\n[test_function]\nname = \"ishigami\"\n" + lhs,
       ":3:8: sweep.base: a sweep with a [test_function] has no base scenario"},
      {"[sweep]\nname = \"t\"\nschedulers = [\"bace-pipe\"]\ndesign = \"lhs\"\n[test_function]\nname = \"ishigami\"\n" + lhs,
       ":3:14: sweep.schedulers: a sweep with a [test_function] has no schedulers"},
      {"[sweep]\nname = \"t\"\n[test_function]\nname = \"ishigami\"\n", "a [test_function] needs a sampling design"},
      {head + "[sweep.set]\n\"sim.mfu\" = 0.3\n[test_function]\nname = \"ishigami\"\n" + lhs,
       "a sweep with a [test_function] has no scenario parameters to set"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error_of([&] { load_text(tmp, c.text); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e << "\nin:\n" << c.text;
  }
  // --set has nothing to set either.
  const std::string e = input_error_of([&] {
    load_text(tmp, head + "[test_function]\nname = \"ishigami\"\n" + lhs, {parse_override("sim.mfu=0.3")});
  });
  EXPECT_NE(e.find("--set sim.mfu: a sweep with a [test_function] has no scenario parameters to set"), std::string::npos) << e;
}


// ---- points_file design ------------------------------------------------------------------------

std::string points_file_text(const std::string& csv = "points.csv") {
  return sweep_text("design = \"points_file\"\n\n[points_file]\npath = \"" + csv + "\"\n");
}

// The rows of a CSV are the points, in order; cells are numbers, booleans, TOML values or
// strings (quoted or bare); CRLF, spaces around unquoted cells and blank lines are fine; the
// CSV's content is part of the sweep hash.
TEST(SweepPointsFile, RowsAreThePoints) {
  TempDir tmp;
  tmp.write("points.csv",
            "network.bandwidth_scale,cluster.region.b.gpu,workload.num_jobs\r\n"
            "0.5,H100-SXM,3\r\n"
            " 2 ,\"A100-80GB\",4\r\n"
            "\r\n"
            "1e-1,\"H100-SXM\",5\r\n");
  const SweepSpec s = load_text(tmp, points_file_text());
  ASSERT_EQ(s.num_points(), 3u);
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_TRUE(s.columns[0].numeric);
  EXPECT_FALSE(s.columns[1].numeric);
  EXPECT_EQ(s.point(0).overrides[0].value, "0.5");
  EXPECT_EQ(s.point(1).overrides[0].value, "2");
  EXPECT_EQ(s.point(2).overrides[0].value, "0.1");
  EXPECT_EQ(s.point(0).overrides[1].value, "\"H100-SXM\"");
  EXPECT_EQ(s.point(1).text[1], "\"A100-80GB\"");
  EXPECT_EQ(s.point(2).numeric[2], 5.0);
  EXPECT_EQ(fs::path(s.point(1).overrides[0].origin), fs::path(tmp.path()) / "points.csv");
  EXPECT_EQ(s.point(1).overrides[0].line, 3);
  ScenarioFactory f(s);
  EXPECT_EQ(f.make(1).topology.regions.at(1).gpu_type, f.make(1).topology.regions.at(0).gpu_type);
  const std::uint64_t hash = s.hash;
  tmp.write("points.csv", "network.bandwidth_scale\n0.5\n");
  EXPECT_NE(load_text(tmp, points_file_text()).hash, hash);
}

TEST(SweepPointsFile, ErrorsPointIntoTheCsv) {
  TempDir tmp;
  struct Case {
    std::string csv, want;
  };
  const std::vector<Case> cases = {
      {"network.bandwith_scale\n1\n", "points.csv:1:1: unknown parameter 'network.bandwith_scale' (did you mean 'network.bandwidth_scale'?)"},
      {"sim.mfu,network.bandwidth_scale\n0.3,1\n0.4,-2\n", "points.csv:3:5: network.bandwidth_scale must be >= 1e-06 (got -2)"},
      {"sim.mfu,network.bandwidth_scale\n0.3,1,7\n", "points.csv:2:7: row has 3 cells, the header 2"},
      {"sim.mfu,network.bandwidth_scale\n0.3\n", "points.csv:2:1: row has 1 cells, the header 2"},
      {"sim.mfu,network.bandwidth_scale\n0.3,\n", "points.csv:2:5: empty value"},
      {"sim.mfu\n\"0.3\n", "points.csv:2:1: unclosed quote"},
      {"sim.mfu\n\"0.3\"x\n", "points.csv:2:6: text after a closing quote"},
      {"", "points.csv:1:1: empty points file"},
      {"sim.mfu\n", "points.csv:2:1: no points"},
      {"sim.mfu,sim.mfu\n0.3,0.3\n", "points.csv:1:9: column 'sim.mfu' repeats column 1"},
      {"sim.mfu,,x\n0.3,1,2\n", "points.csv:1:9: empty column name"},
      {"sim.mfu\n\"0.3\"\n", "points.csv:2:1: sim.mfu: expected a number, got a string"},
  };
  for (const Case& c : cases) {
    tmp.write("points.csv", c.csv);
    const std::string e = input_error_of([&] { load_text(tmp, points_file_text()); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e;
  }
  const std::string missing = input_error_of([&] { load_text(tmp, points_file_text("nope.csv")); });
  EXPECT_NE(missing.find("sweep.toml:9:8: cannot open points file 'nope.csv'"), std::string::npos) << missing;
  const std::string no_table = input_error_of([&] { load_text(tmp, sweep_text("design = \"points_file\"\n")); });
  EXPECT_NE(no_table.find("needs a [points_file] table"), std::string::npos) << no_table;
}

// A sweep larger than SweepLoadOptions::check_all_up_to builds a covering sample at load time:
// every value of every axis (so a bad value is still reported where it is written), every
// [[point]], and sample_points more; the grid itself is generated on demand.
TEST(SweepLoader, LargeSweepsCheckEveryValueAndASample) {
  TempDir tmp;
  std::string values = "[";
  for (int i = 0; i < 10; ++i) values += (i ? ", " : "") + std::to_string(0.5 + 0.1 * i);
  values += "]";
  const auto text = [&](const std::string& mid) {
    return sweep_text("[[axis]]\nparam = \"network.bandwidth_scale\"\nvalues = " + values +
                      "\n\n[[axis]]\nparam = \"workload.load_scale\"\nvalues = " + mid +
                      "\n\n[[axis]]\nparam = \"sim.mfu\"\nvalues = [0.30, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36, 0.37, "
                      "0.38, 0.39]\n\n[[point]]\n\"sim.mfu\" = 0.5\n");
  };
  SweepLoadOptions small;
  small.check_all_up_to = 100;
  small.sample_points = 0;
  const std::string path = tmp.write("sweep.toml", text(values));
  const SweepSpec s = load_sweep_file(path, {}, small);
  EXPECT_EQ(s.num_points(), 1001u);
  EXPECT_FALSE(s.checked_all);
  // the diagonal (10 points) and each level of each axis from point 0 (1 + 3 x 9), sharing
  // point 0, and the listed point
  EXPECT_EQ(s.points_checked, 10u + 28u - 1u + 1u);
  small.sample_points = 100;
  EXPECT_EQ(load_sweep_file(path, {}, small).points_checked, 138u);
  EXPECT_EQ(load_sweep_file(path, {}, small).point_digests, load_sweep_file(path, {}, small).point_digests);
  SweepLoadOptions all = small;
  all.check_all_points = true;
  const SweepSpec full = load_sweep_file(path, {}, all);
  EXPECT_TRUE(full.checked_all);
  EXPECT_EQ(full.points_checked, 1001u);
  EXPECT_EQ(full.point_digests, s.point_digests);
  EXPECT_EQ(full.job_text.regions, s.job_text.regions);
  // Generated points equal what a small sweep of the same grid materialises: point 123 is
  // levels (1, 2, 3) of (bandwidth, load, mfu), the last axis fastest.
  const SweepPoint p = s.point(123);
  ASSERT_EQ(p.overrides.size(), 3u);
  EXPECT_EQ(p.overrides[0].value, "0.6");
  EXPECT_EQ(p.overrides[1].value, "0.7");
  EXPECT_EQ(p.overrides[2].value, "0.33");
  EXPECT_EQ(s.point(1000).overrides.at(0).value, "0.5");  // the [[point]]
  // A bad value in the middle of the second axis: found and located although the sweep is large.
  // Also when no built point has it (at most 3 points of each structured part: the value is
  // checked on its own).
  std::string bad = values;
  bad.replace(bad.find("1.2"), 3, "-1.2");
  SweepLoadOptions tiny = small;
  tiny.cover_points = 3;
  tiny.sample_points = 0;
  for (const SweepLoadOptions& o : {small, tiny}) {
    const std::string e = input_error_of([&] { load_sweep_file(tmp.write("bad.toml", text(bad)), {}, o); });
    EXPECT_NE(e.find("bad.toml:12:81: workload.load_scale must be >= 1e-06 (got -1.2)"), std::string::npos) << e;
  }
  EXPECT_EQ(load_sweep_file(path, {}, tiny).points_checked, 3u + 3u - 1u + 1u);
}

// Every parameter of the resolved base is in SweepSpec::parameters (canonical path and value,
// or the column that holds it per point), and each column knows its canonical path and the
// value a point that does not set it has: what the /parameters table and the /scenarios cells
// record.
TEST(SweepLoader, ResolvedParametersAndColumnFallbacks) {
  TempDir tmp;
  const std::string text = sweep_text(R"(
[sweep.set]
"network.bandwidth_scale" = 3

[[axis]]
param = "cluster.region.b.gpus"
values = [2, 4]

[[point]]
"workload.num_jobs" = 9
)");
  const SweepSpec spec = load_text(tmp, text, {parse_override("scheduler.epsilon=0.25")});
  ASSERT_EQ(spec.columns.size(), 2u);
  EXPECT_EQ(spec.columns[0].param, "cluster.region.b.gpus");
  EXPECT_EQ(spec.columns[0].canonical_path, "cluster.region[1].gpus");
  EXPECT_EQ(spec.columns[0].fixed_text, "8");  // two-regions.toml: region b has 8 GPUs
  EXPECT_EQ(spec.columns[1].canonical_path, "workload.num_jobs");
  const auto find = [&](const std::string& path) -> const SweepParameter* {
    for (const auto& p : spec.parameters)
      if (p.path == path) return &p;
    return nullptr;
  };
  for (std::size_t i = 1; i < spec.parameters.size(); ++i)
    EXPECT_LT(spec.parameters[i - 1].path, spec.parameters[i].path);
  const SweepParameter* gpus = find("cluster.region[1].gpus");
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->column, 0);
  EXPECT_EQ(gpus->value, "");
  ASSERT_TRUE(find("workload.num_jobs"));
  EXPECT_EQ(find("workload.num_jobs")->column, 1);
  ASSERT_TRUE(find("network.bandwidth_scale"));  // [sweep.set]
  EXPECT_EQ(find("network.bandwidth_scale")->value, "3");
  EXPECT_EQ(find("network.bandwidth_scale")->column, -1);
  ASSERT_TRUE(find("scheduler.epsilon"));  // --set
  EXPECT_EQ(find("scheduler.epsilon")->value, "0.25");
  ASSERT_TRUE(find("cluster.region[0].name"));  // the base, as a TOML string
  EXPECT_EQ(find("cluster.region[0].name")->value, "\"a\"");
  // The parameters are the resolved base's entries: those of its canonical form, plus the
  // parameters added after format 4 at their defaults (left out of the key, not of the table).
  PointKeyer keyer(spec.base_text, spec.base_path, spec.fixed);
  EXPECT_EQ(spec.parameters.size(), keyer.fixed_entries().size());
  EXPECT_LT(keyer.canonical({}).size(), spec.parameters.size());
  ASSERT_TRUE(find("sim.pipeline_schedule"));
  EXPECT_EQ(find("sim.pipeline_schedule")->value, "\"gpipe\"");
}

TEST(SweepLoader, FixedValueOfASweptParameterIsAnError) {
  TempDir tmp;
  const std::string axes = R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 2]

[[zip]]
[[zip.axis]]
param = "cluster.region.b.gpus"
values = [2, 4]
[[zip.axis]]
param = "sim.mfu"
values = [0.3, 0.4]

[[point]]
"workload.num_jobs" = 9
)";
  const std::string text = sweep_text(axes);
  struct Case {
    std::string set, where, param;
  };
  for (const Case& c : {Case{"network.bandwidth_scale=3", ":9:11:", "network.bandwidth_scale"},
                        Case{"cluster.region[1].gpus=8", ":14:11:", "cluster.region.b.gpus"},
                        Case{"sim.mfu=0.5", ":17:11:", "sim.mfu"},
                        Case{"workload.num_jobs=3", ":20:23:", "workload.num_jobs"}}) {
    const std::string e = input_error_of([&] { load_text(tmp, text, {parse_override(c.set)}); });
    EXPECT_NE(e.find("sweep.toml" + c.where + " --set " + c.set + " changes '" + c.param + "'"), std::string::npos)
        << c.set << ": " << e;
  }
  // Not swept: fine, and applied.
  const SweepSpec ok = load_text(tmp, text, {parse_override("scheduler.epsilon=0.5")});
  EXPECT_EQ(ok.fixed.back().path, "scheduler.epsilon");

  // [sweep.set]: an error when every point replaces it (no [[point]] leaves sim.mfu alone).
  const std::string grid_only = axes.substr(0, axes.find("[[point]]"));
  const std::string e = input_error_of([&] { load_text(tmp, sweep_text("[sweep.set]\nsim.mfu = 0.2\n" + grid_only)); });
  EXPECT_NE(e.find("sweep.toml:7:11: [sweep.set] 'sim.mfu' is also swept by this sweep ('sim.mfu' at line 19, column 11)"),
            std::string::npos)
      << e;
}

// A [sweep.set] value is the default of the [[point]]s that do not set the parameter; the
// points that do win. (Fixing an axis's parameter is an error: FixedValueOfASweptParameterIsAnError.)
TEST(SweepExpand, PointOverridesWinOverFixed) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[sweep.set]
"network.bandwidth_scale" = 4

[[point]]
"network.bandwidth_scale" = 0.5

[[point]]
"sim.mfu" = 0.3
)"));
  ScenarioFactory f(s);
  EXPECT_DOUBLE_EQ(f.make(0).bandwidth_scale, 0.5);
  EXPECT_DOUBLE_EQ(f.make(1).bandwidth_scale, 4);
}

TEST(SweepExpand, PointValueOfWrongTypeIsRejectedAtTheValue) {
  TempDir tmp;
  const std::string m = input_error_of([&] {
    load_text(tmp, sweep_text(R"(
[[axis]]
param = "sim.mfu"
values = [0.3]

[[point]]
"sim.mfu" = "0.5"
)"));
  });
  EXPECT_NE(m.find("sweep.toml:12:13: sim.mfu: expected a number, got a string"), std::string::npos) << m;
}

TEST(SweepExpand, TextAndNumericColumns) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "scheduler.preset"
values = ["cost-first", "bace-pipe"]

[[axis]]
param = "workload.reference_gpu"
values = ["A100-80GB"]

[[point]]
"workload.load_scale" = 2
"workload.reference_gpu" = "H100-SXM"
)"));
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_FALSE(s.columns[0].numeric);
  EXPECT_FALSE(s.columns[1].numeric);
  EXPECT_TRUE(s.columns[2].numeric);
  EXPECT_EQ(s.point(0).text[0], "\"cost-first\"");
  EXPECT_TRUE(std::isnan(s.point(0).numeric[0]));
  EXPECT_EQ(s.point(2).text[1], "\"H100-SXM\"");
  ScenarioFactory f(s);
  EXPECT_EQ(f.make(1).scheduler.preset, "bace-pipe");
  EXPECT_EQ(f.make(2).workload.reference_gpu, "H100-SXM");
}

// ============================================================================================
// Hash
// ============================================================================================

TEST(SweepHash, ChangesWithSweepTextBaseTextAndCliSetsOnly) {
  TempDir tmp;
  const std::string base_copy = tmp.write("base.toml", read_file(kBase));
  const std::string text = sweep_text("[[axis]]\nparam = \"sim.mfu\"\nvalues = [0.3, 0.4]\n", "[\"bace-pipe\"]", "2",
                                      base_copy);
  const std::string p1 = tmp.write("a.toml", text);
  const std::string p2 = tmp.write("b.toml", text);  // same text, other file name
  const std::uint64_t h = load_sweep_file(p1).hash;
  EXPECT_EQ(load_sweep_file(p1).hash, h);
  EXPECT_EQ(load_sweep_file(p2).hash, h);
  EXPECT_EQ(h, fnv1a64(read_file(base_copy), fnv1a64(std::string(1, '\0'), fnv1a64(text))));

  // Sweep text.
  const std::string p3 = tmp.write("c.toml", text + "# a comment\n");
  EXPECT_NE(load_sweep_file(p3).hash, h);

  // Command-line sets.
  const std::uint64_t h_cli = load_sweep_file(p1, {parse_override("workload.num_jobs=5")}).hash;
  EXPECT_NE(h_cli, h);
  EXPECT_EQ(load_sweep_file(p1, {parse_override("workload.num_jobs = 5")}).hash, h_cli);  // same path=value
  EXPECT_NE(load_sweep_file(p1, {parse_override("workload.num_jobs=6")}).hash, h_cli);
  EXPECT_EQ(h_cli, fnv1a64(std::string(1, '\0') + "workload.num_jobs=5", h));

  // Base text.
  tmp.write("base.toml", read_file(kBase) + "# changed\n");
  EXPECT_NE(load_sweep_file(p1).hash, h);
}

// ============================================================================================
// ScenarioFactory
// ============================================================================================

TEST(SweepFactory, AppliesFixedAndPointOverrides) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[sweep.set]
"workload.num_jobs" = 9

[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0, 2.0]
)"));
  const Scenario base = load_scenario_file(kBase);
  ScenarioFactory f(s);
  const Scenario half = f.make(0);
  const Scenario same = f.make(1);
  const Scenario twice = f.make(2);
  const int a = region(base, "a"), b = region(base, "b");
  const double cap = base.topology.link(a, b).capacity_bytes_per_s;
  ASSERT_GT(cap, 0);
  EXPECT_DOUBLE_EQ(half.topology.link(a, b).capacity_bytes_per_s, cap / 2);
  EXPECT_DOUBLE_EQ(half.topology.link(b, a).capacity_bytes_per_s, cap / 2);
  EXPECT_DOUBLE_EQ(same.topology.link(a, b).capacity_bytes_per_s, cap);
  EXPECT_DOUBLE_EQ(twice.topology.link(a, b).capacity_bytes_per_s, cap * 2);
  EXPECT_EQ(half.workload.num_jobs, 9);
  EXPECT_EQ(base.workload.num_jobs, 20);
  EXPECT_EQ(half.source_path, kBase);
  // Everything else is the base.
  EXPECT_EQ(fingerprint(same), fingerprint(load_scenario_file(kBase, {parse_override("workload.num_jobs=9")})));
  EXPECT_THROW((void)f.make(3), std::out_of_range);
}

TEST(SweepFactory, ConcurrentMakeGivesIdenticalScenarios) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0, 2.0]
[[axis]]
param = "cluster.region.a.gpus"
values = [2, 8]
[[axis]]
param = "scheduler.preset"
values = ["cost-first", "bace-pipe"]
)",
                                                "[\"bace-pipe\"]", "2"));
  const ScenarioFactory f(s);
  std::vector<std::string> serial;
  for (std::size_t i = 0; i < s.num_points(); ++i) serial.push_back(fingerprint(f.make(i)));
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep)
        for (std::size_t k = 0; k < s.num_points(); ++k) {
          const std::size_t i = (k + t) % s.num_points();  // different order per thread
          if (rep == 0) got[t].resize(s.num_points());
          got[t][i] = fingerprint(f.make(i));
        }
    });
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < 4; ++t) EXPECT_EQ(got[t], serial) << "thread " << t;
  // Different points really differ.
  EXPECT_NE(serial[0], serial[1]);
}

TEST(SweepFactory, MakeTimeSixRegions) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text(R"(
[sweep.set]
"workload.num_jobs" = 100
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1, 2]
[[axis]]
param = "workload.load_scale"
values = [1, 2]
)",
                                                "[\"bace-pipe\"]", "1", kSixRegions));
  ScenarioFactory f(s);
  const int n = 200;
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t regions = 0;
  for (int i = 0; i < n; ++i) regions += f.make(static_cast<std::size_t>(i) % s.num_points()).topology.regions.size();
  const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
  EXPECT_EQ(regions, static_cast<std::size_t>(n) * 6);
  std::printf("ScenarioFactory::make on six-regions: %.1f us per call\n", per * 1e6);
  RecordProperty("make_us", std::to_string(per * 1e6));
}

TEST(SweepFactory, RelativeBaseAndRelativeTrace) {
  const SweepSpec s = load_sweep_file(kSweeps + "/good/relative-base.toml");
  EXPECT_EQ(fs::path(s.base_path).lexically_normal(), fs::path(kSweeps + "/base/two-regions.toml").lexically_normal());
  EXPECT_EQ(s.schedulers, (std::vector<std::string>{"bace-pipe", "first-fit"}));
  EXPECT_EQ(s.num_scenarios(), 2u * 2u * 2u);

  // workload.trace in the base is relative to the base file, not to the sweep file.
  const SweepSpec t = load_sweep_file(kSweeps + "/good/trace.toml");
  ScenarioFactory f(t);
  const Scenario sc = f.make(1);
  EXPECT_EQ(sc.trace_jobs.size(), 2u);
  EXPECT_EQ(sc.topology.total_gpus(), 8);
  EXPECT_EQ(t.seeds, (std::vector<std::uint64_t>{3}));
}

// ============================================================================================
// Errors not covered by the bad files
// ============================================================================================

TEST(SweepErrors, MissingFileAndCliSets) {
  const std::string m1 = input_error_of([] { load_sweep_file("/nonexistent/sweep.toml"); });
  EXPECT_EQ(m1, "/nonexistent/sweep.toml: cannot open sweep file: no such file");

  TempDir tmp;
  const std::string p = tmp.write("s.toml", sweep_text(""));
  const std::string m2 = input_error_of([&] { load_sweep_file(p, {parse_override("network.bandwith_scale=2")}); });
  EXPECT_EQ(m2, "--set: unknown parameter 'network.bandwith_scale' (did you mean 'network.bandwidth_scale'?)");
  const std::string m3 = input_error_of([&] { load_sweep_file(p, {parse_override("workload.num_jobs=0")}); });
  EXPECT_EQ(m3, "--set: workload.num_jobs must be >= 1 (got 0)");
}

TEST(SweepErrors, EveryPointIsValidated) {
  TempDir tmp;
  // Only the last combination is invalid: capacity 0.05 leaves 0 GPUs in region a (8 GPUs) and b.
  const std::string m = input_error_of([&] {
    load_text(tmp, sweep_text(R"(
[[axis]]
param = "network.bandwidth_scale"
values = [0.5, 1.0]
[[axis]]
param = "cluster.capacity_scale"
values = [1.0, 0.05]
)"));
  });
  EXPECT_NE(m.find("sweep.toml:12:16: cluster.capacity_scale = 0.05 leaves 0 GPUs in the cluster"), std::string::npos)
      << m;
}

// ============================================================================================
// Shipped sweeps and bad files
// ============================================================================================

namespace {

bool has_sweep_table(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find_first_not_of(" \t");
    if (a != std::string::npos && line.compare(a, 7, "[sweep]") == 0) return true;
  }
  return false;
}

std::vector<std::string> shipped_sweeps() {
  std::vector<std::string> out;
  const fs::path dir = fs::path(kSourceDir) / "sweeps";
  if (fs::is_directory(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".toml" && has_sweep_table(e.path().string()))
        out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> bad_files() { return testing_support::toml_files_in(fs::path(kSweeps) / "bad"); }

std::string test_name(const std::string& file) {
  std::string n = file.substr(0, file.size() - 5);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace

class ShippedSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedSweep, Loads) {
  const std::string path = kSourceDir + "/sweeps/" + GetParam();
  try {
    const SweepSpec s = load_sweep_file(path);
    EXPECT_GE(s.num_scenarios(), 1u);
    if (s.test_function) {  // no scenarios: the inputs are the columns
      EXPECT_EQ(s.columns.size(), s.test_function->dimension());
      return;
    }
    ScenarioFactory f(s);
    (void)f.make(0);
    (void)f.make(s.num_points() - 1);
  } catch (const InputError& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ShippedSweep, ::testing::ValuesIn(shipped_sweeps()),
                         [](const ::testing::TestParamInfo<std::string>& tpi) { return test_name(tpi.param); });

TEST(ShippedSweeps, QuickExistsAndIsSmall) {
  const auto all = shipped_sweeps();
  EXPECT_NE(std::find(all.begin(), all.end(), "quick.toml"), all.end());
  const SweepSpec s = load_sweep_file(kSourceDir + "/sweeps/quick.toml");
  EXPECT_GE(s.num_scenarios(), 100u);
  EXPECT_LE(s.num_scenarios(), 500u);
}

class BadSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSweep, IsRejectedWithExpectedMessage) {
  testing_support::expect_rejected_as_marked<InputError>(
      kSweeps + "/bad/" + GetParam(), [](const std::string& p) { load_sweep_file(p); }, /*needs_line=*/true);
}

INSTANTIATE_TEST_SUITE_P(Files, BadSweep, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<std::string>& tpi) { return test_name(tpi.param); });

TEST(BadSweepFiles, AtLeastFifteen) { EXPECT_GE(bad_files().size(), 15u); }

// ---- seeds until a precision -------------------------------------------------------------------

namespace {

TEST(SweepSeedsRule, ParsedWithDefaults) {
  TempDir tmp;
  const SweepSpec s = load_text(tmp, sweep_text("", "[\"bace-pipe\", \"delay-first\"]",
                                                "{ max = 12, rel_ci = 0.02, paired_vs = \"delay-first\" }"));
  ASSERT_TRUE(s.replication.has_value());
  EXPECT_EQ(s.replication->min, 5u);
  EXPECT_EQ(s.replication->max, 12u);
  EXPECT_EQ(s.replication->rel_ci, 0.02);
  EXPECT_EQ(s.replication->abs_ci, 0.0);
  EXPECT_EQ(s.replication->confidence, 0.95);
  EXPECT_EQ(s.replication->metric, "avg_jct_s");
  EXPECT_EQ(s.replication->paired_vs, "delay-first");
  ASSERT_EQ(s.seeds.size(), 12u);
  EXPECT_EQ(s.seeds.front(), 1u);
  EXPECT_EQ(s.seeds.back(), 12u);
  // The rule of a result file's sweep text (what summarize reads).
  const auto r = replication_rule_of(s.text, s.schedulers);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->max, 12u);
  EXPECT_FALSE(replication_rule_of(sweep_text(""), {"bace-pipe"}).has_value());
}

TEST(SweepSeedsRule, BadInputIsLocated) {
  TempDir tmp;
  struct Case {
    std::string seeds, want;
  };
  const std::string two = "[\"bace-pipe\", \"delay-first\"]";
  const std::vector<Case> cases = {
      {"{ min = 5, rel_ci = 0.1 }", ":5:9: sweep.seeds: missing 'max' (expected the most seeds per point)"},
      {"{ min = 9, max = 4, rel_ci = 0.1 }", ":5:17: sweep.seeds.min = 9 is more than max = 4 (expected min <= max)"},
      {"{ min = 1, max = 4, rel_ci = 0.1 }", ":5:17: sweep.seeds.min must be in [2, 10000000] (got 1)"},
      {"{ max = 8 }", ":5:9: sweep.seeds: missing 'rel_ci'"},
      {"{ max = 4, rel_ci = 0.1 }", ":5:17: sweep.seeds.max = 4 is less than the default min = 5 (expected max >= min; set min too)"},
      {"{ max = 9, rel_ci = 0 }", ":5:29: sweep.seeds.rel_ci must be > 0 (got 0.0)"},
      {"{ max = 9, rel_ci = 0.1, confidence = 1.5 }", ":5:47: sweep.seeds.confidence must be in (0, 1) (got 1.5)"},
      {"{ max = 9, rel_ci = 0.1, metric = \"avg_jct\" }", ":5:43: sweep.seeds.metric: unknown metric 'avg_jct' (did you mean 'avg_jct_s'?)"},
      {"{ max = 9, rel_ci = 0.1, metric = \"wall_s\" }", ":5:43: sweep.seeds.metric: unknown metric 'wall_s'"},
      {"{ max = 9, rel_ci = 0.1, paired_vs = \"delay_first\" }",
       ":5:46: sweep.seeds.paired_vs: 'delay_first' is not a scheduler of this sweep (did you mean 'delay-first'?)"},
      {"{ max = 9, rel_ci = 0.1, rel = 0.2 }", ":5:34: unknown key 'rel' in sweep.seeds"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error_of([&] { load_text(tmp, sweep_text("", two, c.seeds)); });
    EXPECT_NE(e.find(c.want), std::string::npos) << "want: " << c.want << "\ngot:  " << e << "\nseeds = " << c.seeds;
  }
  const std::string one = input_error_of(
      [&] { load_text(tmp, sweep_text("", "[\"bace-pipe\"]", "{ max = 9, rel_ci = 0.1, paired_vs = \"bace-pipe\" }")); });
  EXPECT_NE(one.find("sweep.seeds.paired_vs: a paired change needs another scheduler"), std::string::npos) << one;
}

}  // namespace

// ---- one parameter, two spellings ----------------------------------------------------------------

// "cluster.region.b.gpus" and "cluster.region[1].gpus" name one parameter: two columns of it
// (factors, axes, points-file columns, explicit points) would simulate one and record the other
// in /parameters. Compared by their resolved target, not by text, in every design.
TEST(SweepParameters, TwoSpellingsOfOneParameterAreRefusedInEveryDesign) {
  TempDir tmp;
  const std::string by_name = "cluster.region.b.gpus", by_index = "cluster.region[1].gpus";
  auto refused = [&](const std::string& text, const std::string& what) {
    SCOPED_TRACE(what);
    const std::string e = input_error_of([&] { (void)load_text(tmp, text); });
    EXPECT_NE(e.find("'" + by_name + "' and '" + by_index + "' are one parameter (cluster.region[1].gpus), swept twice"),
              std::string::npos)
        << e;
  };
  const std::string factor = "[[factor]]\nparam = \"%\"\nkind = \"integer\"\nmin = 2\nmax = 4\n\n";
  auto with = [](std::string t, const std::string& p) { return t.replace(t.find('%'), 1, p); };
  refused(lhs_text(with(factor, by_name) + with(factor, by_index), "samples = 4\n"), "lhs factors");
  refused(sweep_text("design = \"oat\"\n\n[oat]\nlevels = 3\n\n" + with(factor, by_name) + with(factor, by_index)),
          "oat factors");
  refused(sweep_text("[[axis]]\nparam = \"" + by_name + "\"\nvalues = [2, 3]\n[[axis]]\nparam = \"" + by_index +
                     "\"\nvalues = [3, 4]\n"),
          "grid axes");
  tmp.write("points.csv", by_name + "," + by_index + "\n2,3\n");
  refused(points_file_text(), "points-file columns");
  refused(sweep_text("[[point]]\n\"" + by_name + "\" = 2\n[[point]]\n\"" + by_index + "\" = 3\n"), "explicit points");
  // One spelling in two places stays what it was: each parameter in one [[factor]].
  const std::string e = input_error_of([&] { (void)load_text(tmp, lhs_text(with(factor, by_name) + with(factor, by_name), "samples = 4\n")); });
  EXPECT_NE(e.find("is already factor[0]"), std::string::npos) << e;
}

// ---- test functions whose values would overflow ------------------------------------------------

// A test function's constants are refused where its values could exceed
// analysis::kMaxTestFunctionValue (they would become inf in the file and NaN in the indices).
TEST(SweepTestFunctions, ConstantsThatOverflowAreRefusedAtLoad) {
  TempDir tmp;
  auto ishigami = [](const std::string& ab) {
    return "[sweep]\nname = \"t\"\ndesign = \"lhs\"\n[test_function]\nname = \"ishigami\"\n" + ab + "\n[lhs]\nsamples = 4\n";
  };
  std::string e = input_error_of([&] { (void)load_text(tmp, ishigami("a = 1e308\nb = 1e308")); });
  EXPECT_NE(e.find("sweep.toml:7:5: test_function: a = 1e+308, b = 1e+308 give values more than 1.8e308 (expected 1 + |a| + |b| pi^4 <= 1e+100)"),
            std::string::npos)
      << e;
  e = input_error_of([&] { (void)load_text(tmp, ishigami("a = 1e101")); });
  EXPECT_NE(e.find("sweep.toml:6:5: test_function: a = 1e+101, b = 0.1 give values up to 1e+101"), std::string::npos) << e;
  EXPECT_NO_THROW((void)load_text(tmp, ishigami("a = 1e99\nb = -1e97")));  // 1e99 + 9.7e98 < 1e100
  std::string zeros;
  for (int i = 0; i < 400; ++i) zeros += (i ? ", " : "") + std::string("0");
  auto g = [](const std::string& a) {
    return "[sweep]\nname = \"t\"\ndesign = \"lhs\"\n[test_function]\nname = \"sobol-g\"\na = [" + a + "]\n[lhs]\nsamples = 4\n";
  };
  e = input_error_of([&] { (void)load_text(tmp, g(zeros)); });
  EXPECT_NE(e.find("test_function.a: these 400 coefficients give values up to 10^120.4"), std::string::npos) << e;
  std::string ok_zeros;  // 2^332 < 1e100 < 2^333
  for (int i = 0; i < 332; ++i) ok_zeros += (i ? ", " : "") + std::string("0");
  EXPECT_NO_THROW((void)load_text(tmp, g(ok_zeros)));
  EXPECT_NE(input_error_of([&] { (void)load_text(tmp, g(ok_zeros + ", 0")); }).find("333 coefficients"), std::string::npos);
}
