// Running one scenario of a sweep (run/execute_scenario.h): the per-thread cache of the point's
// scenario belongs to one ScenarioFactory, even when a later factory reuses its address.
#include <gtest/gtest.h>

#include <new>
#include <string>

#include "sweepfile/loader.h"
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
  s.listed.resize(1);
  return s;
}

TEST(Execute, ScenarioCacheIsPerFactoryEvenAtTheSameAddress) {
  alignas(config::ScenarioFactory) unsigned char storage[sizeof(config::ScenarioFactory)];
  const Plan plan(1, 1, 1);
  const config::SweepSpec a = spec_with_jobs(3), b = spec_with_jobs(5);

  auto* fa = new (storage) config::ScenarioFactory(a);
  const ScenarioResult ra = execute_scenario(a, *fa, plan, 0, {});
  const std::uint64_t serial_a = fa->serial();
  fa->~ScenarioFactory();
  auto* fb = new (storage) config::ScenarioFactory(b);  // same address, another sweep
  ASSERT_EQ(static_cast<void*>(fa), static_cast<void*>(fb));
  EXPECT_NE(fb->serial(), serial_a);
  const ScenarioResult rb = execute_scenario(b, *fb, plan, 0, {});
  fb->~ScenarioFactory();

  ASSERT_TRUE(ra.ok) << ra.error;
  ASSERT_TRUE(rb.ok) << rb.error;
  EXPECT_EQ(ra.metrics.jobs_total, 3);
  EXPECT_EQ(rb.metrics.jobs_total, 5);  // a stale cache would replay the first sweep's scenario
}

}  // namespace
}  // namespace geopipe::sweep
