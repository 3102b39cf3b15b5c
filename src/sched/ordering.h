// Ordering policies: in which order a scheduler considers the waiting queue (DESIGN.md §3).
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
  /// Starts a pass over `queue` (valid until the pass ends); next() then yields its jobs in
  /// consideration order, −1 after the last. A pass may be abandoned early, so policies
  /// produce the order lazily (FIFO: the queue itself; priority: a heap, O(q) to build and
  /// O(log q) per job taken, instead of sorting jobs that are never looked at).
  virtual void begin(const SchedContext& ctx, const std::vector<int>& queue, const ClusterView& view) = 0;
  virtual int next() = 0;
};

/// Arrival order, strict.
std::unique_ptr<OrderingPolicy> make_fifo_strict();

/// Dynamic priority with backfill. Score (lower runs first):
///   score = w_rt · R̂ · (1 + w_net · P) − aging · wait_s
/// R̂: estimated run time (I × compute-only iteration time on the fastest GPU type present);
/// P: network pressure = 0 if the job fits in the free GPUs of one region, else its stall-free
/// hop demand on that GPU type divided by the mean residual bandwidth of the inter-region
/// link directions; wait_s: time since arrival. Ties: arrival, then id.
std::unique_ptr<OrderingPolicy> make_priority_backfill(const SchedulerParams& p);

}  // namespace geopipe
