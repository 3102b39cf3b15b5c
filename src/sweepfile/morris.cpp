// The Morris design of a sweep file (sweepfile/design.h; its section "Morris screening" of
// docs/sweep-format.md): r trajectories on a p-level grid of the unit hypercube, each of D + 1
// points where every step moves one factor by Delta = p / (2 (p - 1)), every factor exactly once
// (Morris 1991). `geopipe analyze morris` turns the steps into elementary effects.
//
//   [sweep]
//   design = "morris"
//   [morris]
//   trajectories = 20     # r >= 2
//   levels = 4            # optional (default 4): p, even, >= 2
//   seed = 1              # optional (default 1)
//   [[factor]] ...        # as for "lhs"
//
// The trajectories are analysis/morris_trajectories.h's (trajectory t from its own stream
// derive_seed(seed, "morris trajectory t"), so adding trajectories keeps the earlier ones);
// point p = t (D + 1) + s is step s of trajectory t.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/morris_trajectories.h"
#include "sweepfile/design.h"
#include "sweepfile/factors.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxTrajectories = 1'000'000;
constexpr std::uint64_t kMaxMorrisLevels = 1'000'000;

class MorrisDesign final : public FactorDesign {
 public:
  MorrisDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return trajectories_ * (factors_.size() + 1); }
  void materialise(SweepSpec& spec) const override;

 private:
  std::uint64_t trajectories_ = 0;
  std::uint64_t levels_ = 4;
  std::uint64_t seed_ = 1;
};

MorrisDesign::MorrisDesign(const SweepFile& file, const toml::table& root) : FactorDesign(file) {
  auto read = [&](const toml::table& t) {
    trajectories_ = count_key(file_, t, "trajectories", "morris", 2, kMaxTrajectories, "the number of trajectories r, at least 2");
    if (t.get("levels")) {
      levels_ = count_key(file_, t, "levels", "morris", 2, kMaxMorrisLevels, "the grid levels p, even");
      if (levels_ % 2 != 0)
        file_.fail(*t.get("levels"), "morris.levels must be even (got " + std::to_string(levels_) +
                                         "): the step Delta = p / (2 (p - 1)) lands on the grid only for even p");
    }
    seed_ = seed_key(file_, t, "morris");
  };
  factors_ = parse_factor_design(file_, root, "morris", {"trajectories", "levels", "seed"},
                                 "a [morris] table (expected trajectories = r and [[factor]] entries)", read);
}

void MorrisDesign::materialise(SweepSpec& spec) const {
  add_unit_points(spec, file_, factors_, analysis::morris_trajectories(trajectories_, factors_.size(), levels_, seed_));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_morris_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<MorrisDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
