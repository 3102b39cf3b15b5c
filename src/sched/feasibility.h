// Can a job ever run on a cluster? The check behind the config loader's "fits no placement"
// errors (a job the idle cluster cannot hold would wait forever).
#pragma once

#include "model/job.h"
#include "model/topology.h"

namespace geopipe {

/// True if the job could run on the *empty* cluster: some placement of contiguous blocks over
/// distinct, consecutively connected regions (any number of switches) where each stage's
/// memory fits its region's GPU type and each region has enough GPUs. Bandwidth is ignored.
bool fits_empty_cluster(const JobProfile& profile, const Topology& topo);

}  // namespace geopipe
