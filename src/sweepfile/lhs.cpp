// The Latin hypercube design of a sweep file (sweepfile/design.h; docs/sweep-format.md,
// "Sampling designs"): N points over [[factor]] entries, each factor's range cut into N equal
// strata of probability with exactly one point in each, the strata paired across factors at
// random. Deterministic: the points depend only on the sweep file ([lhs] seed).
//
//   [sweep]
//   design = "lhs"
//   [lhs]
//   samples = 64          # N >= 1
//   seed = 1              # optional (default 1)
//   [[factor]]
//   param = "network.bandwidth_scale"
//   kind = "log-uniform"  # "uniform" (default), "log-uniform", "integer", "discrete"
//   min = 0.25
//   max = 4.0             # "discrete": values = [...] instead of min/max
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "sweepfile/design.h"
#include "sweepfile/factors.h"
#include "model/rng.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxSamples = 10'000'000;

class LhsDesign final : public FactorDesign {
 public:
  LhsDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return samples_; }
  void materialise(SweepSpec& spec) const override;

 private:
  std::uint64_t samples_ = 0;
  std::uint64_t seed_ = 1;
};

LhsDesign::LhsDesign(const SweepFile& file, const toml::table& root) : FactorDesign(file) {
  const toml::node* lhs = root.get("lhs");
  if (!lhs) file_.fail(Pos{1, 1}, "design 'lhs' needs an [lhs] table (expected samples = N and [[factor]] entries)");
  const toml::table* t = lhs->as_table();
  if (!t) file_.fail(*lhs, "lhs: expected a table, got " + type_of(*lhs));
  file_.check_keys(*t, {"samples", "seed"}, "in [lhs]");
  samples_ = count_key(file_, *t, "samples", "lhs", 1, kMaxSamples, "the number of points, at least 1");
  if (t->get("seed")) seed_ = count_key(file_, *t, "seed", "lhs", 0, std::numeric_limits<std::int64_t>::max(), "a seed");
  factors_ = parse_factors(file_, root, "lhs", pos_of(*t));
}

void LhsDesign::materialise(SweepSpec& spec) const {
  const std::size_t nf = factors_.size();
  const auto n = static_cast<std::size_t>(samples_);
  // Unit coordinates: factor j of point i lies in stratum perm_j[i] of [0, 1), at a uniform
  // position inside it. One stream per factor, so adding a factor does not move the others.
  std::vector<double> unit(n * nf);
  std::vector<std::size_t> perm(n);
  for (std::size_t j = 0; j < nf; ++j) {
    Rng rng(derive_seed(seed_, "lhs factor " + std::to_string(j)));
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[static_cast<std::size_t>(rng.below(i))]);
    for (std::size_t i = 0; i < n; ++i) unit[i * nf + j] = (static_cast<double>(perm[i]) + rng.uniform()) / static_cast<double>(n);
  }
  add_unit_points(spec, file_, factors_, std::move(unit));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_lhs_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<LhsDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
