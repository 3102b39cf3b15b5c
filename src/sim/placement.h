// A job's placement: which region runs each pipeline stage.
#pragma once

#include <vector>

namespace geopipe {

/// Stage -> region map of one job. All of geopipe's policies produce contiguous blocks on
/// distinct regions, but the simulator accepts any map. A job of D > 1 data-parallel replicas
/// lists its replicas' stages replica by replica: replica k's stage i at k·S + i.
struct Placement {
  std::vector<int> stage_region;  ///< size D·S; region index of each stage

  bool empty() const { return stage_region.empty(); }
  /// Number of cross-region hops (region switches along the pipeline; for D = 1: with D > 1 a
  /// replica boundary counts too).
  int switches() const {
    int n = 0;
    for (size_t i = 1; i < stage_region.size(); ++i) n += stage_region[i] != stage_region[i - 1];
    return n;
  }
  /// GPUs taken per region (size R), given g GPUs per stage.
  std::vector<int> gpus_per_region(int num_regions, int gpus_per_stage) const {
    std::vector<int> n(static_cast<size_t>(num_regions), 0);
    for (int r : stage_region) n[static_cast<size_t>(r)] += gpus_per_stage;
    return n;
  }
};

}  // namespace geopipe
