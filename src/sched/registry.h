// Named scheduler presets (docs/model.md, "Schedulers"): each is an ordering policy × a
// placement policy, held as the two factories that build them. Adding a preset is one entry
// in the table of registry.cpp (plus its line in docs/model.md and README.md). The names are
// part of the CLI and of the HDF5 format: never rename one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/scenario.h"
#include "sched/ordering.h"
#include "sched/placement_policy.h"

namespace geopipe {

class Scheduler;

/// A scheduler that is more than an ordering × a placement (the preemptive baselines,
/// sched/preemptive.h), built whole from its name and the scenario's parameters.
using SchedulerFactory = std::unique_ptr<Scheduler> (*)(std::string_view name, const SchedulerParams&);

struct PresetInfo {
  std::string_view name;             ///< CLI and HDF5 name, e.g. "bace-pipe"
  std::string_view description;      ///< one line for `geopipe list presets`
  OrderingFactory make_ordering;     ///< in which order waiting jobs are considered
  PlacementFactory make_placement;   ///< where a job runs
  /// Set for a scheduler built whole (then the two factories above are null).
  SchedulerFactory make_whole = nullptr;
};

/// All presets, in the canonical order used by `--scheduler all` and in tables.
const std::vector<PresetInfo>& presets();
/// Preset by name, or nullptr.
const PresetInfo* find_preset(std::string_view name);
/// Names of all presets, canonical order.
std::vector<std::string> preset_names();
/// Builds a scheduler for a preset with the scenario's parameters. Throws std::invalid_argument
/// for an unknown name (callers validate names first and report InputError). A scheduler serves
/// one simulation: its policies keep what they learn about the run's jobs and job shapes
/// (relaxations, run-time estimates) for the rest of the run.
std::unique_ptr<Scheduler> make_scheduler(std::string_view preset, const SchedulerParams& params);

}  // namespace geopipe
