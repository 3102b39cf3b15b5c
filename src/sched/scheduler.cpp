#include "sched/scheduler.h"

#include "model/data_parallel.h"
#include "sched/feasibility.h"

namespace geopipe {

ComposedScheduler::ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                                     std::unique_ptr<PlacementPolicy> placement)
    : name_(std::move(name)),
      ordering_(std::move(ordering)),
      placement_(std::move(placement)),
      cache_failures_(placement_->failures_depend_only_on_shape_and_epoch()) {}

void ComposedScheduler::schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                                 std::vector<Decision>& out) {
  if (queue.empty() || view.total_free <= 0) return;
  if (shape_failed_epoch_.size() < static_cast<size_t>(ctx.num_shapes))
    shape_failed_epoch_.resize(static_cast<size_t>(ctx.num_shapes), -1);
  const bool strict = ordering_->strict();
  const long epoch = view.epoch;
  if (!strict && cache_failures_) {
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
    const int s = ctx.shape(j);
    // A job larger than the free GPUs: so is every job of its shape for the rest of the call
    // (placing only consumes), whatever the policy.
    if (ctx.job(j).total_gpus() > view.total_free) {
      if (strict) break;
      ordering_->skip_shape(s);
      continue;
    }
    // Failure caching, by job shape (opt-in): whether a placement exists then depends on the
    // shape and stays false while resources do not grow: within this call that is always
    // true, across calls the epoch tells.
    const bool known_to_fail = cache_failures_ && shape_failed_epoch_[static_cast<size_t>(s)] == epoch;
    Placement pl;
    if (!known_to_fail) pl = ctx.job(j).data_parallel > 1 ? place_replicas(ctx, j, view) : placement_->place(ctx, j, view);
    if (pl.empty()) {
      if (cache_failures_) shape_failed_epoch_[static_cast<size_t>(s)] = epoch;
      if (strict) break;
      if (cache_failures_)
        ordering_->skip_shape(s);  // no job of this shape can start in this call any more
      else
        ordering_->skip_job(j);
      continue;
    }
    // The view books the flows the job will have: β from the layer split it runs with there.
    if (view.compute->layer_partition == LayerPartition::kEven || ctx.job(j).data_parallel > 1)
      view.commit(ctx.profile(j), pl);
    else
      view.commit(placed_profile(ctx.profile(j), pl.stage_region, *view.topo, *view.compute), pl);
    out.push_back({j, std::move(pl)});
    ordering_->started(j);
  }
}

Placement ComposedScheduler::place_replicas(const SchedContext& ctx, int j, const ClusterView& view) {
  Placement all = placement_->place_gang(ctx, j, view);
  if (!all.empty()) return all;
  // The policy's replicas make no gang (one found no room, or a stage's replicas landed in
  // regions no link joins). On the idle cluster: the placement the config loader's check found
  // (sched/feasibility.h), so that no accepted job waits for ever.
  if (view.total_free < view.topo->total_gpus()) return {};
  return replicas_first_found(ctx.profile(j), feasibility_view(*view.topo), view.compute->allreduce);
}

}  // namespace geopipe
