// Ordering policies: in which order a scheduler considers the waiting queue (docs/model.md,
// "Schedulers").
#pragma once

#include <memory>
#include <vector>

#include "model/scenario.h"
#include "sim/scheduler_api.h"

namespace geopipe {

class OrderingPolicy {
 public:
  virtual ~OrderingPolicy() = default;
  /// Strict: stop at the first job that cannot start (FIFO head-of-line). Otherwise skip it
  /// and try the next (backfill).
  virtual bool strict() const = 0;
  /// Starts a pass over `queue` (waiting jobs in increasing id order, valid during the pass).
  /// Between passes the queue changes as the engine changes it: arrivals appended (larger
  /// ids) and the jobs reported started() removed. An incremental policy may rely on that;
  /// PriorityBackfill rebuilds its state from the queue when the number of waiting jobs
  /// disagrees with what it tracked, which catches any other change of that number.
  virtual void begin(const SchedContext& ctx, const WaitingQueue& queue, const ClusterView& view) = 0;
  /// The next job in consideration order, −1 when none is left. Before the following call the
  /// caller reports what became of it: started(j); skip_shape(shape of j) when no job of that
  /// shape can start for the rest of the pass (it needs more GPUs than are free, or its
  /// placement failed and the placement policy's failures depend only on shape and epoch);
  /// or skip_job(j) when only this job is passed over. An unreported job counts as skip_shape.
  virtual int next() = 0;
  virtual void started(int job) = 0;
  virtual void skip_shape(int shape) = 0;
  virtual void skip_job(int job) = 0;
};

/// Factories, one per policy, with the signature of PresetInfo::make_ordering.
using OrderingFactory = std::unique_ptr<OrderingPolicy> (*)(const SchedulerParams&);

/// Arrival order, strict (takes no parameters).
std::unique_ptr<OrderingPolicy> make_fifo_strict(const SchedulerParams& p);

/// Dynamic priority with backfill. Score (lower runs first):
///   score = w_rt · R̂ · (1 + w_net · P) − aging · wait_s
/// R̂: estimated run time (I × compute-only iteration time on the fastest GPU type present);
/// P: network pressure = 0 if the job fits in the free GPUs of one region, else its stall-free
/// hop demand on that GPU type divided by the mean residual bandwidth of the inter-region
/// link directions; wait_s: time since arrival. Ties: arrival, then id.
/// Incremental: per job shape, the waiting jobs in arrival order under a min-tree of R̂.
/// Within a shape a job that arrived later with an R̂ no smaller can never come first (its
/// score is no smaller, in floating point too, and ties go to arrival), so a shape's first job
/// is found among the "records" (each earlier job has a larger R̂): O(records · log q) per
/// shape, ~O(log² q) for random run times, instead of sorting the queue at every call. The
/// ideal iteration time and β are computed once per shape (they do not depend on iterations),
/// R̂ once per job.
/// Requires the weights and aging >= 0 (the config enforces it; otherwise every job counts
/// as a record, which is exact but O(q)).
std::unique_ptr<OrderingPolicy> make_priority_backfill(const SchedulerParams& p);

/// Arrival order with backfill (fifo-backfill): the dynamic priority with w_rt = w_net =
/// aging = 0, whatever the scenario's weights (every score 0: ties by arrival, then id).
std::unique_ptr<OrderingPolicy> make_fifo_backfill(const SchedulerParams& p);
/// Shortest job first with backfill (sjf): the dynamic priority with w_rt = 1, w_net = aging =
/// 0, whatever the scenario's weights: R̂ (iterations × compute-only iteration time on the
/// fastest GPU type present, the job's exact work; "oracle" in the literature's sense) orders
/// the queue, ties by arrival, then id.
std::unique_ptr<OrderingPolicy> make_shortest_first(const SchedulerParams& p);
/// The start order of srtf (sched/preemptive.h): as make_shortest_first, with R̂ computed
/// from the iterations a job has left whenever it enters the queue again.
std::unique_ptr<OrderingPolicy> make_remaining_first(const SchedulerParams& p);

}  // namespace geopipe
