// What several of test_core's files share. test_core is compiled as one translation unit (a
// unity build, GEOPIPE_UNITY_BUILD): a name defined in two files' anonymous namespaces would
// be defined twice, so a helper two files need lives here, once.
#pragma once

#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler_api.h"

namespace geopipe::testutil {

/// +infinity: no link, no cap, an unbounded bandwidth.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Starts each waiting job, in queue order, on a fixed placement (job j's is placements[j]:
/// S regions, or D·S replica by replica) as soon as its GPUs are free; stops at the first job
/// that does not fit. Reports `effort` as its search effort.
class ScriptedScheduler final : public Scheduler {
 public:
  explicit ScriptedScheduler(std::vector<std::vector<int>> placements, SearchEffort effort = {})
      : pl_(std::move(placements)), effort_(effort) {}
  std::string_view name() const override { return "scripted"; }
  SearchEffort effort() const override { return effort_; }
  void schedule(const SchedContext& ctx, const WaitingQueue& queue, ClusterView& view,
                std::vector<Decision>& out) override {
    for (int j : queue) {
      Placement p{pl_[static_cast<size_t>(j)]};
      const auto need = p.gpus_per_region(view.regions(), ctx.job(j).gpus_per_stage);
      for (int r = 0; r < view.regions(); ++r)
        if (need[static_cast<size_t>(r)] > view.free_gpus[static_cast<size_t>(r)]) return;
      view.commit(ctx.profile(j), p);
      out.push_back({j, p});
    }
  }

 private:
  std::vector<std::vector<int>> pl_;
  SearchEffort effort_;
};

}  // namespace geopipe::testutil
