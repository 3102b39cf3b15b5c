// What the simulator records about each job of a scenario (SimResult::jobs), in indices and
// SI units. For output, sim/job_row.h turns a record into the one per-job row that
// `geopipe run --jobs-csv` and the HDF5 /jobs table both write.
#pragma once

#include <vector>

namespace geopipe {

struct JobRecord {
  int id = 0;
  int model = 0;                   ///< index into the scenario's LLM catalogue
  int stages = 0;
  int gpus_per_stage = 0;
  int data_parallel = 1;           ///< D, replicas (stage_region lists D·S regions, replica by replica)
  std::vector<int> stage_region;   ///< placement (empty if never started)
  std::vector<int> layers;         ///< layers of each stage it ran with (empty if never started)
  double arrival_s = 0;
  double start_s = -1;             ///< -1: never started
  double finish_s = -1;            ///< -1: not finished
  double iterations = 0;
  double mean_iteration_s = 0;     ///< (finish − start) / iterations
  double first_iteration_s = 0;    ///< T_iter at start (before any later re-sharing)
  double energy_j = 0;
  double electricity_cost_usd = 0;
  double egress_cost_usd = 0;      ///< traffic billed on the job's cross-region hops
  /// Electricity + egress (equal, bit for bit, to the electricity cost when egress is free).
  double cost_usd() const { return electricity_cost_usd + egress_cost_usd; }
  double carbon_g = 0;
  double cross_region_bytes = 0;  ///< activations and gradients of its pipelines' hops
  double sync_bytes = 0;           ///< data-parallel synchronisation between regions (D > 1)
  // Failures and checkpoints (docs/model.md, "Failures and checkpoints"); 0 without them.
  int failures = 0;                ///< times it failed
  int preemptions = 0;             ///< times spot capacity or the scheduler preempted it
  int restarts = 0;                ///< times it started again after a failure
  double lost_gpu_hours = 0;       ///< GPU-hours of work its failures threw away
  double checkpoint_gpu_hours = 0; ///< GPU-hours its completed checkpoints (and regional restores) held its GPUs
  // Fairness (docs/model.md, "Fairness").
  int gpus = 0;                    ///< GPUs it holds, D·S·g of the profile it first started as (0 if never started)
  double alone_s = 0;              ///< T_alone: iterations × compute-only ideal iteration time on the fastest GPU type (at first start)
  double isolated_jct_s = 0;       ///< T_iso = T_alone × max(1, N̄·gpus / G) (MetricsAccumulator::finish; 0 if not finished)
  double ftf_rho = 0;              ///< ρ = JCT / T_iso (MetricsAccumulator::finish; 0 if not finished)
  bool finished() const { return finish_s >= 0; }
};

}  // namespace geopipe
