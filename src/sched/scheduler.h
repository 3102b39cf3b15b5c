// A scheduler composed of an ordering policy and a placement policy (docs/model.md,
// "Schedulers"); what every preset of sched/registry.h builds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/ordering.h"
#include "sched/placement_policy.h"
#include "sim/scheduler_api.h"

namespace geopipe {

/// What may hold a placed job back (wait-awhile's temporal shifting, sched/wait_awhile.h): asked
/// by ComposedScheduler after the placement policy placed a job and before it starts.
class StartGate {
 public:
  virtual ~StartGate() = default;
  /// true: job j (profile `p`: the placed variant's for a flexible job) is not started now,
  /// although `pl` fits `view`; it is passed over as a backfill ordering passes over a job.
  virtual bool hold(const SchedContext& ctx, int j, const JobProfile& p, const Placement& pl, const ClusterView& view) = 0;
};

class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<OrderingPolicy> ordering,
                    std::unique_ptr<PlacementPolicy> placement);
  std::string_view name() const override { return name_; }
  /// Considers jobs in the ordering's order. A job is skipped without a search when the free
  /// GPUs cannot hold it. A strict ordering stops at the first job that cannot start; a
  /// backfill ordering goes on with the next.
  /// Failure cache, only for placement policies that opt in
  /// (PlacementPolicy::failures_depend_only_on_shape_and_epoch): once a job's placement
  /// failed, no job of the same shape is searched again until the view's epoch changes, and a
  /// backfill call at an unchanged epoch without new arrivals returns at once.
  /// A job of D > 1 replicas (docs/model.md, "Data parallelism") is placed as a gang by the
  /// placement policy (PlacementPolicy::place_gang); if it finds none, the job waits, except on
  /// the idle cluster, where it takes the placement the
  /// config loader's check found (replicas_first_found, sched/feasibility.h): every accepted
  /// job starts at the latest when the cluster is idle. The placement lists the replicas'
  /// stages replica by replica.
  /// A flexible job (data_parallel = 0, docs/model.md "Choosing D") is placed as each of its
  /// variants in turn (SchedContext::with_variant: the policy sees a job of that fixed shape),
  /// and starts as the placed variant the policy chooses (PlacementPolicy::choose_variant); if
  /// none places, it waits, except on the idle cluster, where it starts as the first variant
  /// with a replicas_first_found placement. Failures are cached by the flexible job's shape.
  /// Requires the queue in increasing id order (scheduler_api.h).
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override;
  SearchEffort effort() const override { return placement_->effort(); }
  /// Asks `gate` (not owned; null: none, the default) before starting each placed job. A job
  /// held in a call may start at a later call of the same epoch without new arrivals, so the
  /// call after one that held a job never takes the backfill shortcut above. Only with a
  /// backfill ordering (a strict one would block behind a held job).
  void set_gate(StartGate* gate) { gate_ = gate; }

 private:
  Placement place_replicas(const SchedContext& ctx, int j, const ClusterView& view);
  /// Flexible job j: the chosen variant's index (its placement in `out`), or -1 ("wait").
  int place_flexible(const SchedContext& ctx, int j, const ClusterView& view, Placement& out);

  std::string name_;
  std::unique_ptr<OrderingPolicy> ordering_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<JobProfile> flex_;          ///< place_flexible: the variants with the job's iterations
  std::vector<VariantCandidate> cands_;   ///< place_flexible: the placed ones
  bool cache_failures_;                   ///< the placement policy opted in
  std::vector<long> shape_failed_epoch_;  ///< per job shape: epoch of its last failed placement, or -1
  long last_epoch_ = -1;                  ///< backfill: epoch of the last call
  int last_seen_id_ = -1;                 ///< backfill: largest job id in the queue at the last call
  StartGate* gate_ = nullptr;             ///< set_gate: may hold placed jobs (not owned)
};

}  // namespace geopipe
