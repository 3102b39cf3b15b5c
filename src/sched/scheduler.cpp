#include "sched/scheduler.h"

#include <algorithm>
#include <tuple>

namespace geopipe {

ComposedScheduler::ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                                     std::unique_ptr<PlacementPolicy> placement)
    : name_(std::move(name)), ordering_(std::move(ordering)), placement_(std::move(placement)) {}

int ComposedScheduler::class_of(const SchedContext& ctx, int j) {
  if (class_of_.size() < ctx.jobs->size()) class_of_.resize(ctx.jobs->size(), -1);
  int& c = class_of_[static_cast<size_t>(j)];
  if (c >= 0) return c;
  const Job& job = ctx.job(j);
  const ShapeKey key{job.model, job.stages, job.micro_batch_size, job.micro_batches, job.gpus_per_stage};
  const auto [it, inserted] = shapes_.try_emplace(key, static_cast<int>(shapes_.size()));
  if (inserted) class_failed_epoch_.push_back(-1);
  return c = it->second;
}

void ComposedScheduler::schedule(const SchedContext& ctx, const std::vector<int>& queue, ClusterView& view,
                                 std::vector<Decision>& out) {
  if (queue.empty() || view.total_free <= 0) return;
  const bool strict = ordering_->strict();
  const long epoch = view.epoch;
  // Backfill at an unchanged epoch: every job seen by an earlier call of this epoch either
  // started, failed (and would fail again: nothing was released since) or needed more GPUs
  // than were free (still true); so only the jobs that arrived since can start. The queue is
  // in id order, so they are its suffix after the last id seen. Same decisions, O(new) work.
  const std::vector<int>* candidates = &queue;
  if (!strict && epoch == last_epoch_ && queue.back() > last_seen_id_) {
    const auto first_new = std::upper_bound(queue.begin(), queue.end(), last_seen_id_);
    tail_.assign(first_new, queue.end());
    candidates = &tail_;
  } else if (!strict && epoch == last_epoch_) {
    return;  // nothing new and nothing released
  }
  last_epoch_ = epoch;
  last_seen_id_ = queue.back();
  const std::vector<int>& ordered = ordering_->order(ctx, *candidates, view);
  for (int j : ordered) {
    if (view.total_free <= 0) break;
    const Job& job = ctx.job(j);
    // Failure caching, by job shape: whether a placement exists depends on the job's shape
    // (model, stages, micro-batching, GPUs per stage), not on its iteration count or arrival,
    // and stays false while resources do not grow: within this call that is always true
    // (placing only consumes), across calls the epoch tells.
    const int c = class_of(ctx, j);
    bool fail = job.total_gpus() > view.total_free || class_failed_epoch_[static_cast<size_t>(c)] == epoch;
    Placement pl;
    if (!fail) {
      pl = placement_->place(ctx, j, view);
      fail = pl.empty();
      if (fail) class_failed_epoch_[static_cast<size_t>(c)] = epoch;
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
