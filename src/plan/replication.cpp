// Precision-driven replication (plan/replication.h).
#include "plan/replication.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/metrics.h"
#include "analysis/stats.h"

namespace geopipe::sweep {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

Replication::Replication(const config::ReplicationRule& rule, std::uint64_t points,
                         const std::vector<std::string>& schedulers)
    : rule_(rule), points_(points), scheds_(schedulers.size()) {
  if (!rule.paired_vs.empty()) {
    const auto it = std::find(schedulers.begin(), schedulers.end(), rule.paired_vs);
    if (it == schedulers.end()) throw std::invalid_argument("Replication: paired_vs is not a scheduler");
    paired_ = static_cast<std::size_t>(it - schedulers.begin());
  }
  allowance_.assign(points, static_cast<std::uint32_t>(rule.min));
  values_.resize(points);
  precision_.resize(points);
}

double Replication::metric_value(const config::ReplicationRule& rule, const ScenarioMetrics& m) {
  double v = kNaN;
  for_each_metric(m, [&](const MetricDef& d, const auto& x) {
    if (rule.metric == d.name) v = static_cast<double>(x);
  });
  return v;
}

void Replication::record(std::uint64_t p, std::uint64_t k, std::uint64_t s, bool ok, double value) {
  if (p >= points_ || k >= rule_.max || s >= scheds_) return;
  std::vector<double>& v = values_[p];
  const auto i = static_cast<std::size_t>(k * scheds_ + s);
  if (v.size() <= i) v.resize(static_cast<std::size_t>((k + 1) * scheds_), kNaN);
  // A failure is recorded as +inf: the round is complete without its value, and the point stops.
  v[i] = ok && std::isfinite(value) ? value : std::numeric_limits<double>::infinity();
}

bool Replication::round_complete() const {
  for (std::uint64_t p = 0; p < points_; ++p) {
    if (precision_[p].state != PrecisionState::kRunning) continue;
    const std::vector<double>& v = values_[p];
    const std::size_t need = static_cast<std::size_t>(allowance_[p] * scheds_);
    if (v.size() < need) return false;
    for (std::size_t i = 0; i < need; ++i)
      if (std::isnan(v[i])) return false;
  }
  return true;
}

std::uint64_t Replication::decide(std::uint64_t p) {
  const std::uint64_t n = allowance_[p];
  PointPrecision& pp = precision_[p];
  pp.seeds = n;
  const std::vector<double>& v = values_[p];
  for (std::size_t i = 0; i < static_cast<std::size_t>(n * scheds_); ++i)
    if (std::isinf(v[i])) {
      pp.state = PrecisionState::kFailed;
      return n;
    }
  const double t = analysis::t_quantile(rule_.confidence, n - 1);
  // The least precise quantity: the one needing the most seeds (ratio of half-width to target).
  double worst_ratio = -1;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::uint64_t s = 0; s < scheds_; ++s) {
    if (s == paired_) continue;
    for (std::uint64_t k = 0; k < n; ++k) {
      const double m = v[static_cast<std::size_t>(k * scheds_ + s)];
      x[static_cast<std::size_t>(k)] = paired_ == SIZE_MAX ? m : m / v[static_cast<std::size_t>(k * scheds_ + paired_)] - 1;
    }
    double mean = 0;
    for (const double e : x) mean += e;
    mean /= static_cast<double>(n);
    double ss = 0;
    for (const double e : x) ss += (e - mean) * (e - mean);
    const double half = t * std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
    if (!std::isfinite(half)) {  // e.g. a baseline of 0: the change is not defined
      pp.state = PrecisionState::kFailed;
      return n;
    }
    const double target = std::max(rule_.rel_ci * std::abs(mean), rule_.abs_ci);
    const double ratio = half == 0 ? 0 : target > 0 ? half / target : std::numeric_limits<double>::infinity();
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      pp.mean = mean;
      pp.half_width = half;
      pp.rel_half_width = mean == 0 ? (half == 0 ? 0 : std::numeric_limits<double>::infinity()) : half / std::abs(mean);
    }
  }
  if (worst_ratio <= 1) {
    pp.state = PrecisionState::kConverged;
    return n;
  }
  if (n >= rule_.max) {
    pp.state = PrecisionState::kMaxSeeds;
    return n;
  }
  // The classic projection n (half / target)^2, at least one more seed, at most twice as many
  // per round (the estimate of the spread is refined before committing many more), at most max.
  const double projected = std::ceil(static_cast<double>(n) * worst_ratio * worst_ratio);
  const double want = std::min({projected, 2.0 * static_cast<double>(n), static_cast<double>(rule_.max)});
  pp.state = PrecisionState::kRunning;
  return std::max(n + 1, static_cast<std::uint64_t>(want));
}

std::uint64_t Replication::next_round() {
  std::uint64_t added = 0;
  for (std::uint64_t p = 0; p < points_; ++p) {
    if (precision_[p].state != PrecisionState::kRunning) continue;
    const std::uint64_t n = allowance_[p];
    const std::uint64_t next = decide(p);
    if (next > n) {
      added += (next - n) * scheds_;
      allowance_[p] = static_cast<std::uint32_t>(next);
    }
  }
  if (added > 0) ++rounds_;
  return added;
}

std::uint64_t Replication::scenarios() const {
  std::uint64_t n = 0;
  for (const std::uint32_t a : allowance_) n += a;
  return n * scheds_;
}

std::uint64_t Replication::count(PrecisionState s) const {
  std::uint64_t n = 0;
  for (const PointPrecision& p : precision_) n += p.state == s ? 1 : 0;
  return n;
}

}  // namespace geopipe::sweep
