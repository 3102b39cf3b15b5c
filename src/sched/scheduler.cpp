#include "sched/scheduler.h"

namespace geopipe {

ComposedScheduler::ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                                     std::unique_ptr<PlacementPolicy> placement)
    : name_(std::move(name)), ordering_(std::move(ordering)), placement_(std::move(placement)) {}

void ComposedScheduler::schedule(const SchedContext& ctx, const std::vector<int>& queue, ClusterView& view,
                                 std::vector<Decision>& out) {
  if (queue.empty() || view.total_free <= 0) return;
  if (shape_failed_epoch_.size() < static_cast<size_t>(ctx.num_shapes))
    shape_failed_epoch_.resize(static_cast<size_t>(ctx.num_shapes), -1);
  const bool strict = ordering_->strict();
  const long epoch = view.epoch;
  if (!strict) {
    // Backfill at an unchanged epoch with no new arrival: every waiting job was considered by
    // an earlier call of this epoch and failed, or needed more GPUs than were free, or the
    // free GPUs ran out; nothing was released since, so the same holds now.
    if (epoch == last_epoch_ && queue.back() <= last_seen_id_) return;
    last_epoch_ = epoch;
    last_seen_id_ = queue.back();
  }
  ordering_->begin(ctx, queue, view);
  for (int j = ordering_->next(); j >= 0; j = ordering_->next()) {
    if (view.total_free <= 0) break;
    const Job& job = ctx.job(j);
    // Failure caching, by job shape: whether a placement exists depends on the job's shape
    // (model, stages, micro-batching, GPUs per stage), not on its iteration count or arrival,
    // and stays false while resources do not grow: within this call that is always true
    // (placing only consumes), across calls the epoch tells.
    const int s = ctx.shape(j);
    bool fail = job.total_gpus() > view.total_free || shape_failed_epoch_[static_cast<size_t>(s)] == epoch;
    Placement pl;
    if (!fail) {
      pl = placement_->place(ctx, j, view);
      fail = pl.empty();
      if (fail) shape_failed_epoch_[static_cast<size_t>(s)] = epoch;
    }
    if (fail) {
      if (strict) break;
      ordering_->skip_shape(s);  // no job of this shape can start in this call any more
      continue;
    }
    view.commit(ctx.profile(j), pl);
    out.push_back({j, std::move(pl)});
    ordering_->started(j);
  }
}

void ComposedScheduler::effort(long& searches, long& nodes, long& truncated) const {
  searches = placement_->searches;
  nodes = placement_->search_nodes;
  truncated = placement_->truncated_searches;
}

}  // namespace geopipe
