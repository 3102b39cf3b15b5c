// The event-driven simulator (docs/model.md, "Events and metrics").
//
// Events: job arrival, job completion, electricity price change (hour boundaries of any
// non-flat price profile). Between events every running job progresses at 1/T_iter
// iterations per second (fluid progress); a job's T_iter is the exact GPipe recurrence
// (sim/pipeline.h) over the bandwidth its hops currently get from max-min sharing
// (sim/network.h), and is recomputed only when one of its hop allocations changes. At each
// event time the scheduler is called once with the waiting queue. Jobs are never preempted.
//
// Determinism: no wall-clock input reaches a decision; events at the same time are processed
// completions first (by job id), then arrivals (by id), then the scheduler.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/scenario.h"
#include "sim/job_record.h"
#include "sim/metrics.h"
#include "sim/scheduler_api.h"
#include "sim/timeline.h"

namespace geopipe {

struct SimOptions {
  bool record_jobs = true;        ///< fill SimResult::jobs
  /// Fill SimResult::timeline (sim/timeline.h, `geopipe run --timeline`). Off: no recorder
  /// exists. Either way no decision or result changes.
  bool record_timeline = false;
  bool price_events = true;       ///< call the scheduler at price changes (non-flat profiles only)
  /// Most event times one run may process (docs/limits.md, "Documented maxima"): beyond it the
  /// run stops with InputError. Ordinary scenarios need about 2 per job plus one per simulated
  /// hour with waiting jobs under an hourly price profile (34,000 simulated years of them); the
  /// default, 3·10^8, takes about 25 s when the events are that cheap (80 ns each).
  std::uint64_t max_events = 300'000'000;
};

struct SimResult {
  ScenarioMetrics metrics;
  std::vector<JobRecord> jobs;    ///< by job id (if record_jobs)
  std::optional<Timeline> timeline;  ///< if record_timeline
};

/// Runs `jobs` (ids 0..n-1, sorted by arrival) on the scenario's topology with `scheduler`.
/// `seed` drives only the scheduler's view noise (scenario.scheduler.view_noise_sigma); the
/// job trace is an input. Throws std::logic_error if the scheduler returns an impossible
/// decision (a bug, never an input error), and InputError (util/input_error.h) when the run
/// needs more than options.max_events event times (an input whose simulated time is
/// astronomically long: jobs waiting through ~3·10^8 hourly price changes).
SimResult simulate(const Scenario& scenario, const std::vector<Job>& jobs, Scheduler& scheduler,
                   std::uint64_t seed, const SimOptions& options = {});

}  // namespace geopipe
