// Running one scenario of a sweep: the point's scenario (cached per thread), the (point,
// seed) job trace (cached per thread, so all schedulers of a pair share it), the scheduler,
// the simulation. No MPI, no HDF5 here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sweepfile/loader.h"
#include "plan/plan.h"
#include "results/result.h"
#include "sim/scheduler_api.h"

namespace geopipe::sweep {

struct ExecuteOptions {
  bool save_jobs = false;       ///< fill ScenarioResult::jobs
  bool null_scenarios = false;  ///< benchmark only: skip building and simulating, return zero metrics
};

/// The scheduler of a preset for one run of `geopipe run` or a sweep: make_scheduler(), except
/// that the presets named in the environment variable GEOPIPE_STRAND_PRESETS ("a,b", for the
/// tests of failed runs; unset in normal use) become a scheduler of that name that never starts
/// a job, so that their runs fail as a stranding scheduler's would (sim/engine.h
/// SimulationFailure).
std::unique_ptr<Scheduler> make_run_scheduler(const std::string& preset, const SchedulerParams& params);

/// Runs scenario `id`. Never throws for a failing scenario: the exception's message becomes
/// ScenarioResult::error (ok = false). Thread-safe; uses a thread-local cache of the last
/// point's Scenario and the last (point, seed)'s jobs.
ScenarioResult execute_scenario(const config::SweepSpec& spec, const config::ScenarioFactory& factory,
                                const Plan& plan, std::int64_t id, const ExecuteOptions& opt);

}  // namespace geopipe::sweep
