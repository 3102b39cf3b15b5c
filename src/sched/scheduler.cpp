#include "sched/scheduler.h"

namespace geopipe {

ComposedScheduler::ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                                     std::unique_ptr<PlacementPolicy> placement)
    : name_(std::move(name)), ordering_(std::move(ordering)), placement_(std::move(placement)) {}

void ComposedScheduler::schedule(const SchedContext& ctx, const std::vector<int>& queue, ClusterView& view,
                                 std::vector<Decision>& out) {
  if (queue.empty() || view.total_free <= 0) return;
  if (failed_epoch_.size() < ctx.jobs->size()) failed_epoch_.resize(ctx.jobs->size(), -1);
  ordering_->order(ctx, queue, view, ordered_);
  const bool strict = ordering_->strict();
  const long epoch_at_start = view.epoch;
  for (int j : ordered_) {
    if (view.total_free <= 0) break;
    const Job& job = ctx.job(j);
    // Failure caching is valid only while resources have not grown: within this call that is
    // always true (placing only consumes), across calls the epoch tells.
    bool fail = job.total_gpus() > view.total_free || failed_epoch_[static_cast<size_t>(j)] == epoch_at_start;
    Placement pl;
    if (!fail) {
      pl = placement_->place(ctx, j, view);
      fail = pl.empty();
      if (fail) failed_epoch_[static_cast<size_t>(j)] = epoch_at_start;
    }
    if (fail) {
      if (strict) break;
      continue;
    }
    view.commit(ctx.profile(j), pl);
    out.push_back({j, std::move(pl)});
  }
}

void ComposedScheduler::effort(long& searches, long& nodes, long& truncated) const {
  searches = placement_->searches;
  nodes = placement_->search_nodes;
  truncated = placement_->truncated_searches;
}

}  // namespace geopipe
