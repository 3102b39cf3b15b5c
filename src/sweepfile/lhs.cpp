// The Latin hypercube design of a sweep file (sweepfile/design.h; docs/sweep-format.md,
// "Sampling designs"): N points over [[factor]] entries, each factor's range cut into N equal
// strata of probability with exactly one point in each, the strata paired across factors at
// random (analysis/latin_hypercube.h). Deterministic: the points depend only on the sweep file
// ([lhs] seed).
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
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/latin_hypercube.h"
#include "sweepfile/design.h"
#include "sweepfile/factors.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxLhsSamples = 10'000'000;

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
  auto read = [&](const toml::table& t) {
    samples_ = count_key(file_, t, "samples", "lhs", 1, kMaxLhsSamples, "the number of points, at least 1");
    seed_ = seed_key(file_, t, "lhs");
  };
  factors_ = parse_factor_design(file_, root, "lhs", {"samples", "seed"},
                                 "an [lhs] table (expected samples = N and [[factor]] entries)", read);
}

void LhsDesign::materialise(SweepSpec& spec) const {
  add_unit_points(spec, file_, factors_, analysis::latin_hypercube(samples_, factors_.size(), seed_));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_lhs_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<LhsDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
