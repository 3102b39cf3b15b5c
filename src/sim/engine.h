// The event-driven simulator (docs/model.md, "Events and metrics").
//
// Events: job arrival, job completion, electricity price change (hour boundaries of any
// non-flat price profile) and, while jobs wait, the ticks of the scheduler's bandwidth
// monitor (sim/bandwidth_monitor.h; none when the view is exact). Between events every running
// job progresses at 1/T_iter iterations per second (fluid progress); a job's T_iter is the
// exact timing of the scenario's pipeline schedule (model/pipeline_schedule.h) over the bandwidth its hops currently get from
// max-min sharing (sim/network.h), and is recomputed only when one of its hop allocations
// changes. At each arrival, completion and price change, and at a tick that changed the view,
// the scheduler is called once with the waiting queue. With failures, spot capacity, fixed
// checkpoints or a preemptive scheduler (model/faults.h; docs/model.md, "Failures and checkpoints")
// jobs also fail, checkpoint, are preempted and restart: events of their own, in (time, job, kind)
// order after the completions.
//
// Determinism: no wall-clock input reaches a decision; events at the same time are processed
// completions first (by job id), then arrivals (by id), then the monitor's tick, then the
// scheduler.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "model/scenario.h"
#include "sim/job_record.h"
#include "sim/metrics.h"
#include "sim/scheduler_api.h"
#include "sim/timeline.h"

namespace geopipe {

struct SimOptions {
  /// Fill SimResult::jobs. Off: the run keeps per job only what the metrics need (a 64-byte
  /// JobTally, sim/metrics_accumulator.h, instead of a JobRecord with its placement and layer
  /// split), so its memory per job is smaller; no metric changes.
  bool record_jobs = true;
  /// Fill SimResult::timeline (sim/timeline.h, `geopipe run --timeline`). Off: no recorder
  /// exists. Either way no decision or result changes.
  bool record_timeline = false;
  bool price_events = true;       ///< call the scheduler at price changes (non-flat profiles only)
  /// A stale monitor without noise (sim/bandwidth_monitor.h) takes no tick as an event while its
  /// view equals the truth: until the link state changes every tick would measure the same
  /// truth and change nothing. Off: every tick while jobs wait is an event time. Either way no
  /// decision and no metric but `events` (and the timeline's samples) changes; a test compares
  /// the two.
  bool skip_quiet_monitor_ticks = true;
  /// Most event times one run may process (docs/limits.md, "Documented maxima"): beyond it the
  /// run stops with InputError. Ordinary scenarios need about 2 per job plus one per simulated
  /// hour with waiting jobs under an hourly price profile (34,000 simulated years of them); the
  /// default, 3·10^8, takes about 25 s when the events are that cheap (80 ns each).
  std::uint64_t max_events = 300'000'000;
  /// Most measurements of the idle network a noisy monitor takes for a scheduler that starts
  /// nothing while nothing runs and nothing will arrive, before the run fails with
  /// SimulationFailure (docs/limits.md). Each measurement redraws the noise, so a placement
  /// that the truth allows is found with probability 1; 10^4 draws make missing it
  /// practically impossible (docs/model.md, "Stale or noisy view").
  std::uint64_t max_idle_measurements = 10'000;
};

/// A run that cannot finish: the scheduler left jobs waiting while nothing runs, nothing will
/// arrive and no later measurement of the network can change what it sees (or a noisy monitor
/// took SimOptions::max_idle_measurements measurements of the idle network in vain). Every job
/// of an accepted scenario fits the idle cluster, so this is a scheduler bug, never an input
/// error; the message names the scheduler, the number of waiting jobs and the time.
class SimulationFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimResult {
  ScenarioMetrics metrics;
  std::vector<JobRecord> jobs;    ///< by job id (if record_jobs)
  std::optional<Timeline> timeline;  ///< if record_timeline
};

/// Runs `jobs` (ids 0..n-1, sorted by arrival) on the scenario's topology with `scheduler`
/// until every job has completed. `seed` drives only the scheduler's view noise
/// (scenario.scheduler.view_noise_sigma, sim/bandwidth_monitor.h); the job trace is an input.
/// Throws std::logic_error if the scheduler returns an impossible decision and
/// SimulationFailure if it leaves jobs waiting for ever (both bugs, never input errors), and
/// InputError (util/input_error.h) when the run needs more than options.max_events event times
/// (an input whose simulated time is astronomically long: jobs waiting through ~3·10^8 hourly
/// price changes). A returned result has jobs_unfinished == 0.
SimResult simulate(const Scenario& scenario, const std::vector<Job>& jobs, Scheduler& scheduler,
                   std::uint64_t seed, const SimOptions& options = {});

}  // namespace geopipe
