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
  bool held = false;
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
    int variant = -1;
    const JobProfile* p = &ctx.profile(j);
    if (!known_to_fail) {
      if (!ctx.variants_of(j).empty()) {
        variant = place_flexible(ctx, j, view, pl);
        if (variant >= 0) p = &flex_[static_cast<size_t>(variant)];
      } else {
        pl = p->data_parallel > 1 ? place_replicas(ctx, j, view) : placement_->place(ctx, j, view);
      }
    }
    if (pl.empty()) {
      if (cache_failures_) shape_failed_epoch_[static_cast<size_t>(s)] = epoch;
      if (strict) break;
      if (cache_failures_)
        ordering_->skip_shape(s);  // no job of this shape can start in this call any more
      else
        ordering_->skip_job(j);
      continue;
    }
    if (gate_ && gate_->hold(ctx, j, *p, pl, view)) {
      held = true;
      ordering_->skip_job(j);  // only this job: its shape may still start
      continue;
    }
    // The view books the flows the job will have: β from the layer split it runs with there.
    if (view.compute->layer_partition == LayerPartition::kEven || p->data_parallel > 1)
      view.commit(*p, pl);
    else
      view.commit(placed_profile(*p, pl.stage_region, *view.topo, *view.compute), pl);
    out.push_back({j, std::move(pl), variant});
    ordering_->started(j);
  }
  if (held) last_epoch_ = -1;  // a held job may be released by time alone: no shortcut next call
}

int ComposedScheduler::place_flexible(const SchedContext& ctx, int j, const ClusterView& view, Placement& out) {
  const std::span<const JobProfile> vs = ctx.variants_of(j);
  const double iterations = ctx.profile(j).iterations;
  // Every variant's profile first: the candidates point into flex_, which must not move.
  flex_.resize(vs.size());
  for (size_t k = 0; k < vs.size(); ++k) {
    flex_[k] = vs[k];
    flex_[k].iterations = iterations;
  }
  cands_.clear();
  for (size_t k = 0; k < vs.size(); ++k) {
    const SchedContext vc = ctx.with_variant(j, static_cast<int>(k), flex_[k]);
    Placement pl = flex_[k].data_parallel > 1 ? placement_->place_gang(vc, j, view) : placement_->place(vc, j, view);
    if (!pl.empty()) cands_.push_back({static_cast<int>(k), &flex_[k], std::move(pl)});
  }
  if (!cands_.empty()) {
    const int pick = placement_->choose_variant(ctx, j, cands_, flex_, view);
    if (pick < 0) return -1;  // the policy waits for a better variant (never on the idle cluster)
    VariantCandidate& c = cands_[static_cast<size_t>(pick)];
    out = std::move(c.placement);
    return c.variant;
  }
  // No variant places. On the idle cluster: the first variant the config loader's check
  // accepts (sched/feasibility.h), as place_replicas does for a fixed shape.
  if (view.total_free < view.topo->total_gpus()) return -1;
  const ClusterView idle = feasibility_view(*view.topo);
  for (size_t k = 0; k < vs.size(); ++k) {
    out = replicas_first_found(flex_[k], idle, view.compute->allreduce);
    if (!out.empty()) return static_cast<int>(k);
  }
  return -1;
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
