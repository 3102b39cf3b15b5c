// Tests of the sweep loader (src/sweepfile/loader.h, docs/sweep-format.md): expansion order,
// ranges, zips, explicit points, schedulers and seeds, [sweep.set], columns, the hash, errors,
// seeds until a precision.
#include <gtest/gtest.h>

#include "sweep_testing.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;
using namespace geopipe::sweep_testing;
using util::fnv1a64;

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
  EXPECT_EQ(sc.compute.mfu, 0.3);
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 0.25);
  EXPECT_EQ(sc.topology.regions[static_cast<std::size_t>(region(sc, "b"))].gpu_count, 4);
  EXPECT_DOUBLE_EQ(sc.scheduler.epsilon, 0.5);
}

// A fixed value of a parameter the sweep varies would be replaced by the points' values without
// a word: a --set of any swept parameter is an error at the first value that replaces it, a
// [sweep.set] entry of an axis's or zip's parameter an error at the entry, however the paths
// are spelled.
// ---- Latin hypercube design -------------------------------------------------------------------

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
      {"{ max = 9, rel_ci = 0.1, metric = \"wall_s\" }", ":5:43: sweep.seeds.metric: 'wall_s' is a wall-clock measurement, not a result of the scenario"},
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
