#include "sched/registry.h"

#include <stdexcept>

#include "sched/scheduler.h"

namespace geopipe {

const std::vector<PresetInfo>& presets() {
  using O = OrderingKind;
  using P = PlacementKind;
  static const std::vector<PresetInfo> all = {
      {"bace-pipe", O::kPriorityBackfill, P::kPathfinderCostMin,
       "dynamic priority + backfill; bandwidth-aware pathfinder -> cost-min allocator"},
      {"delay-first", O::kFifoStrict, P::kDelayFirst, "FIFO; minimise estimated iteration time, price-blind"},
      {"cost-first", O::kFifoStrict, P::kCostFirst, "FIFO; cheapest single region hosting the whole job, else wait"},
      {"greedy-cost", O::kFifoStrict, P::kGreedyCost, "FIFO; fill regions in price order, bandwidth-blind"},
      {"first-fit", O::kFifoStrict, P::kFirstFit, "FIFO; fill regions in scenario order, bandwidth- and price-blind"},
      {"bace-no-priority", O::kFifoStrict, P::kPathfinderCostMin, "ablation: FIFO instead of dynamic priority"},
      {"bace-no-pathfinder", O::kPriorityBackfill, P::kCostMinBlind,
       "ablation: cost-min over all placements, bandwidth-blind"},
      {"bace-no-costmin", O::kPriorityBackfill, P::kPathfinderMinTime,
       "ablation: pathfinder -> fastest feasible path (price-blind)"},
  };
  return all;
}

const PresetInfo* find_preset(std::string_view name) {
  for (const auto& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> v;
  for (const auto& p : presets()) v.emplace_back(p.name);
  return v;
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerParams& prm) {
  const PresetInfo* info = find_preset(name);
  if (!info) throw std::invalid_argument("unknown scheduler preset '" + std::string(name) + "'");
  std::unique_ptr<OrderingPolicy> ord =
      info->ordering == OrderingKind::kFifoStrict ? make_fifo_strict() : make_priority_backfill(prm);
  std::unique_ptr<PlacementPolicy> pl;
  switch (info->placement) {
    case PlacementKind::kPathfinderCostMin: pl = make_pathfinder_costmin(prm); break;
    case PlacementKind::kPathfinderMinTime: pl = make_pathfinder_mintime(prm); break;
    case PlacementKind::kCostMinBlind: pl = make_costmin_blind(prm); break;
    case PlacementKind::kDelayFirst: pl = make_delay_first(prm); break;
    case PlacementKind::kCostFirst: pl = make_cost_first(prm); break;
    case PlacementKind::kGreedyCost: pl = make_greedy_cost(prm); break;
    case PlacementKind::kFirstFit: pl = make_first_fit(prm); break;
  }
  return std::make_unique<ComposedScheduler>(std::string(name), std::move(ord), std::move(pl));
}

}  // namespace geopipe
