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
  if (inserted) {
    class_failed_epoch_.push_back(-1);
    shape_gpus_.push_back(job.total_gpus());
  }
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
  // Backfill also drops, before ordering, the jobs that need more GPUs than are free: they
  // would be skipped below anyway (free GPUs only shrink during the call), and an overloaded
  // cluster has a long queue but few free GPUs, so ordering only the rest saves most of the
  // sort.
  const std::vector<int>* candidates = &queue;
  if (!strict) {
    auto first = queue.begin();
    if (epoch == last_epoch_) {
      if (queue.back() <= last_seen_id_) return;  // nothing new and nothing released
      first = std::upper_bound(queue.begin(), queue.end(), last_seen_id_);
    }
    last_epoch_ = epoch;
    last_seen_id_ = queue.back();
    cand_.clear();
    live_.clear();
    for (auto it = first; it != queue.end(); ++it) {
      if (ctx.job(*it).total_gpus() > view.total_free) continue;
      cand_.push_back(*it);
      const int c = class_of(ctx, *it);
      if (class_failed_epoch_[static_cast<size_t>(c)] != epoch &&
          std::find(live_.begin(), live_.end(), c) == live_.end())
        live_.push_back(c);
    }
    if (live_.empty()) return;
    candidates = &cand_;
  }
  ordering_->begin(ctx, *candidates, view);
  for (int j = ordering_->next(); j >= 0; j = ordering_->next()) {
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
      // Backfill: once no shape among the candidates can start any more, the rest of the
      // order would only be skipped; stop taking it.
      if (drop_dead_shapes(view, epoch)) break;
      continue;
    }
    view.commit(ctx.profile(j), pl);
    out.push_back({j, std::move(pl)});
    if (!strict && drop_dead_shapes(view, epoch)) break;
  }
}

bool ComposedScheduler::drop_dead_shapes(const ClusterView& view, long epoch) {
  std::erase_if(live_, [&](int c) {
    return class_failed_epoch_[static_cast<size_t>(c)] == epoch || shape_gpus_[static_cast<size_t>(c)] > view.total_free;
  });
  return live_.empty();
}

void ComposedScheduler::effort(long& searches, long& nodes, long& truncated) const {
  searches = placement_->searches;
  nodes = placement_->search_nodes;
  truncated = placement_->truncated_searches;
}

}  // namespace geopipe
