// The points of a sweep (sweepfile/point_source.h): the grid's product, the sampled factors'
// values, the three parts in point order.
#include "sweepfile/point_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

}  // namespace geopipe::config
