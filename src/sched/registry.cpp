#include "sched/registry.h"

#include <stdexcept>

#include "sched/gavel.h"
#include "sched/preemptive.h"
#include "sched/scheduler.h"
#include "sched/wait_awhile.h"
#include "util/named_table.h"

namespace geopipe {
namespace {
std::unique_ptr<Scheduler> make_srtf(std::string_view name, const SchedulerParams& p) {
  return make_preemptive_scheduler(std::string(name), PreemptiveRule::kSrtf, p);
}
std::unique_ptr<Scheduler> make_tiresias(std::string_view name, const SchedulerParams& p) {
  return make_preemptive_scheduler(std::string(name), PreemptiveRule::kTiresias, p);
}
std::unique_ptr<Scheduler> make_gavel(std::string_view name, const SchedulerParams& p) {
  return make_gavel_scheduler(std::string(name), p);
}
std::unique_ptr<Scheduler> make_wait_awhile(std::string_view name, const SchedulerParams& p) {
  return make_wait_awhile_scheduler(std::string(name), p);
}
}  // namespace

const std::vector<PresetInfo>& presets() {
  static const std::vector<PresetInfo> all = {
      {"bace-pipe", "dynamic priority + backfill; bandwidth-aware pathfinder -> cost-min allocator",
       make_priority_backfill, make_pathfinder_costmin},
      {"delay-first", "FIFO; minimise estimated iteration time, price-blind", make_fifo_strict, make_delay_first},
      {"cost-first", "FIFO; cheapest single region hosting the whole job, else wait", make_fifo_strict,
       make_cost_first},
      {"greedy-cost", "FIFO; fill regions in price order, bandwidth-blind", make_fifo_strict, make_greedy_cost},
      {"first-fit", "FIFO; fill regions in scenario order, bandwidth- and price-blind", make_fifo_strict,
       make_first_fit},
      {"bace-no-priority", "ablation: FIFO instead of dynamic priority", make_fifo_strict, make_pathfinder_costmin},
      {"bace-no-pathfinder", "ablation: cost-min over all placements, bandwidth-blind", make_priority_backfill,
       make_costmin_blind},
      {"bace-no-costmin", "ablation: pathfinder -> fastest feasible path (price-blind)", make_priority_backfill,
       make_pathfinder_mintime},
      // The literature's baselines (docs/model.md, "Literature baselines"); appended, so the
      // positions of the presets above in `--scheduler all` stay what they were.
      {"fifo-backfill", "FIFO + backfill; bace-pipe's placement (isolates the ordering's share)", make_fifo_backfill,
       make_pathfinder_costmin},
      {"sjf", "shortest job first (oracle work) + backfill; bace-pipe's placement", make_shortest_first,
       make_pathfinder_costmin},
      {"srtf", "preemptive shortest remaining (oracle) work first + backfill; bace-pipe's placement", nullptr,
       nullptr, make_srtf},
      {"tiresias", "preemptive discretised 2D-LAS (Tiresias): queues by attained GPU-time; bace-pipe's placement",
       nullptr, nullptr, make_tiresias},
      {"gavel-maxmin", "Gavel's heterogeneity-aware max-min fairness (LP over region classes), preemptive rounds",
       nullptr, nullptr, make_gavel},
      {"wait-awhile", "bace-pipe + temporal shifting: holds a job within its slack_s for a cheaper or cleaner start (oracle forecast)",
       nullptr, nullptr, make_wait_awhile},
  };
  return all;
}

const PresetInfo* find_preset(std::string_view name) { return util::find_named(presets(), name); }

std::vector<std::string> preset_names() { return util::names_of(presets()); }

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerParams& prm) {
  const PresetInfo* info = find_preset(name);
  if (!info) throw std::invalid_argument("unknown scheduler preset '" + std::string(name) + "'");
  if (info->make_whole) return info->make_whole(name, prm);
  return std::make_unique<ComposedScheduler>(std::string(name), info->make_ordering(prm), info->make_placement(prm));
}

}  // namespace geopipe
