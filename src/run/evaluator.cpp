#include "run/evaluator.h"

#include "sched/run_scheduler.h"

#include <optional>
#include <vector>

#include "run/execute_scenario.h"
#include "sim/engine.h"

namespace geopipe::sweep {
namespace {

/// One thread's last point's scenario and last (point, seed)'s jobs.
struct ThreadCache {
  std::uint64_t factory = 0;  ///< valid for this factory only (ScenarioFactory::serial)
  std::uint64_t point = ~0ULL;
  std::optional<Scenario> scenario;
  std::uint64_t jobs_point = ~0ULL, jobs_seed = ~0ULL;
  std::vector<Job> jobs;
};

}  // namespace

SimulatorEvaluator::SimulatorEvaluator(const config::SweepSpec& spec) : spec_(&spec), factory_(spec) {}

void SimulatorEvaluator::evaluate(const ScenarioKey& k, const ExecuteOptions& opt, ScenarioResult& res) const {
  thread_local ThreadCache cache;
  if (cache.factory != factory_.serial()) {
    cache = ThreadCache{};
    cache.factory = factory_.serial();
  }
  if (cache.point != k.point) {
    cache.scenario.reset();
    cache.point = ~0ULL;
    cache.scenario.emplace(factory_.make(k.point));
    cache.point = k.point;
    cache.jobs_point = ~0ULL;
  }
  const Scenario& sc = *cache.scenario;
  const std::uint64_t seed = spec_->seeds[k.seed_index];
  if (cache.jobs_point != k.point || cache.jobs_seed != seed) {
    cache.jobs_point = ~0ULL;
    cache.jobs = sc.jobs_for_seed(seed);
    cache.jobs_point = k.point;
    cache.jobs_seed = seed;
  }
  auto scheduler = geopipe::make_run_scheduler(spec_->schedulers[k.scheduler_index], sc.scheduler);
  SimOptions so;
  so.record_jobs = opt.save_jobs;
  SimResult sim = simulate(sc, cache.jobs, *scheduler, seed, so);
  res.metrics = sim.metrics;
  if (opt.save_jobs) {
    res.jobs.reserve(sim.jobs.size());
    for (const JobRecord& j : sim.jobs) res.jobs.push_back(job_row(sc, j));
  }
}

std::string SimulatorEvaluator::describe() const { return "base: " + spec_->base_path; }

TestFunctionEvaluator::TestFunctionEvaluator(const config::SweepSpec& spec) : spec_(&spec) {}

void TestFunctionEvaluator::evaluate(const ScenarioKey& k, const ExecuteOptions&, ScenarioResult& res) const {
  const config::SweepPoint p = spec_->point(static_cast<std::size_t>(k.point));
  res.metrics.value = (*spec_->test_function)(p.numeric.data());
}

std::string TestFunctionEvaluator::describe() const {
  std::string out = "test function:";
  for (const auto& prm : spec_->parameters)
    if (prm.column < 0) {  // a G-function's coefficient list can be thousands of values long
      const std::string shown = prm.value.size() <= 200 ? prm.value
                                                        : prm.value.substr(0, 200) + " ... (" +
                                                              std::to_string(prm.value.size()) + " characters)";
      out += " " + prm.path + " = " + shown;
    }
  return out;
}

std::unique_ptr<PointEvaluator> make_evaluator(const config::SweepSpec& spec) {
  if (spec.test_function) return std::make_unique<TestFunctionEvaluator>(spec);
  return std::make_unique<SimulatorEvaluator>(spec);
}

}  // namespace geopipe::sweep
