// A scheduler composed of an ordering policy and a placement policy (DESIGN.md §3).
#pragma once

#include <compare>
#include <map>
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
  /// stops at the first job that cannot start; a backfill ordering at an unchanged epoch
  /// considers only the jobs that arrived since its last call (the others cannot start).
  /// Requires the queue in increasing id order (scheduler_api.h).
  void schedule(const SchedContext& ctx, const std::vector<int>& queue, ClusterView& view,
                std::vector<Decision>& out) override;
  void effort(long& searches, long& nodes, long& truncated) const override;

 private:
  std::string name_;
  std::unique_ptr<OrderingPolicy> ordering_;
  std::unique_ptr<PlacementPolicy> placement_;
  /// What decides whether a placement exists for a job (everything but iterations/arrival).
  struct ShapeKey {
    int model, stages, micro_batch_size, micro_batches, gpus_per_stage;
    auto operator<=>(const ShapeKey&) const = default;
  };
  int class_of(const SchedContext& ctx, int j);
  /// Removes from live_ the shapes that failed at `epoch` or no longer fit the free GPUs;
  /// true if none is left.
  bool drop_dead_shapes(const ClusterView& view, long epoch);

  std::vector<int> class_of_;               ///< per job: index into shapes_, or -1 (not yet seen)
  std::map<ShapeKey, int> shapes_;          ///< distinct job shapes → class index
  std::vector<long> class_failed_epoch_;    ///< per shape: epoch of its last failed placement, or -1
  std::vector<int> shape_gpus_;             ///< per shape: GPUs a job of it needs
  std::vector<int> live_;                   ///< backfill: shapes among the candidates that may still start
  long last_epoch_ = -1;                    ///< epoch of the last call
  int last_seen_id_ = -1;                   ///< largest job id in the queue at the last call
  std::vector<int> cand_;                   ///< backfill: the jobs worth ordering in this call
};

}  // namespace geopipe
