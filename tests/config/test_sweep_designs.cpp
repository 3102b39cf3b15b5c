// Tests of the sampling designs of sweep files (src/sweepfile/{lhs,oat,sobol,morris,points_file}.cpp
// and the test functions): their points, errors located in the file, and one parameter under two
// spellings refused in every design.
#include <gtest/gtest.h>

#include "sweep_testing.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;
using namespace geopipe::sweep_testing;

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
  ASSERT_EQ(s.points.sample.factor_names().size(), 3u);
  ASSERT_EQ(s.points.sample.unit.size(), 11u * 3u);
  EXPECT_TRUE(std::isnan(s.points.sample.unit[0]) && std::isnan(s.points.sample.unit[1]) && std::isnan(s.points.sample.unit[2]));
  EXPECT_EQ(s.points.sample.unit[3 * 3 + 0], 0.5);  // point 3: the bandwidth's third level
  EXPECT_TRUE(std::isnan(s.points.sample.unit[3 * 3 + 1]));
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
  ASSERT_EQ(s.points.sample.unit.size(), n * k * d);
  EXPECT_EQ(s.design, "sobol");
  auto u = [&](std::size_t point, std::size_t j) { return s.points.sample.unit[point * d + j]; };
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
  EXPECT_EQ(load_text(tmp, sobol_text(kTwoFactors)).points.sample.unit, s.points.sample.unit);
  const SweepSpec other = load_text(tmp, sobol_text(kTwoFactors, "samples = 16\nseed = 2\n"));
  EXPECT_NE(other.points.sample.unit[0], s.points.sample.unit[0]);
  // Without second order: A, AB_j, B.
  const SweepSpec first = load_text(tmp, sobol_text(kTwoFactors, "samples = 16\nsecond_order = false\n"));
  ASSERT_EQ(first.num_points(), n * (d + 2));
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(first.points.sample.unit[(i * (d + 2)) * d], s.points.sample.unit[(i * k) * d]);                    // A_i
    EXPECT_EQ(first.points.sample.unit[(i * (d + 2) + d + 1) * d], s.points.sample.unit[(i * k + k - 1) * d]);  // B_i
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
        const double now = s.points.sample.unit[p * d + j], before = s.points.sample.unit[(p - 1) * d + j];
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
  ASSERT_EQ(more.points.sample.unit.size(), 12u * (d + 1) * d);
  EXPECT_TRUE(std::equal(s.points.sample.unit.begin(), s.points.sample.unit.end(), more.points.sample.unit.begin()));
  EXPECT_NE(load_text(tmp, morris_text(factors, "trajectories = 10\nlevels = 6\nseed = 3\n")).points.sample.unit, s.points.sample.unit);
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
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(s.point(i).numeric[j], -pi + 2 * pi * s.points.sample.unit[i * 3 + j], 1e-12);
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
  EXPECT_EQ(other.points.sample.unit, s.points.sample.unit);
  EXPECT_NE(other.point_digests[0], s.point_digests[0]);
  // The G-function: D = the coefficients' count, inputs on [0, 1].
  const SweepSpec g = load_text(tmp, "[sweep]\nname = \"g\"\ndesign = \"sobol\"\nseeds = 2\n[test_function]\nname = \"sobol-g\"\na = [0, 9]\n[sobol]\nsamples = 4\n");
  EXPECT_EQ(g.columns.size(), 2u);
  EXPECT_EQ(g.num_scenarios(), 4u * 6u * 2u);
  EXPECT_EQ(g.point(0).numeric[1], g.points.sample.unit[1]);
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

// A test function's value does not depend on the seed: a precision-driven seeds table would add
// seeds that change nothing, so it is refused where it is written; counts and lists stay allowed.
TEST(SweepTestFunctions, SeedsUntilAPrecisionAreRefused) {
  TempDir tmp;
  const auto text = [](const std::string& seeds) {
    return "[sweep]\nname = \"t\"\ndesign = \"lhs\"\n" + seeds + "\n[test_function]\nname = \"ishigami\"\n[lhs]\nsamples = 4\n";
  };
  const std::string e =
      input_error_of([&] { (void)load_text(tmp, text("seeds = { min = 2, max = 4, rel_ci = 0.1 }")); });
  EXPECT_NE(e.find("sweep.toml:4:9: sweep.seeds: a sweep with a [test_function] has no seeds to add"), std::string::npos)
      << e;
  const config::SweepSpec s = load_text(tmp, text("seeds = 2"));
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(s.evaluated_by(), MetricSource::kTestFunction);
}
