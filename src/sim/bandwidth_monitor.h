// The scheduler's bandwidth monitor (docs/model.md, "Stale or noisy view"): what the
// schedulers believe about the residual bandwidth of every inter-region link direction.
//
// The monitor is a process in simulated time, as in a real deployment, not a by-product of
// scheduler calls:
//  * exact (view_staleness_s = 0, view_noise_sigma = 0): the view is the truth at every
//    scheduler call; the monitor takes no measurement and adds no event.
//  * stale (view_staleness_s = P > 0): a measurement at every tick t_k = k·P (k = 0, 1, ...).
//    The view at time t is the measurement of the latest tick <= t. A tick that falls between
//    two events measures the link state in force between them; a tick at an event time
//    measures the state after that time's completions (before its scheduler call).
//  * live and noisy (P = 0, σ > 0): a measurement at every scheduler call, and ticks every
//    view_refresh_s while jobs wait, each of which calls the scheduler (and so measures).
// With σ > 0 a measurement multiplies each direction's residual by max(0, 1 + σ·N(0, 1)); each
// measurement draws its own noise: tick k of a stale monitor from the stream
// (seed, "view-noise", k), so tick k's noise does not depend on which ticks were observed; the
// measurements of a live monitor from the sequential stream (seed, "view-noise"). Free GPUs and
// flow counts are never part of the monitor: the schedulers see them exactly.
//
// The engine (sim/engine.cpp) asks for the next tick while jobs wait and turns a tick whose
// measurement changed the view into a scheduler call; when the view changes the scheduler's
// epoch must grow (sim/view.h). Deterministic: the measurements depend only on the seed, the
// tick times and the link state at them. Not thread-safe: one monitor per simulation run.
#pragma once

#include <cstdint>
#include <vector>

#include "model/rng.h"
#include "model/scenario.h"

namespace geopipe {

class BandwidthMonitor {
 public:
  /// `regions`: R of the topology (views are row-major R×R, diagonal +inf). `seed`: the run's
  /// seed (simulate()), from which the noise streams are derived.
  BandwidthMonitor(const SchedulerParams& params, int regions, std::uint64_t seed);

  /// No staleness and no noise: the scheduler sees the truth; no measurement, no tick.
  bool exact() const { return exact_; }
  /// Time of the next periodic tick after the last one taken (+inf if the monitor is exact, or
  /// after 2^62 periods: simulated times beyond about 146 million years at the finest period).
  /// The engine makes it an event while jobs wait; while none wait, ticks are taken lazily
  /// by catch_up() at the next event, which gives the same view.
  double next_tick_s() const;

  /// At the start of the event at time t, before its completions change the link state:
  /// takes the latest stale tick strictly before t not yet taken, measuring `truth` (the state
  /// since the previous event). Returns true if the view changed.
  bool catch_up(double t, const std::vector<double>& truth);
  /// What a tick did (tick()).
  struct Tick {
    bool view_changed = false;  ///< a stale tick's measurement changed the view (the epoch must grow)
    bool call = false;          ///< the scheduler must be called: the view changed, or a live refresh is due
  };
  /// At time t after its completions and re-sharing: takes the tick due at t, if any.
  Tick tick(double t, const std::vector<double>& truth);
  /// The view for a scheduler call: the truth when exact; a fresh measurement when live and
  /// noisy (`changed`, out: it differs from the previous view); the latest tick's
  /// measurement when stale (`changed` = false: catch_up() and tick() reported it).
  const std::vector<double>& view_for_call(const std::vector<double>& truth, bool& changed);

  /// Could a later measurement, with the link state unchanged, give a different view? False
  /// when exact, or stale without noise and the view already equals `truth`.
  bool may_change(const std::vector<double>& truth) const;
  /// Measurements taken so far.
  std::uint64_t measurements() const { return measurements_; }

 private:
  bool measure(const std::vector<double>& truth, Rng& rng);  ///< true if the view changed
  std::uint64_t tick_index_at_or_before(double t) const;  ///< largest k with k·P <= t
  void advance_past(double t, std::uint64_t k);            ///< next tick: k + 1, and after t

  int regions_;
  double period_s_;     ///< P (stale) or view_refresh_s (live and noisy); 0 when exact
  double sigma_;
  bool exact_, stale_;
  std::uint64_t tick_seed_;   ///< parent of the per-tick streams (stale)
  Rng live_rng_;              ///< sequential stream (live and noisy)
  std::uint64_t next_tick_ = 0;  ///< index of the next tick not yet taken
  std::vector<double> view_, scratch_;
  std::uint64_t measurements_ = 0;
};

}  // namespace geopipe
