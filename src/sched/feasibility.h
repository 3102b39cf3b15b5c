// Can a job ever run on a cluster? The check behind the config loader's "fits no placement"
// errors (a job the idle cluster cannot hold would wait forever).
#pragma once

#include "model/job.h"
#include "model/topology.h"
#include "sim/placement.h"
#include "sim/view.h"

namespace geopipe {

/// True if the job could run on the *empty* cluster: some placement of contiguous blocks over
/// distinct, consecutively connected regions (any number of switches) where each stage's
/// memory fits its region's GPU type and each region has enough GPUs. Bandwidth is ignored.
/// Tries one region for all stages first, then the pathfinder. A job of D > 1 replicas: D such
/// placements one after the other on what the ones before left (the first the search finds
/// for each), whose synchronisation rings (of `kind`) join connected regions only; a "no" may
/// then miss a cleverer packing (docs/model.md, "Data parallelism").
bool fits_empty_cluster(const JobProfile& profile, const Topology& topo,
                        AllReduceKind kind = AllReduceKind::kRing);

/// The idle cluster as the check sees it: idle_view with default compute options (its
/// searches ignore bandwidth, so no scenario option changes their answer).
ClusterView feasibility_view(const Topology& topo);

/// The placement of a job of D > 1 replicas that fits_empty_cluster finds, on `view`'s free
/// GPUs (replica by replica, each the first placement the bandwidth-blind search finds, booked
/// before the next; then the rings' links), or an empty one. On the idle view of
/// fits_empty_cluster (default compute options) it is not empty for every accepted job, which
/// is what the schedulers' gang placement falls back to on an idle cluster (sched/scheduler.h).
Placement replicas_first_found(const JobProfile& profile, const ClusterView& view, AllReduceKind kind);

/// The same answer from the pathfinder alone (what fits_empty_cluster falls back to; its
/// shortcut is tested against this).
bool fits_empty_cluster_by_search(const JobProfile& profile, const Topology& topo);

}  // namespace geopipe
