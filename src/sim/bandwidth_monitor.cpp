#include "sim/bandwidth_monitor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geopipe {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Tick indices saturate here: the monitor ticks no more (next_tick_s() = +inf). Below 2^52
/// every index and its tick time k·P are exact enough to step one by one.
constexpr std::uint64_t kMaxTick = std::uint64_t{1} << 62;
}  // namespace

BandwidthMonitor::BandwidthMonitor(const SchedulerParams& params, int regions, std::uint64_t seed)
    : regions_(regions),
      period_s_(0),
      sigma_(params.view_noise_sigma),
      exact_(params.view_staleness_s <= 0 && params.view_noise_sigma <= 0),
      stale_(params.view_staleness_s > 0),
      tick_seed_(derive_seed(seed, "view-noise")),
      live_rng_(derive_seed(seed, "view-noise")) {
  if (stale_)
    period_s_ = params.view_staleness_s;
  else if (!exact_)
    period_s_ = params.view_refresh_s;
}

double BandwidthMonitor::next_tick_s() const {
  return exact_ || next_tick_ >= kMaxTick ? kInf : static_cast<double>(next_tick_) * period_s_;
}

std::uint64_t BandwidthMonitor::tick_index_at_or_before(double t) const {
  // k = floor(t / P), corrected so that k·P (the tick time as next_tick_s() computes it) <= t
  // < (k+1)·P holds in floating point as well; saturated at kMaxTick.
  const double q = std::floor(t / period_s_);
  if (!(q < static_cast<double>(kMaxTick))) return kMaxTick;
  auto k = static_cast<std::uint64_t>(q);
  if (k >= (std::uint64_t{1} << 52)) return k;  // k·P steps by more than one index here
  while (k > 0 && static_cast<double>(k) * period_s_ > t) --k;
  while (static_cast<double>(k + 1) * period_s_ <= t) ++k;
  return k;
}

void BandwidthMonitor::advance_past(double t, std::uint64_t k) {
  next_tick_ = std::min(k + 1, kMaxTick);
  // Beyond 2^52 periods consecutive tick times may round to one value: skip to the first tick
  // index whose time is after t, so that the engine never meets the same tick time twice.
  if (next_tick_s() <= t) {
    const double q = std::ceil(std::nextafter(t, kInf) / period_s_);
    next_tick_ = q < static_cast<double>(kMaxTick) ? std::max(next_tick_ + 1, static_cast<std::uint64_t>(q)) : kMaxTick;
  }
}

bool BandwidthMonitor::measure(const std::vector<double>& truth, Rng& rng) {
  ++measurements_;
  scratch_ = truth;
  if (sigma_ > 0) {
    const int R = regions_;
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < R; ++b)
        if (a != b) {
          double& v = scratch_[static_cast<size_t>(a * R + b)];
          v *= std::max(0.0, 1.0 + sigma_ * rng.normal());
        }
  }
  const bool changed = scratch_ != view_;
  view_.swap(scratch_);
  return changed;
}

bool BandwidthMonitor::catch_up(double t, const std::vector<double>& truth) {
  if (!stale_ || next_tick_s() >= t) return false;
  // The latest tick strictly before t (it exists: tick next_tick_ is before t).
  std::uint64_t k = tick_index_at_or_before(t);
  if (k > 0 && k < kMaxTick && static_cast<double>(k) * period_s_ == t) --k;
  advance_past(static_cast<double>(k) * period_s_, k);
  Rng rng(derive_stream_seed(tick_seed_, k));
  return measure(truth, rng);
}

BandwidthMonitor::Tick BandwidthMonitor::tick(double t, const std::vector<double>& truth) {
  Tick r;
  if (exact_ || next_tick_s() > t) return r;
  const std::uint64_t k = tick_index_at_or_before(t);  // the tick at t (or, live, the latest before it)
  advance_past(t, k);
  if (!stale_) {  // live: every tick calls the scheduler, and every call measures
    r.call = true;
    return r;
  }
  Rng rng(derive_stream_seed(tick_seed_, k));
  r.view_changed = r.call = measure(truth, rng);
  return r;
}

const std::vector<double>& BandwidthMonitor::view_for_call(const std::vector<double>& truth, bool& changed) {
  changed = false;
  if (exact_) return truth;
  if (!stale_) changed = measure(truth, live_rng_);
  return view_;
}

bool BandwidthMonitor::may_change(const std::vector<double>& truth) const {
  if (exact_) return false;
  if (sigma_ > 0) return true;
  return view_ != truth;
}

}  // namespace geopipe
