// gavel-maxmin (docs/model.md, "Literature baselines"): Gavel's heterogeneity-aware max-min
// fairness (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep
// Learning Workloads", OSDI'20), with *placement classes* in the role of Gavel's accelerator
// types: each single region, each pair of regions and, with more than two regions, the whole
// cluster. The allocation is a linear program (sched/linear_program.h, GLPK) executed in rounds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/scenario.h"
#include "sim/scheduler_api.h"

namespace geopipe {

/// The placement classes of R regions, in index order: {0}, …, {R−1}; then the pairs {a, b},
/// a < b, in lexicographic order; then, if R > 2, all regions. Each class lists its regions in
/// increasing order.
std::vector<std::vector<int>> placement_classes(int regions);

/// Gavel's max-min allocation problem over J jobs, K classes and R regions.
struct MaxMinProblem {
  int jobs = 0, classes = 0, regions = 0;
  /// J×K (row major): job m's throughput in class c, iterations/s; 0 = it cannot run there.
  std::vector<double> throughput;
  /// J×K×R: the GPUs job m holds in region r while it runs in class c.
  std::vector<double> gpus;
  std::vector<double> capacity;  ///< per region: its GPUs
};

struct MaxMinAllocation {
  bool ok = false;       ///< the LP was solved (false: no job can run anywhere, or GLPK failed)
  std::string status;    ///< the solver's status when !ok
  double min_share = 0;  ///< t* = the maximised minimum normalised throughput
  std::vector<double> x;  ///< J×K: X_mc, the fraction of time job m is to spend in class c
};

/// Solves, over X ≥ 0 (X_mc = 0 where job m cannot run in class c):
///   stage 1: maximise t  s.t.  share_m(X) = Σ_c T_mc·X_mc / max_c T_mc ≥ t  for every job m
///            that can run somewhere,  Σ_c X_mc ≤ 1 (a job runs in one class at a time),
///            Σ_m Σ_c gpus_mcr·X_mc ≤ capacity_r for every region r;
///   stage 2: among allocations with t ≥ t*·(1 − 1e-9), maximise Σ_m share_m (the most total
///            normalised work, so that the max-min optimum does not leave GPUs idle needlessly).
/// share_m is job m's throughput as a fraction of its throughput in its best class: Gavel's
/// "normalised effective throughput" with the job's best class as its reference (docs/model.md).
MaxMinAllocation solve_maxmin(const MaxMinProblem& problem);

/// The gavel-maxmin scheduler, named `name`. Preempting (Scheduler::preempts()). Per round
/// (SchedulerParams::gavel_round_s; a round starts at the first call at or after the previous
/// round's end, and the scheduler asks to be called then):
///  1. the active jobs (waiting and running, not leaving) and, per job shape and class, its
///     throughput 1/T_est and GPUs per region where bace-pipe's placement (pathfinder →
///     cost-min) puts it on the idle cluster restricted to the class (computed once per shape;
///     a placement that uses a smaller class's regions only counts for that class; a shape that
///     placed nowhere is computed again at its next use);
///  2. the allocation X (solve_maxmin), solved again only when the set of active jobs changed;
///  3. priorities X_mc / f_mc, f_mc = the share of the job's time since its arrival it ran in
///     class c (+inf if none), classes in which the job runs equally fast taken as one (X and
///     time summed over them); ties: larger X, then job id, then class. In decreasing priority,
///     on the cluster with every running job's GPUs released: a running job whose class is the
///     pair's, or one it runs equally fast in, keeps its GPUs (no restart); any other job is
///     placed by bace-pipe's placement restricted to the pair's class; then running jobs not
///     assigned keep their GPUs where still free, and waiting jobs not assigned take what is
///     left, classes by decreasing throughput (Gavel fills every worker);
///  4. running jobs not kept where they are are preempted (checkpoint, restart).
/// Between rounds, assigned waiting jobs start in their class once it has room; waiting jobs not
/// assigned start only on GPUs no assigned job still waits for, trying every class (the ones
/// they did not place in on the idle cluster last). A flexible job (data_parallel = 0) runs as
/// its variant of the highest throughput in its best class. A gang the policy cannot form on the
/// idle cluster takes the feasibility check's placement (sched/feasibility.h), as
/// ComposedScheduler does. Deterministic.
std::unique_ptr<Scheduler> make_gavel_scheduler(std::string name, const SchedulerParams& p);

}  // namespace geopipe
