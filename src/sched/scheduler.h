// A scheduler composed of an ordering policy and a placement policy (DESIGN.md §3).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/ordering.h"
#include "sched/placement.h"
#include "sim/scheduler_api.h"

namespace geopipe {

class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                    std::unique_ptr<PlacementPolicy> placement);
  std::string_view name() const override { return name_; }
  /// Considers jobs in the ordering's order. A job is skipped without a search when the free
  /// GPUs cannot hold it, or when the placement of a job of the same shape already failed at
  /// the view's epoch (nothing was released since, so it would fail again). A strict ordering
  /// stops at the first job that cannot start; a backfill ordering is told which shapes are
  /// done for the call, and a call at an unchanged epoch without new arrivals returns at once.
  /// Requires the queue in increasing id order (scheduler_api.h).
  void schedule(const SchedContext& ctx, const std::vector<int>& queue, ClusterView& view,
                std::vector<Decision>& out) override;
  void effort(long& searches, long& nodes, long& truncated) const override;

 private:
  std::string name_;
  std::unique_ptr<OrderingPolicy> ordering_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<long> shape_failed_epoch_;  ///< per job shape: epoch of its last failed placement, or -1
  long last_epoch_ = -1;                  ///< backfill: epoch of the last call
  int last_seen_id_ = -1;                 ///< backfill: largest job id in the queue at the last call
};

}  // namespace geopipe
