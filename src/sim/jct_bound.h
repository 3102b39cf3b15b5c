// An offline lower bound on the mean JCT of a scenario's jobs that no scheduler can beat
// (docs/model.md, "Lower bound on the mean JCT"): the metric jct_lower_bound_s. A pure function
// of the jobs' arrivals, GPU counts and T_alone (the per-job lower bound on a job's run time
// of the fairness metrics) and the cluster's GPUs; thread-safe, deterministic.
#pragma once

#include <span>

namespace geopipe {

/// The two bounds and their maximum, in seconds.
struct JctBound {
  /// LB1 = mean_j T_j: no job finishes faster than alone.
  double mean_alone_s = 0;
  /// LB2 = mean flow time (C_j − a_j) of preemptive SRPT on one machine of speed G serving job j's
  /// work w_j = g_j·T_j GPU-seconds from its release a_j (srpt_mean_flow_time_s).
  double srpt_s = 0;
  /// max(LB1, LB2): the bound (jct_lower_bound_s).
  double bound_s = 0;
};

/// Mean flow time of preemptive shortest-remaining-processing-time on one machine of speed
/// `speed` (work per second) for jobs of work `work[j]` ≥ 0 released at `release[j]`: optimal
/// for the sum of flow times among preemptive schedules (Schrage 1968). Exact event simulation
/// in O(n log n): between two releases the machine serves the job with the least remaining work
/// (ties: lowest index; the sum of flow times does not depend on ties). 0 for no job.
/// Preconditions: equal sizes, speed > 0, finite values.
double srpt_mean_flow_time_s(std::span<const double> release_s, std::span<const double> work, double speed);

/// The lower bound on the mean JCT of jobs j with arrival a_j = arrival_s[j], GPUs g_j = gpus[j]
/// and alone time T_j = alone_s[j] > 0 (a lower bound on the time the job runs, holding g_j GPUs)
/// on a cluster of `total_gpus` GPUs: LB1 = mean T_j, LB2 = srpt_mean_flow_time_s(a, g·T, G),
/// bound = max(LB1, LB2). Zeros for no job. Preconditions: equal sizes, total_gpus > 0,
/// 0 < g_j ≤ total_gpus, T_j > 0 finite.
JctBound jct_lower_bound(std::span<const double> arrival_s, std::span<const int> gpus,
                         std::span<const double> alone_s, int total_gpus);

}  // namespace geopipe
