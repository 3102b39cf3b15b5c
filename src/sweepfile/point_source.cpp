// The points of a sweep (sweepfile/point_source.h): the grid's product, the sampled factors'
// values, and the queries over the three parts in point order.
#include "sweepfile/point_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "sweepfile/parse.h"

namespace geopipe::config {

// ---- the grid -------------------------------------------------------------------------------

std::uint64_t SweepGrid::size() const {
  if (factors.empty()) return 0;
  std::uint64_t n = 1;
  for (const auto& f : factors) n *= f.size();  // bounded by the loader (kMaxScenarios)
  return n;
}

SweepPoint SweepGrid::point(std::uint64_t i, std::size_t ncol) const {
  SweepPoint p;
  p.numeric.assign(ncol, std::numeric_limits<double>::quiet_NaN());
  p.text.assign(ncol, "");
  std::vector<std::size_t> digit(factors.size());
  for (std::size_t f = factors.size(); f-- > 0;) {  // the last factor varies fastest
    digit[f] = static_cast<std::size_t>(i % factors[f].size());
    i /= factors[f].size();
  }
  for (std::size_t f = 0; f < factors.size(); ++f)
    for (const Cell& c : factors[f][digit[f]]) {
      p.overrides.push_back(c.override);
      p.numeric[c.column] = c.numeric;
      p.text[c.column] = c.text;
    }
  return p;
}

// ---- a sampling design ----------------------------------------------------------------------

SampledFactor::Level SampledFactor::value(double u) const {
  Level l = at;
  l.numeric = true;
  switch (kind) {
    case Kind::kUniform:
      l.number = min + u * (max - min);
      l.text = sweep_internal::float_text(l.number);
      return l;
    case Kind::kLogUniform:
      l.number = std::exp(std::log(min) + u * (std::log(max) - std::log(min)));
      l.text = sweep_internal::float_text(l.number);
      return l;
    case Kind::kInteger: {
      const double span = max - min + 1;
      l.number = std::min(max, min + std::floor(u * span));
      l.text = std::to_string(static_cast<std::int64_t>(l.number));
      return l;
    }
    case Kind::kDiscrete:
      return values[std::min(values.size() - 1, static_cast<std::size_t>(u * static_cast<double>(values.size())))];
  }
  return l;
}

Override SampledFactor::override_at(double u) const {
  const Level l = value(u);
  Override o;
  o.path = param;
  o.value = l.text;
  o.origin = l.origin;
  o.line = l.line;
  o.column = l.column;
  return o;
}

std::vector<std::string> SweepSample::factor_names() const {
  std::vector<std::string> names;
  names.reserve(factors.size());
  for (const SampledFactor& f : factors) names.push_back(f.param);
  return names;
}

SweepPoint SweepSample::point(std::uint64_t i, std::size_t ncol) const {
  SweepPoint p;
  p.numeric.assign(ncol, std::numeric_limits<double>::quiet_NaN());
  p.text.assign(ncol, "");
  const std::size_t d = factors.size();
  for (std::size_t j = 0; j < d; ++j) {
    const double u = unit.at(static_cast<std::size_t>(i) * d + j);
    if (std::isnan(u)) continue;
    const SampledFactor& f = factors[j];
    SampledFactor::Level l = f.value(u);
    p.numeric[f.column] = l.number;
    p.text[f.column] = l.text;
    Override o;
    o.path = f.param;
    o.value = std::move(l.text);
    o.origin = std::move(l.origin);
    o.line = l.line;
    o.column = l.column;
    p.overrides.push_back(std::move(o));
  }
  return p;
}

// ---- the three parts ------------------------------------------------------------------------

std::uint64_t PointSource::size() const { return grid.size() + listed.size() + sample.size(); }

SweepPoint PointSource::point(std::uint64_t i, std::size_t ncol) const {
  const std::uint64_t g = grid.size();
  if (i < g) return grid.point(i, ncol);
  const std::uint64_t l = i - g;
  if (l < listed.size()) return listed[static_cast<std::size_t>(l)];
  return sample.point(l - listed.size(), ncol);
}

std::optional<Override> PointSource::first_setter(std::size_t column, const std::string& param) const {
  for (const auto& f : grid.factors)  // a column is in one grid factor at most (GridDesign::check_swept_once)
    for (const SweepGrid::Cell& c : f.front())
      if (c.column == column) return c.override;
  for (const SweepPoint& p : listed)
    for (const Override& o : p.overrides)
      if (o.path == param) return o;
  for (const SampledFactor& f : sample.factors)
    if (f.column == column) return f.override_at(0.0);
  return std::nullopt;
}

void PointSource::for_each_text(const std::function<void(std::size_t column, const std::string& text)>& f) const {
  for (const auto& factor : grid.factors)
    for (const auto& level : factor)
      for (const SweepGrid::Cell& c : level) f(c.column, c.text);
  for (const SweepPoint& p : listed)
    for (std::size_t k = 0; k < p.text.size(); ++k) f(k, p.text[k]);
  for (const SampledFactor& factor : sample.factors)
    for (const SampledFactor::Level& v : factor.values) f(factor.column, v.text);
}

void PointSource::for_each_setting(
    const std::function<void(const std::vector<const Override*>& overrides, std::uint64_t points)>& f) const {
  std::vector<const Override*> ov;
  for (const auto& factor : grid.factors)
    for (const SweepGrid::Cell& c : factor.front()) ov.push_back(&c.override);
  if (!ov.empty()) f(ov, grid.size());
  for (const SweepPoint& p : listed) {
    ov.clear();
    for (const Override& o : p.overrides) ov.push_back(&o);
    f(ov, 1);
  }
  // A sampled factor sets its parameter at every point whose coordinate is not NaN.
  const std::size_t d = sample.factors.size();
  const std::uint64_t rows = sample.size();
  for (std::size_t j = 0; j < d; ++j) {
    std::uint64_t count = 0;
    double first_u = 0;
    for (std::uint64_t i = 0; i < rows; ++i)
      if (const double u = sample.unit[static_cast<std::size_t>(i) * d + j]; !std::isnan(u) && count++ == 0) first_u = u;
    if (count == 0) continue;
    const Override first = sample.factors[j].override_at(first_u);
    f({&first}, count);
  }
}

void PointSource::for_each_value(const std::function<void(const Override&)>& f, bool with_listed) const {
  for (const auto& factor : grid.factors)
    for (const auto& level : factor)
      for (const SweepGrid::Cell& c : level) f(c.override);
  if (with_listed)
    for (const SweepPoint& p : listed)
      for (const Override& o : p.overrides) f(o);
  const std::size_t d = sample.factors.size();
  const std::uint64_t rows = sample.size();
  for (std::size_t j = 0; j < d; ++j) {
    const SampledFactor& s = sample.factors[j];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::set<double> distinct;  // an integer factor's values; a discrete factor's value indices
    for (std::uint64_t i = 0; i < rows; ++i) {
      const double u = sample.unit[static_cast<std::size_t>(i) * d + j];
      if (std::isnan(u)) continue;
      lo = std::min(lo, u);
      hi = std::max(hi, u);
      if (s.kind == SampledFactor::Kind::kInteger) distinct.insert(s.value(u).number);
      if (s.kind == SampledFactor::Kind::kDiscrete)
        distinct.insert(std::min<double>(static_cast<double>(s.values.size() - 1), std::floor(u * static_cast<double>(s.values.size()))));
    }
    if (lo > hi) continue;  // never set
    if (s.kind == SampledFactor::Kind::kUniform || s.kind == SampledFactor::Kind::kLogUniform) {
      f(s.override_at(lo));
      f(s.override_at(hi));
    } else if (s.kind == SampledFactor::Kind::kInteger) {
      for (const double v : distinct) f(s.override_at((v - s.min + 0.5) / (s.max - s.min + 1)));
    } else {
      for (const double k : distinct) f(s.override_at((k + 0.5) / static_cast<double>(s.values.size())));
    }
  }
}

}  // namespace geopipe::config
