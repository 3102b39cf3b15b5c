// Metric accounting of one simulation: the engine reports what happens (a running job advanced
// from t0 to t1 at some rates, an event, a scheduler call) and the accumulator turns it into
// the job records' energy, cost, carbon and bytes and into the scenario's ScenarioMetrics
// (sim/metrics.h). Every metric formula of docs/model.md, "Events and metrics", is here.
// Sums are taken in the order the engine reports (deterministic); not thread-safe.
#pragma once

#include <span>
#include <vector>

#include "model/job.h"
#include "model/topology.h"
#include "sim/job_record.h"
#include "sim/metrics.h"
#include "sim/scheduler_api.h"

namespace geopipe {

/// GPU-seconds stage i keeps its g GPUs busy per iteration: g·m·(f_i + b_i).
constexpr double gpu_busy_s_per_iteration(int gpus_per_stage, int micro_batches, double fwd_s, double bwd_per_fwd) {
  return gpus_per_stage * micro_batches * compute_time(fwd_s, bwd_per_fwd);
}
/// Bytes one cross-region hop carries per iteration: m activations forward, m gradients back.
constexpr double hop_bytes_per_iteration(int micro_batches, double activation_bytes) {
  return 2.0 * micro_batches * activation_bytes;
}

/// What the synchronisation of a running job of D > 1 replicas does; fixed between two
/// re-timings.
struct SyncRates {
  double egress_usd_per_sync = 0;          ///< egress of one synchronisation of every stage
  double cross_region_bytes_per_sync = 0;  ///< bytes its cross-region ring hops send
  /// Seconds the job spends on one synchronisation: T − T without it under all-reduce (one
  /// per iteration), Y under DiLoCo.
  double sync_s_per_sync = 0;
};

/// What a running job draws and does per unit of time; fixed between two re-timings.
struct JobRates {
  double iteration_s = 0;                 ///< T_iter under the current bandwidth shares
  double iteration_nocomm_s = 0;          ///< T_iter with free communication (same placement)
  int gpus = 0;                           ///< GPUs allocated
  double busy_gpu_s_per_iteration = 0;    ///< Σ over stages of gpu_busy_s_per_iteration
  double cross_region_bytes_per_iteration = 0;
  double egress_usd_per_iteration = 0;    ///< Σ over cross-region hops of hop_egress_usd_per_iteration
  std::span<const int> power_regions;     ///< the distinct regions of the job ...
  std::span<const double> power_w;        ///< ... and the facility power it draws in each
  /// Writing a checkpoint (iteration_s = +inf): its GPUs are allocated but the time is neither
  /// run time nor a stall (stall_fraction, sync_fraction leave it out).
  bool checkpointing = false;
};

/// What the metrics need of one job: the fields of its JobRecord (same names, same meaning) that
/// they read or that job_ran() and job_synced() accrue. The engine keeps this, 88 bytes, instead
/// of a JobRecord (232 bytes and two vectors) for every job of a run whose records are not
/// returned.
struct JobTally {
  double arrival_s = 0;
  double start_s = -1;              ///< -1: never started
  double finish_s = -1;             ///< -1: not finished
  int gpus = 0;                     ///< GPUs it holds (set at its first start)
  double alone_s = 0;               ///< T_alone (set at its first start; docs/model.md, "Fairness")
  double energy_j = 0;
  double electricity_cost_usd = 0;
  double egress_cost_usd = 0;
  double carbon_g = 0;
  double cross_region_bytes = 0;
  double sync_bytes = 0;
  /// As JobRecord::cost_usd().
  double cost_usd() const { return electricity_cost_usd + egress_cost_usd; }
  bool finished() const { return finish_s >= 0; }
};

/// N̄_i for every job i (docs/model.md, "Fairness"): the time average over [a_i, f_i] of the
/// number of jobs in the system (arrived, not finished; job i included), from every job's
/// arrival a_i and finish f_i (< 0: not finished, in the system to the end; its N̄ is 0). Exact
/// but for the rounding of the running integral, O(n log n), deterministic: events in (time,
/// arrivals first, id) order; a job with f_i = a_i gets the count after every arrival at a_i.
std::vector<double> mean_jobs_in_system(std::span<const double> arrival_s, std::span<const double> finish_s);
/// T_iso = T_alone × max(1, N̄·g / G): the job's JCT on an exclusive 1/N̄ share of a cluster of
/// G GPUs (G ≤ 0: T_alone).
inline double isolated_jct_s(double alone_s, double mean_jobs, int gpus, int total_gpus) {
  if (total_gpus <= 0) return alone_s;
  const double share = mean_jobs * static_cast<double>(gpus) / static_cast<double>(total_gpus);
  return alone_s * (share > 1.0 ? share : 1.0);
}
/// Jain's fairness index (Σx)² / (n·Σx²) of `x` (sums in order); 0 for no value.
double jain_index(std::span<const double> x);

class MetricsAccumulator {
 public:
  /// `alone_bounds_run_time`: is every job's T_alone (alone_s) a lower bound on its run time?
  /// False under sim.layer_partition = "balanced", whose splits can run a job faster than
  /// T_alone's even split (docs/model.md, "Lower bound on the mean JCT"): jct_lower_bound_s is
  /// then NaN.
  explicit MetricsAccumulator(const Topology& topo, bool alone_bounds_run_time = true)
      : topo_(topo), alone_bounds_run_time_(alone_bounds_run_time) {}

  /// Job `rec` (a JobRecord or a JobTally) ran from t0 to t1 (t1 > t0) at `rates`, doing
  /// `iterations` = (t1 − t0) / T_iter iterations: adds its energy, electricity cost (integrated
  /// over the price profile), egress cost, carbon and cross-region bytes to `rec`, and its GPU,
  /// run and stall time to the scenario. The same arithmetic for either type.
  template <class Record>
  void job_ran(Record& rec, const JobRates& rates, double t0_s, double t1_s, double iterations);
  /// Job `rec` of D > 1 replicas completed `syncs` synchronisations (a fraction for one under
  /// way) since the last report, at `rates` (docs/model.md, "Data parallelism"): adds their
  /// egress cost and cross-region bytes to `rec` and their time to the scenario's.
  template <class Record>
  void job_synced(Record& rec, const SyncRates& rates, double syncs) {
    rec.egress_cost_usd += syncs * rates.egress_usd_per_sync;
    rec.sync_bytes += syncs * rates.cross_region_bytes_per_sync;
    sync_s_ += syncs * rates.sync_s_per_sync;
  }
  /// A job failed, throwing away `lost_gpu_s` GPU-seconds of work
  /// (docs/model.md, "Failures and checkpoints").
  /// (A job evicted by spot capacity at the end of its notice: failed = false.)
  void job_lost(double lost_gpu_s, bool failed) {
    if (failed) ++m_.failures;
    lost_gpu_s_ += lost_gpu_s;
  }
  /// Spot capacity preempted a job (its notice).
  void job_preempted() { ++m_.preemptions; }
  /// A failed job started again.
  void job_restarted() { ++m_.restarts; }
  /// A job completed a checkpoint that held its GPUs `gpu_s` GPU-seconds.
  void checkpoint_written(double gpu_s) { checkpoint_gpu_s_ += gpu_s; }
  /// One event time processed.
  void event() { ++m_.events; }
  /// One scheduler call that took `wall_s` (a measurement).
  void scheduler_call(double wall_s);

  /// The metrics of the run: job statistics from the records (JobRecord or JobTally, by id), the
  /// accumulated sums, the scheduler's search effort and the run's wall time (a measurement).
  /// The same numbers from either type. Writes each JobRecord's isolated_jct_s and ftf_rho
  /// (docs/model.md, "Fairness"; 0 for a job that did not finish or has no alone_s).
  template <class Record>
  ScenarioMetrics finish(std::vector<Record>& records, const SearchEffort& effort, double wall_s);

 private:
  /// ρ > this is unfair (Shockwave's 5 % tolerance; docs/model.md, "Fairness").
  static constexpr double kUnfairRho = 1.05;
  /// The fairness metrics into `m` and each JobRecord's isolated_jct_s, ftf_rho.
  template <class Record>
  void fairness(std::vector<Record>& records, ScenarioMetrics& m) const;
  /// jct_lower_bound_s into `m` (docs/model.md, "Lower bound on the mean JCT"): over every
  /// record, NaN if one did not finish or has no alone_s or T_alone is no bound
  /// (alone_bounds_run_time_ false), 0 for none.
  template <class Record>
  void jct_bound(const std::vector<Record>& records, ScenarioMetrics& m) const;

  const Topology& topo_;
  bool alone_bounds_run_time_ = true;
  ScenarioMetrics m_;
  double busy_gpu_s_ = 0, alloc_gpu_s_ = 0, run_s_ = 0, stall_s_ = 0, sync_s_ = 0;
  double lost_gpu_s_ = 0, checkpoint_gpu_s_ = 0;
};

}  // namespace geopipe
