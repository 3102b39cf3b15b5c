// A fully validated scenario: everything one simulation run needs, in SI units.
// Produced by src/config (from TOML, with any trace file already read and parsed) or built
// directly in tests. The core (src/model, src/sim, src/sched) reads no files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/faults.h"
#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"
#include "model/workload.h"

namespace geopipe {

/// The finest measurement period of the bandwidth monitor (sim/bandwidth_monitor.h), s: a
/// positive view_staleness_s and view_refresh_s must be at least this (the config loader checks
/// it; docs/limits.md).
inline constexpr double kMinMonitorPeriodS = 1e-3;

/// Default of network.link_efficiency: the share of a link's nominal rate that pipeline
/// transfers achieved in the calibration of docs/validation.md.
inline constexpr double kDefaultLinkEfficiency = 0.92;

/// Scheduler knobs (scenario [scheduler] table). Plain data; interpreted by src/sched.
/// What wait-awhile shifts jobs in time for (`scheduler.wait_awhile_signal`).
enum class WaitAwhileSignal { kPrice, kCarbon };
/// Its name as a scenario writes it ("price", "carbon").
inline const char* wait_awhile_signal_name(WaitAwhileSignal s) { return s == WaitAwhileSignal::kCarbon ? "carbon" : "price"; }

struct SchedulerParams {
  std::string preset = "bace-pipe";       ///< default preset for `geopipe run`
  int max_region_switches = 3;            ///< pathfinder: at most this many cross-region hops
  double epsilon = 0.1;                   ///< cost-min: accept est. iteration time <= (1+ε)·best
  double priority_runtime_weight = 1.0;   ///< dynamic priority: weight of estimated run time
  double priority_network_weight = 1.0;   ///< dynamic priority: weight of network pressure
  double priority_aging = 1.0;            ///< dynamic priority: seconds of score removed per second waited
  /// Period of the bandwidth monitor's measurements, s (0 = live: the view is measured at every
  /// scheduler call). docs/model.md, "Stale or noisy view"; sim/bandwidth_monitor.h.
  double view_staleness_s = 0.0;
  double view_noise_sigma = 0.0;          ///< relative Gaussian noise on each measured residual bandwidth
  /// Live and noisy view only (view_staleness_s = 0, view_noise_sigma > 0): the monitor also
  /// measures every this many s while jobs wait, and each such measurement calls the scheduler.
  double view_refresh_s = 60.0;
  /// Flexible jobs (data_parallel = 0) under bace-pipe and its ablations: a variant may start
  /// only if its estimated iteration time is at most this many times the best the job's
  /// variants reach on the idle cluster; else the job waits (docs/model.md, "Choosing D").
  double variant_patience = 3.0;
  /// tiresias (docs/model.md, "Literature baselines"): the attained-service thresholds of its
  /// queues, GPU-seconds, increasing (K = size + 1 queues). Default: Tiresias's simulator
  /// (`queue_limit` of `_TFJobs`, 3 queues: 3250 and 7200 GPU-s).
  std::vector<double> tiresias_thresholds_gpu_s = {3250.0, 7200.0};
  /// tiresias: a waiting job that has run before goes back to the first queue once it has waited
  /// this many times its executed time (Tiresias's PROMOTEKNOB); 0 = never (its default dlas-gpu).
  double tiresias_promote_knob = 0.0;
  /// gavel-maxmin (docs/model.md, "Literature baselines"): the length of its rounds, s. Gavel's
  /// are 6 minutes (360 s), for restarts of seconds; here a preempted job pays a checkpoint and
  /// faults.restart_s (600 s by default), so the default round is an hour.
  double gavel_round_s = 3600.0;
  /// wait-awhile (docs/model.md, "Literature baselines"; sched/wait_awhile.h): the signal whose
  /// forecast decides whether a job with slack is held: the regions' electricity price
  /// (default) or their grid carbon intensity.
  WaitAwhileSignal wait_awhile_signal = WaitAwhileSignal::kPrice;
  /// wait-awhile: a job is held only if a later start within its slack lowers the mean signal
  /// over its estimated run by at least this fraction of starting now (in [0, 1]).
  double wait_awhile_min_saving = 0.05;
};

struct Scenario {
  std::string name;                 ///< [scenario].name
  std::string source_path;          ///< file it came from ("" if built in code)
  std::uint64_t seed = 1;           ///< default seed of `geopipe run`
  Topology topology;                ///< capacities already scaled by the knobs below
  double bandwidth_scale = 1.0;     ///< network.bandwidth_scale (applied to inter-region links)
  /// network.link_efficiency: the share of an inter-region link's nominal rate that pipeline
  /// transfers achieve; the config loader multiplies inter-region capacities by it after
  /// bandwidth_scale (docs/model.md, "Topology"). Same-region hops are not scaled.
  double link_efficiency = kDefaultLinkEfficiency;
  /// network.ideal = "lan": every pair of regions joined, both ways, by a link of the
  /// intra-region fabric's bandwidth and latency, without egress or capacity series: the
  /// regions as one data centre, the bound a better WAN could reach (docs/model.md,
  /// "Topology"). The config loader applies it after reading the links; false: as given.
  bool ideal_lan = false;
  double capacity_scale = 1.0;      ///< cluster.capacity_scale (applied to GPU counts, rounded)
  std::vector<LlmSpec> llms;        ///< catalogue: built-ins + [[model]] entries
  ComputeOptions compute;
  WorkloadOptions workload;
  std::vector<Job> trace_jobs;      ///< non-empty: replay these instead of generating
  std::string trace_path;           ///< the CSV file trace_jobs were read from, as resolved ("" if none)
  SchedulerParams scheduler;
  /// [faults]: restart and checkpoint knobs (model/faults.h); the failure rates are the
  /// regions' (Region::gpu_mtbf_s). Without failures and a finite checkpoint interval nothing
  /// of it acts (docs/model.md, "Failures and checkpoints").
  FaultParams faults;

  /// The job list for a seed: the trace if one is given, else the generator's output.
  std::vector<Job> jobs_for_seed(std::uint64_t seed) const;
  /// Index of the workload's reference GPU type (in topology.gpu_types) or -1.
  int reference_gpu_index() const;
};

}  // namespace geopipe
