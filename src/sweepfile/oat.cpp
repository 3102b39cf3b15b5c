// The one-at-a-time design of a sweep file (sweepfile/design.h; docs/sweep-format.md,
// "Sampling designs"), as Dakota's centered parameter study: the base scenario, then for each
// [[factor]] in order its levels with every other parameter at the base's value.
//
//   [sweep]
//   design = "oat"
//   [oat]
//   levels = 5            # optional (default 5): values of a min/max factor, >= 2
//   [[factor]]            # as for "lhs"
//   param = "network.bandwidth_scale"
//   kind = "log-uniform"
//   min = 0.25
//   max = 4.0
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/one_at_a_time.h"
#include "sweepfile/design.h"
#include "sweepfile/factors.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxOatLevels = 1'000'000;

class OatDesign final : public FactorDesign {
 public:
  OatDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override;
  void materialise(SweepSpec& spec) const override;

 private:
  std::uint64_t levels_ = 5;

  /// The unit coordinates of factor `f`'s levels: k / (levels - 1) for a min/max factor (an
  /// integer factor's repeated values once), (k + 0.5) / count for a discrete one.
  std::vector<double> levels_of(const Factor& f) const;
};

OatDesign::OatDesign(const SweepFile& file, const toml::table& root) : FactorDesign(file) {
  factors_ = parse_factor_design(file_, root, "oat", {"levels"}, "", [&](const toml::table& t) {  // [oat] is optional
    if (t.get("levels")) levels_ = count_key(file_, t, "levels", "oat", 2, kMaxOatLevels, "the values per factor, at least 2");
  });
}

std::vector<double> OatDesign::levels_of(const Factor& f) const {
  if (f.kind == FactorKind::kDiscrete) return analysis::oat_value_levels(f.values.size());
  std::vector<double> u;
  double last = std::numeric_limits<double>::quiet_NaN();
  for (const double x : analysis::oat_grid_levels(levels_)) {
    const double v = factor_value(f, x).number;
    if (f.kind == FactorKind::kInteger && v == last) continue;  // an integer range shorter than the levels
    last = v;
    u.push_back(x);
  }
  return u;
}

std::uint64_t OatDesign::num_points() const {
  std::uint64_t n = 1;
  for (const Factor& f : factors_) n += levels_of(f).size();
  return n;
}

void OatDesign::materialise(SweepSpec& spec) const {
  // Point 0: the base (every factor at the base's value: NaN in /design); then each factor's
  // levels with the others unset (analysis/one_at_a_time.h).
  std::vector<std::vector<double>> levels;
  for (const Factor& f : factors_) levels.push_back(levels_of(f));
  add_unit_points(spec, file_, factors_, analysis::oat_points(levels));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_oat_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<OatDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
