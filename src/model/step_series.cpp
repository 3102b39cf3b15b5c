#include "model/step_series.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace geopipe {

const char* series_end_name(SeriesEnd e) {
  switch (e) {
    case SeriesEnd::kError: return "error";
    case SeriesEnd::kHold: return "hold";
    case SeriesEnd::kWrap: return "wrap";
  }
  return "?";
}

StepSeries::StepSeries(std::vector<double> times_s, std::vector<double> values, SeriesEnd end, bool merge_equal_steps,
                       Integral integral)
    : t_(std::move(times_s)), v_(std::move(values)), end_(end) {
  const std::size_t n = t_.size();
  if (n == 0 || n != v_.size()) throw std::invalid_argument("StepSeries: need as many times as values, at least one");
  if (t_[0] != 0.0) throw std::invalid_argument("StepSeries: the first step must start at time 0");
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(t_[k]) || !std::isfinite(v_[k]) || v_[k] < 0)
      throw std::invalid_argument("StepSeries: times and values must be finite, values >= 0");
    if (k > 0 && !(t_[k] > t_[k - 1])) throw std::invalid_argument("StepSeries: times must increase");
  }
  if (n >= 2) end_s_ = t_[n - 1] + (t_[n - 1] - t_[n - 2]);
  if (merge_equal_steps) {
    std::size_t w = 1;
    for (std::size_t k = 1; k < n; ++k)
      if (v_[k] != v_[w - 1]) {
        t_[w] = t_[k];
        v_[w] = v_[k];
        ++w;
      }
    if (w < n) {  // give the merged steps' memory back (a copy of the kept ones, briefly)
      t_.resize(w);
      v_.resize(w);
      t_.shrink_to_fit();
      v_.shrink_to_fit();
    }
    // A wrapped series whose steps all merged is constant: no period is left to repeat. Held
    // or `error`, it keeps its end: the engine refuses to simulate past an `error` series' end
    // whether or not its value changes (a constant series of rows 0, 60, 120 ends at 180 s).
    if (w == 1 && end_ == SeriesEnd::kWrap) end_s_ = std::numeric_limits<double>::infinity();
  }
  const std::size_t m = t_.size();
  if (integral == Integral::kKept) {
    prefix_.assign(m + 1, 0.0);
    for (std::size_t k = 0; k < m; ++k) {
      const double next = k + 1 < m ? t_[k + 1] : end_s_;
      prefix_[k + 1] = std::isfinite(next) ? prefix_[k] + v_[k] * (next - t_[k]) : prefix_[k];
    }
  }
  max_ = *std::max_element(v_.begin(), v_.end());
}

void StepSeries::locate(double t_s, double& periods, double& rem, std::size_t& k) const {
  periods = 0;
  rem = t_s > 0 ? t_s : 0.0;
  if (end_ == SeriesEnd::kWrap && std::isfinite(end_s_)) {
    // As PriceProfile's day split: whole periods, then the position inside one.
    periods = std::floor(rem / end_s_);
    rem = rem - periods * end_s_;
    if (rem < 0) rem = 0;
    if (rem >= end_s_) rem = std::nextafter(end_s_, 0.0);
  }
  k = static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), rem) - t_.begin()) - 1;
}

double StepSeries::value_at(double t_s) const {
  double periods, rem;
  std::size_t k;
  locate(t_s, periods, rem, k);
  return v_[k];
}

double StepSeries::integral(double t_s) const {
  if (prefix_.empty()) throw std::logic_error("StepSeries::integral: the series was built without its integral");
  if (t_.size() == 1) return v_[0] * (t_s > 0 ? t_s : 0.0);
  double periods, rem;
  std::size_t k;
  locate(t_s, periods, rem, k);
  const double within = rem - t_[k];
  if (periods > 0) return periods * prefix_[t_.size()] + prefix_[k] + v_[k] * within;
  return prefix_[k] + v_[k] * within;
}

double StepSeries::next_change_after(double t_s) const {
  if (t_.size() == 1) return std::numeric_limits<double>::infinity();
  double periods, rem;
  std::size_t k;
  locate(t_s, periods, rem, k);
  if (end_ != SeriesEnd::kWrap || !std::isfinite(end_s_)) {
    if (k + 1 >= t_.size()) return std::numeric_limits<double>::infinity();
    return t_[k + 1];
  }
  // Wrapped: the next boundary inside this period, or the start of the next period.
  double next = (k + 1 < t_.size() ? t_[k + 1] : end_s_) + periods * end_s_;
  if (!(next > t_s)) next = std::nextafter(t_s, std::numeric_limits<double>::infinity());
  return next;
}

double StepSeries::Cursor::next_change_s() const {
  const StepSeries& s = *s_;
  const std::size_t n = s.t_.size();
  if (n == 1) return std::numeric_limits<double>::infinity();
  if (s.end_ != SeriesEnd::kWrap || !std::isfinite(s.end_s_))
    return k_ + 1 < n ? s.t_[k_ + 1] : std::numeric_limits<double>::infinity();
  // As next_change_after, from the position advance_to found.
  double next = (k_ + 1 < n ? s.t_[k_ + 1] : s.end_s_) + periods_ * s.end_s_;
  if (!(next > t_)) next = std::nextafter(t_, std::numeric_limits<double>::infinity());
  return next;
}

void StepSeries::Cursor::advance_to(double t_s) {
  // locate()'s arithmetic for the period and the offset in it, then a forward walk from the
  // step in force instead of a binary search: the same step as upper_bound finds, because
  // times only grow.
  const StepSeries& s = *s_;
  double periods = 0, rem = t_s > 0 ? t_s : 0.0;
  if (s.end_ == SeriesEnd::kWrap && std::isfinite(s.end_s_)) {
    periods = std::floor(rem / s.end_s_);
    rem = rem - periods * s.end_s_;
    if (rem < 0) rem = 0;
    if (rem >= s.end_s_) rem = std::nextafter(s.end_s_, 0.0);
  }
  if (periods != periods_ || rem < s.t_[k_]) {
    periods_ = periods;
    k_ = 0;
  }
  while (k_ + 1 < s.t_.size() && s.t_[k_ + 1] <= rem) ++k_;
  t_ = t_s;
}

}  // namespace geopipe
