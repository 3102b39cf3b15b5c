// Placement policies: where a job runs, given the scheduler's view of the cluster (docs/model.md,
// "Schedulers"). A *placement* is the stage -> region map of one job (sim/placement.h); a
// *placement policy* chooses one. The policies are built by the factories below and combined
// with an ordering policy (sched/ordering.h) into a scheduler by a preset (sched/registry.h).
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "model/scenario.h"
#include "sim/placement.h"
#include "sim/scheduler_api.h"
#include "sim/view.h"

namespace geopipe {

/// A placed variant of a flexible job (model/flexible_job.h), for PlacementPolicy::choose_variant.
struct VariantCandidate {
  int variant = -1;                   ///< index in SchedContext::variants_of(job)
  const JobProfile* profile = nullptr;  ///< the variant's profile, with the job's iterations
  Placement placement;                ///< where place() or place_gang() put it
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;

  /// Where job `job` should start now; an empty placement means "wait". The placement must
  /// fit the view (free GPUs, memory, connected consecutive regions). Deterministic: no wall
  /// time, addresses or thread timing may influence it.
  virtual Placement place(const SchedContext& ctx, int job, const ClusterView& view) = 0;

  /// Where job `job` of D > 1 replicas should start now, as a gang
  /// (docs/model.md, "Data parallelism"): D·S regions, replica by replica, every stage's replicas in
  /// regions its synchronisation ring can join (sync_rings_connected), or empty ("wait"). The
  /// default is the policy's rule per replica: place() replica after replica on a copy of the
  /// view that books the replicas placed before (so each sees what is left). Policies whose
  /// estimate can see the synchronisation override it (bace-pipe: sched/search_policies.cpp).
  /// Deterministic, as place().
  virtual Placement place_gang(const SchedContext& ctx, int job, const ClusterView& view);

  /// Which placed variant flexible job `job` starts as (docs/model.md, "Choosing D"): an index
  /// into `cands` (non-empty, each placed by this policy as if the job were of that fixed
  /// shape, in increasing D), or -1: none, the job waits. `variants` are all of the job's
  /// variants (SchedContext::variants_of, with its iterations; cands point into it). The
  /// default, the fill baselines' rule: the first, the least D that places. The search
  /// policies override it with their own objective. Deterministic, as place(); a -1 must keep
  /// the failure cache's contract (failures_depend_only_on_shape_and_epoch).
  virtual int choose_variant(const SchedContext& ctx, int job, std::span<const VariantCandidate> cands,
                             std::span<const JobProfile> variants, const ClusterView& view);

  /// Opt-in to the scheduler's failure cache (docs/model.md, "Skipping hopeless searches").
  /// Return true only if whether place() finds *a* placement depends on nothing but
  ///  * the job's shape (model/job.h job_shapes(): not its iterations or arrival), and
  ///  * resources that can only grow when ClusterView::epoch changes (free GPUs, the bandwidth
  ///    view), monotonically: taking resources never turns a failure into a success;
  /// and not on the clock, prices, or this policy's own history. The scheduler may then skip
  /// every job of a shape whose placement failed, for the rest of the epoch. Default: false,
  /// every waiting job is asked about at every call.
  virtual bool failures_depend_only_on_shape_and_epoch() const { return false; }

  /// Search effort so far (zero for policies that do not search).
  const SearchEffort& effort() const { return effort_; }

 protected:
  SearchEffort effort_;
  ClusterView trial_;  ///< place_gang's copy of the view (storage reused)
};

/// Factories, one per policy; all take the scenario's scheduler parameters (policies ignore
/// the ones they do not use), so that presets can hold them in one table.
using PlacementFactory = std::unique_ptr<PlacementPolicy> (*)(const SchedulerParams&);

/// Bandwidth-aware pathfinder (stall-free hops), then the cost-min allocator: the cheapest
/// estimated cost within (1+ε) of the fastest feasible placement (bace-pipe).
std::unique_ptr<PlacementPolicy> make_pathfinder_costmin(const SchedulerParams& p);
/// Bandwidth-aware pathfinder, then the fastest feasible placement (bace-no-costmin).
std::unique_ptr<PlacementPolicy> make_pathfinder_mintime(const SchedulerParams& p);
/// Cost-min over all placements with a bandwidth-blind estimate (bace-no-pathfinder).
std::unique_ptr<PlacementPolicy> make_costmin_blind(const SchedulerParams& p);
/// Minimise the estimated iteration time with the bandwidth a new flow would get; price-blind.
std::unique_ptr<PlacementPolicy> make_delay_first(const SchedulerParams& p);

/// The four search-based policies above (their factories build them with kPerShape).
enum class SearchPolicyKind { kPathfinderCostMin, kPathfinderMinTime, kCostMinBlind, kDelayFirst };
/// When a search-based policy decides a job's relaxation on the idle cluster (docs/model.md,
/// "Relaxations"). The relaxation is a function of the job's shape (SchedContext::shape), so
/// both give the same decisions: kPerShape decides it once per shape (what the presets use),
/// kPerJob once per job (the reference the tests compare it with; 3 more feasibility searches
/// per job).
enum class RelaxationScope { kPerShape, kPerJob };
/// A search-based policy with the given relaxation scope.
std::unique_ptr<PlacementPolicy> make_search_policy(SearchPolicyKind kind, const SchedulerParams& p, RelaxationScope scope);
/// Cheapest single region that can host the whole job now, else wait.
std::unique_ptr<PlacementPolicy> make_cost_first(const SchedulerParams& p);
/// Fill regions in current-price order, bandwidth-blind.
std::unique_ptr<PlacementPolicy> make_greedy_cost(const SchedulerParams& p);
/// Fill regions in scenario order, bandwidth- and price-blind.
std::unique_ptr<PlacementPolicy> make_first_fit(const SchedulerParams& p);

}  // namespace geopipe
