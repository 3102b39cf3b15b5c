// A measured quantity that changes in steps over simulated time: a link's capacity, a region's
// electricity price or carbon intensity read from a CSV series (docs/model.md, "Time series").
//
// Contract: steps (t_k, v_k), k = 0..n-1, with t_0 = 0 < t_1 < ... < t_{n-1} (seconds of
// simulation time) and finite v_k >= 0; the value is v_k on [t_k, t_{k+1}). The series covers
// [0, end_s) with end_s = t_{n-1} + (t_{n-1} − t_{n-2}): its last step lasts as long as the one
// before it (an hourly series of 24 rows covers 24 hours); a one-step series is constant for
// ever (end_s = +inf). Beyond end_s, `SeriesEnd` decides: hold the last value, or wrap (the
// series repeats with period end_s). Integrals are exact for the steps: Σ v_k·Δt_k, with the
// same arithmetic as PriceProfile's 24-hour profile (a wrapped 24-step hourly series and the
// equivalent profile integrate bit for bit). The class is immutable once built.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace geopipe {

/// What a series is beyond its end (`sim.series_end`; `kError` makes the engine refuse to
/// simulate past it, sim/engine.h, and is `kHold` here).
enum class SeriesEnd { kError, kHold, kWrap };

/// The name of a policy as the scenario writes it ("error", "hold", "wrap").
const char* series_end_name(SeriesEnd e);

class StepSeries {
 public:
  /// Throws std::invalid_argument if the contract above is broken (the config layer checks it
  /// first and says where). With `merge_equal_steps`, a step whose value equals the one before
  /// it is dropped after end_s is fixed (the value function is the same; next_change_after then
  /// reports only real changes, so a constant series adds no event; link capacities use it,
  /// prices do not, so that a price series changes when the 24-hour profile would). The end
  /// stays that of the rows given, also when all of them merge into one step (then a wrapped
  /// series is constant for ever, end_s = +inf).
  ///
  /// Memory: the times and values given are moved in and kept (16 bytes per step), plus the
  /// prefix integrals (8 bytes per step) unless `integral` is kNone: a link capacity is never
  /// integrated, a price or carbon series is.
  enum class Integral { kKept, kNone };
  StepSeries(std::vector<double> times_s, std::vector<double> values, SeriesEnd end, bool merge_equal_steps = false,
             Integral integral = Integral::kKept);

  /// Value in force at t_s (>= 0; a negative t reads as 0).
  double value_at(double t_s) const;
  /// ∫_0^t value(τ) dτ (value × seconds), exact for the steps. Throws std::logic_error for a
  /// series built with Integral::kNone.
  double integral(double t_s) const;
  /// Earliest time > t_s at which the value may change (+inf if it never does).
  double next_change_after(double t_s) const;
  /// End of the covered span (+inf for one step).
  double end_s() const { return end_s_; }
  SeriesEnd end() const { return end_; }
  double max_value() const { return max_; }
  std::size_t size() const { return t_.size(); }
  const std::vector<double>& times_s() const { return t_; }
  const std::vector<double>& values() const { return v_; }

  /// Walks a series forward in time without searching: what the engine uses at each step
  /// (value_at and next_change_after search, O(log n) each). advance_to(t) with
  /// non-decreasing t gives value() == value_at(t) and next_change_s() == next_change_after(t)
  /// (checked in tests/unit/test_time_series.cpp).
  class Cursor {
   public:
    explicit Cursor(const StepSeries& s) : s_(&s) {}
    void advance_to(double t_s);
    double value() const { return s_->v_[k_]; }
    /// Time of the next step (+inf if none).
    double next_change_s() const;

   private:
    const StepSeries* s_;
    std::size_t k_ = 0;   ///< step in force
    double periods_ = 0;  ///< whole periods before it (wrap)
    double t_ = 0;        ///< the last time advanced to
  };

 private:
  /// Position of t inside the covered span: the step index and the offset into the series'
  /// period (wrap) or t itself (hold), and how many whole periods lie before it (wrap).
  void locate(double t_s, double& periods, double& rem, std::size_t& k) const;

  std::vector<double> t_, v_;
  std::vector<double> prefix_;  ///< prefix_[k] = ∫_0^{t_k}; size n + 1 (prefix_[n] = ∫ over the span); empty: kNone
  double end_s_ = std::numeric_limits<double>::infinity();
  double max_ = 0;
  SeriesEnd end_ = SeriesEnd::kHold;
};

}  // namespace geopipe
