// Can a job ever run on a cluster? The check behind the config loader's "fits no placement"
// errors (a job the idle cluster cannot hold would wait forever).
#pragma once

#include "model/job.h"
#include "model/topology.h"

namespace geopipe {

/// True if the job could run on the *empty* cluster: some placement of contiguous blocks over
/// distinct, consecutively connected regions (any number of switches) where each stage's
/// memory fits its region's GPU type and each region has enough GPUs. Bandwidth is ignored.
/// Tries one region for all stages first, then the pathfinder.
bool fits_empty_cluster(const JobProfile& profile, const Topology& topo);

/// The same answer from the pathfinder alone (what fits_empty_cluster falls back to; its
/// shortcut is tested against this).
bool fits_empty_cluster_by_search(const JobProfile& profile, const Topology& topo);

}  // namespace geopipe
