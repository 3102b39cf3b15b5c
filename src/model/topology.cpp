#include "model/topology.h"

#include <cmath>
#include <limits>

#include "model/units.h"
#include "util/named_table.h"

namespace geopipe {

PriceProfile PriceProfile::flat(double usd_per_kwh) {
  PriceProfile p;
  p.flat_ = true;
  p.hourly_usd_per_kwh_.fill(usd_per_kwh);
  p.build_prefix();
  return p;
}

PriceProfile PriceProfile::hourly(const std::array<double, 24>& local_hourly, double utc_offset_h) {
  PriceProfile p;
  p.flat_ = false;
  p.hourly_usd_per_kwh_ = local_hourly;
  p.utc_offset_s_ = utc_offset_h * units::kSecondsPerHour;
  p.build_prefix();
  return p;
}

PriceProfile PriceProfile::series(std::shared_ptr<const StepSeries> usd_per_kwh) {
  PriceProfile p;
  p.flat_ = false;
  p.series_ = std::move(usd_per_kwh);
  p.hourly_usd_per_kwh_.fill(p.series_->value_at(0.0));
  p.build_prefix();
  return p;
}

// Local time = t + offset. We integrate in local time: Π(t) = G(t + off) − G(off), where
// G(x) = ∫_0^x price_local(τ) dτ over the periodic local-hour profile.
void PriceProfile::build_prefix() {
  prefix_[0] = 0;
  for (int k = 0; k < 24; ++k) prefix_[static_cast<size_t>(k + 1)] = prefix_[static_cast<size_t>(k)] + hourly_usd_per_kwh_[static_cast<size_t>(k)] * units::kSecondsPerHour;
  day_integral_ = prefix_[24];
}

namespace {
// Position inside the day (seconds in [0, 86400)) and whole days, for any real x.
inline void split_day(double x, double& days, double& rem) {
  days = std::floor(x / units::kSecondsPerDay);
  rem = x - days * units::kSecondsPerDay;
  if (rem < 0) rem = 0;
  if (rem >= units::kSecondsPerDay) rem = std::nextafter(units::kSecondsPerDay, 0.0);
}
}  // namespace

double PriceProfile::usd_per_kwh_at(double t_s) const {
  if (flat_) return hourly_usd_per_kwh_[0];
  if (series_) return series_->value_at(t_s);
  double days, rem;
  split_day(t_s + utc_offset_s_, days, rem);
  auto hour = static_cast<size_t>(rem / units::kSecondsPerHour);
  if (hour > 23) hour = 23;
  return hourly_usd_per_kwh_[hour];
}

double PriceProfile::integral(double t_s) const {
  if (flat_) return hourly_usd_per_kwh_[0] * t_s;
  if (series_) return series_->integral(t_s);
  auto G = [this](double x) {
    double days, rem;
    split_day(x, days, rem);
    auto hour = static_cast<size_t>(rem / units::kSecondsPerHour);
    if (hour > 23) hour = 23;
    const double within = rem - static_cast<double>(hour) * units::kSecondsPerHour;
    return days * day_integral_ + prefix_[hour] + hourly_usd_per_kwh_[hour] * within;
  };
  return G(t_s + utc_offset_s_) - G(utc_offset_s_);
}

double PriceProfile::mean_usd_per_kwh(double t0_s, double t1_s) const {
  if (flat_ || t1_s <= t0_s) return usd_per_kwh_at(t0_s);
  return (integral(t1_s) - integral(t0_s)) / (t1_s - t0_s);
}

double PriceProfile::next_change_after(double t_s) const {
  if (flat_) return std::numeric_limits<double>::infinity();
  if (series_) return series_->next_change_after(t_s);
  // Hour boundaries in local time are at (k·3600 − offset) in simulation time.
  const double local = t_s + utc_offset_s_;
  const double next_local = (std::floor(local / units::kSecondsPerHour) + 1.0) * units::kSecondsPerHour;
  return next_local - utc_offset_s_;
}

int Topology::total_gpus() const {
  int n = 0;
  for (const auto& r : regions) n += r.gpu_count;
  return n;
}

int Topology::find_region(const std::string& name) const { return util::index_of_named(regions, name); }

void Topology::reset_links() {
  links.assign(regions.size() * regions.size(), Link{});
}

}  // namespace geopipe
