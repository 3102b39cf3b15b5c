// wait-awhile (docs/model.md, "Literature baselines"): cost- or carbon-aware temporal shifting
// after Wiesner et al., "Let's Wait Awhile: How Temporal Workload Shifting Can Reduce Carbon
// Emissions in the Cloud" (Middleware 2021) and Hanafy et al., "CarbonScaler" (Proc. ACM Meas. Anal. Comput. 7(3), 2023).
//
// Contract: bace-pipe (dynamic priority + backfill, pathfinder -> cost-min; a ComposedScheduler)
// plus a hold. When bace-pipe would start a waiting job j that has slack (Job::slack_s > 0) and
// whose deadline arrival_s + slack_s is after the call's time `now`, the signal (scheduler.
// wait_awhile_signal: electricity price or grid carbon intensity) is read over the regions of
// the placement bace-pipe chose, weighted by the GPUs each holds, for the job's estimated run
// [t, t + D] (D = iterations × the estimated iteration time on that placement, sched/estimate.h).
// The start times t tried are now and every time in (now, deadline] at which the signal of one
// of those regions may change (PriceProfile / StepSeries next_change_after; at most
// kWaitAwhileMaxCandidates of them, the earliest). The job is held if the least mean over them
// is below the mean of starting now by at least the fraction scheduler.wait_awhile_min_saving
// (and by more than 1e-9, so that rounding never holds a job); it is then released at the
// earliest t reaching that least mean, and the scheduler asks to be called then
// (Scheduler::next_call_s; Scheduler::defers() is true). The forecast is the profile itself:
// an oracle forecast, as Let's Wait Awhile's upper bound. A held job is passed over that call
// (its GPUs stay free for the others); every other job is scheduled as bace-pipe would, and so
// is j at or after its deadline. A job without slack is never held: with no slack in the
// workload the decisions are bace-pipe's, bit for bit. Carbon: a region's carbon_series, else
// its constant carbon_g_per_kwh (which never holds a job). Deterministic: ties go to the
// earliest time; the release time asked for is the least over the jobs held in the last call.
// Not thread-safe (one scheduler serves one simulation).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/scenario.h"
#include "model/topology.h"
#include "sim/scheduler_api.h"

namespace geopipe {

/// Most start times wait-awhile tries per held-job decision (the earliest after now): bounds a
/// decision's cost on a fine series with a long slack (a 5-minute series over 11.6 days, the
/// largest slack, has ~3,300 steps).
inline constexpr int kWaitAwhileMaxCandidates = 4096;

/// Mean of the signal over [t0, t1] in region r ($/kWh or g/kWh); its value at t0 if t1 <= t0.
double wait_awhile_signal_mean(const Region& r, WaitAwhileSignal signal, double t0_s, double t1_s);

/// The decision for one placed job.
struct WaitAwhileChoice {
  bool hold = false;
  double start_s = 0;     ///< the chosen start: now when not held, else the release time
  double mean_now = 0;    ///< GPU-weighted mean signal over [now, now + D]
  double mean_best = 0;   ///< ... over [start_s, start_s + D]
  int candidates = 0;     ///< start times after now that were tried
};

/// The rule above for a job whose D·S stages are in `stage_region` (equal GPUs per stage),
/// estimated to run `duration_s`, at `now_s`, deadline `deadline_s`.
WaitAwhileChoice wait_awhile_choice(const Topology& topo, const std::vector<int>& stage_region,
                                    WaitAwhileSignal signal, double min_saving, double now_s, double deadline_s,
                                    double duration_s);

/// The wait-awhile scheduler, named `name`, with the scenario's parameters.
std::unique_ptr<Scheduler> make_wait_awhile_scheduler(std::string name, const SchedulerParams& p);

}  // namespace geopipe
