// Named scheduler presets (DESIGN.md §3): ordering policy × placement policy. The names are
// part of the CLI and of the HDF5 format; never rename one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/scenario.h"

namespace geopipe {

class Scheduler;

enum class OrderingKind { kFifoStrict, kPriorityBackfill };
enum class PlacementKind {
  kPathfinderCostMin,  ///< bandwidth-aware pathfinder, then cost-min within (1+ε) of the fastest
  kPathfinderMinTime,  ///< bandwidth-aware pathfinder, then the fastest feasible path
  kCostMinBlind,       ///< cost-min over all placements, bandwidth-blind
  kDelayFirst,         ///< minimise estimated iteration time (bandwidth-aware estimate), price-blind
  kCostFirst,          ///< cheapest single region that can host the whole job, else wait
  kGreedyCost,         ///< fill regions in price order, bandwidth-blind
  kFirstFit,           ///< fill regions in scenario order, bandwidth- and price-blind
};

struct PresetInfo {
  std::string_view name;
  OrderingKind ordering;
  PlacementKind placement;
  std::string_view description;
};

/// All presets, in the canonical order used by `--scheduler all` and in tables.
const std::vector<PresetInfo>& presets();
/// Preset by name, or nullptr.
const PresetInfo* find_preset(std::string_view name);
/// Names of all presets, canonical order.
std::vector<std::string> preset_names();
/// Builds a scheduler for a preset with the scenario's parameters. Throws std::invalid_argument
/// for an unknown name (callers validate names first and report InputError).
std::unique_ptr<Scheduler> make_scheduler(std::string_view preset, const SchedulerParams& params);

}  // namespace geopipe
