// What gives a scenario (point, seed, scheduler) of a sweep its result: a PointEvaluator. The
// sweep's SweepSpec says which one (make_evaluator, the one place that chooses): the simulator
// runs the point's scenario under a preset, a test function evaluates an analytic function of
// the point's inputs. The runner, the executors and execute_scenario see only this interface.
// No MPI, no HDF5 here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "plan/plan.h"
#include "results/result.h"
#include "sweepfile/loader.h"

namespace geopipe::sweep {

struct ExecuteOptions {
  bool save_jobs = false;       ///< fill ScenarioResult::jobs
  bool null_scenarios = false;  ///< benchmark only: skip building and simulating, return zero metrics
};

/// Evaluates the scenarios of one sweep. Holds a pointer to the SweepSpec it was made for,
/// which must outlive it. evaluate() is const and safe to call from many threads at once.
class PointEvaluator {
 public:
  virtual ~PointEvaluator() = default;
  /// Fills `res.metrics` (and `res.jobs` with `opt.save_jobs`) for the scenario `key`; throws
  /// (any std::exception) for a scenario that fails. Does not set `res.id`, `res.ok`, `res.error`.
  virtual void evaluate(const ScenarioKey& key, const ExecuteOptions& opt, ScenarioResult& res) const = 0;
  /// What evaluates the points, for `geopipe sweep --dry-run`: the text after "sweep '...': ...\n"
  /// up to "schedulers:", e.g. "base: PATH".
  virtual std::string describe() const = 0;
};

/// Runs a point's scenario (base + fixed + point overrides, built by a config::ScenarioFactory)
/// under the preset of the key's scheduler with the key's seed. Caches per thread the last
/// point's Scenario and the last (point, seed)'s jobs, so all schedulers of a pair share them.
class SimulatorEvaluator final : public PointEvaluator {
 public:
  explicit SimulatorEvaluator(const config::SweepSpec& spec);
  void evaluate(const ScenarioKey& key, const ExecuteOptions& opt, ScenarioResult& res) const override;
  std::string describe() const override;

 private:
  const config::SweepSpec* spec_;
  config::ScenarioFactory factory_;  ///< its serial() keys the thread caches
};

/// Evaluates the sweep's [test_function] at the point's factor columns (x1 .. xD) into the metric
/// `value` (MetricSource::kTestFunction, sim/metrics.h); the simulation's metrics stay at 0. The
/// sweep's one "scheduler" is the function's name, which labels its rows (docs/sweep-format.md).
class TestFunctionEvaluator final : public PointEvaluator {
 public:
  explicit TestFunctionEvaluator(const config::SweepSpec& spec);  ///< spec.test_function must be set
  void evaluate(const ScenarioKey& key, const ExecuteOptions& opt, ScenarioResult& res) const override;
  std::string describe() const override;

 private:
  const config::SweepSpec* spec_;
};

/// The evaluator of `spec`: a TestFunctionEvaluator for a sweep of a [test_function], else a
/// SimulatorEvaluator.
std::unique_ptr<PointEvaluator> make_evaluator(const config::SweepSpec& spec);

}  // namespace geopipe::sweep
