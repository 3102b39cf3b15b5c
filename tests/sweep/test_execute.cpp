// Running one scenario of a sweep (run/execute_scenario.h, run/evaluator.h): the per-thread
// cache of the point's scenario belongs to one evaluator, even when a later one reuses its
// address; a [test_function] sweep is evaluated by its function; make_evaluator picks.
#include <gtest/gtest.h>

#include <cmath>
#include <new>
#include <string>

#include "sweepfile/loader.h"
#include "run/evaluator.h"
#include "run/execute_scenario.h"

namespace geopipe::sweep {
namespace {

/// A one-region scenario generating `jobs` jobs.
config::SweepSpec spec_with_jobs(int jobs) {
  config::SweepSpec s;
  s.name = "exec";
  s.path = "exec.toml";
  s.base_path = "base.toml";
  s.base_text = "[scenario]\nname = \"one\"\n"
                "[cluster]\n[[cluster.region]]\nname = \"r\"\ngpu = \"A100-80GB\"\ngpus = 16\n"
                "price_usd_per_kwh = 0.1\n"
                "[workload]\nnum_jobs = " + std::to_string(jobs) + "\n"
                "[[workload.mix]]\nmodel = \"gpt3-1.3b\"\n";
  s.schedulers = {"first-fit"};
  s.seeds = {1};
  s.points.listed.resize(1);
  return s;
}

TEST(Execute, ScenarioCacheIsPerEvaluatorEvenAtTheSameAddress) {
  alignas(SimulatorEvaluator) unsigned char storage[sizeof(SimulatorEvaluator)];
  const Plan plan(1, 1, 1);
  const config::SweepSpec a = spec_with_jobs(3), b = spec_with_jobs(5);

  auto* ea = new (storage) SimulatorEvaluator(a);
  const ScenarioResult ra = execute_scenario(*ea, plan, 0, {});
  ea->~SimulatorEvaluator();
  auto* eb = new (storage) SimulatorEvaluator(b);  // same address, another sweep
  ASSERT_EQ(static_cast<void*>(ea), static_cast<void*>(eb));
  const ScenarioResult rb = execute_scenario(*eb, plan, 0, {});
  eb->~SimulatorEvaluator();

  ASSERT_TRUE(ra.ok) << ra.error;
  ASSERT_TRUE(rb.ok) << rb.error;
  EXPECT_EQ(ra.metrics.jobs_total, 3);
  EXPECT_EQ(rb.metrics.jobs_total, 5);  // a stale cache would replay the first sweep's scenario
}

TEST(Execute, TestFunctionSweepsEvaluateTheirFunction) {
  // Ishigami at x = (1, 2, 3) with a = 7, b = 0.1: sin 1 + 7 sin^2 2 + 0.1 * 3^4 sin 1.
  config::SweepSpec s;
  s.name = "tf";
  s.test_function = analysis::TestFunction{};
  s.schedulers = {"ishigami"};
  s.seeds = {1};
  s.columns = {{"x1"}, {"x2"}, {"x3"}};
  config::SweepPoint p;
  p.numeric = {1, 2, 3};
  p.text = {"1", "2", "3"};
  s.points.listed = {p};
  const auto ev = make_evaluator(s);
  ASSERT_NE(dynamic_cast<const TestFunctionEvaluator*>(ev.get()), nullptr);
  const ScenarioResult r = execute_scenario(*ev, Plan(1, 1, 1), 0, {});
  ASSERT_TRUE(r.ok) << r.error;
  const double want = std::sin(1.0) + 7 * std::sin(2.0) * std::sin(2.0) + 0.1 * 81 * std::sin(1.0);
  EXPECT_NEAR(r.metrics.value, want, 1e-12);  // its own column
  EXPECT_EQ(r.metrics.avg_jct_s, 0.0);        // not a simulation's metric
  EXPECT_EQ(s.evaluated_by(), MetricSource::kTestFunction);
  EXPECT_EQ(ev->describe(), "test function:");  // no constant in /parameters here

  const config::SweepSpec sim = spec_with_jobs(2);
  const auto es = make_evaluator(sim);
  EXPECT_NE(dynamic_cast<const SimulatorEvaluator*>(es.get()), nullptr);
  EXPECT_EQ(es->describe(), "base: base.toml");
  const ScenarioResult rs = execute_scenario(*es, Plan(1, 1, 1), 0, {});
  ASSERT_TRUE(rs.ok) << rs.error;
  EXPECT_EQ(rs.metrics.jobs_total, 2);
  EXPECT_EQ(rs.metrics.value, 0.0);  // a simulation has no test-function value
  EXPECT_EQ(sim.evaluated_by(), MetricSource::kSimulation);
}

}  // namespace
}  // namespace geopipe::sweep
