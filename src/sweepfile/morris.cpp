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
// Trajectory t (its own stream derive_seed(seed, "morris trajectory t"), so adding
// trajectories keeps the earlier ones): a start x* with each coordinate drawn from the lower
// levels {0, 1/(p-1), ..., 1 - Delta}, a direction per factor (up from x*, or down from
// x* + Delta) and a random order of the factors; step s moves the s-th factor of that order.
// Point p = t (D + 1) + s.
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

constexpr std::uint64_t kMaxTrajectories = 1'000'000;
constexpr std::uint64_t kMaxLevels = 1'000'000;

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
  const toml::node* n = root.get("morris");
  if (!n) file_.fail(Pos{1, 1}, "design 'morris' needs a [morris] table (expected trajectories = r and [[factor]] entries)");
  const toml::table* t = n->as_table();
  if (!t) file_.fail(*n, "morris: expected a table, got " + type_of(*n));
  file_.check_keys(*t, {"trajectories", "levels", "seed"}, "in [morris]");
  trajectories_ = count_key(file_, *t, "trajectories", "morris", 2, kMaxTrajectories, "the number of trajectories r, at least 2");
  if (t->get("levels")) {
    levels_ = count_key(file_, *t, "levels", "morris", 2, kMaxLevels, "the grid levels p, even");
    if (levels_ % 2 != 0)
      file_.fail(*t->get("levels"), "morris.levels must be even (got " + std::to_string(levels_) +
                                        "): the step Delta = p / (2 (p - 1)) lands on the grid only for even p");
  }
  if (t->get("seed")) seed_ = count_key(file_, *t, "seed", "morris", 0, std::numeric_limits<std::int64_t>::max(), "a seed");
  factors_ = parse_factors(file_, root, "morris", pos_of(*t));
}

void MorrisDesign::materialise(SweepSpec& spec) const {
  const std::size_t d = factors_.size();
  const double step = 1.0 / static_cast<double>(levels_ - 1);  // grid spacing
  const std::uint64_t jump = levels_ / 2;                       // Delta in grid steps
  std::vector<double> unit;
  unit.reserve(static_cast<std::size_t>(trajectories_) * (d + 1) * d);
  std::vector<std::uint64_t> level(d);
  std::vector<bool> down(d);
  std::vector<std::size_t> order(d);
  for (std::uint64_t t = 0; t < trajectories_; ++t) {
    Rng rng(derive_seed(seed_, "morris trajectory " + std::to_string(t)));
    for (std::size_t j = 0; j < d; ++j) {
      level[j] = rng.below(levels_ - jump);  // x*: one of the lower p/2 levels
      down[j] = rng.below(2) == 1;           // going down from x* + Delta
      if (down[j]) level[j] += jump;
    }
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = d; i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(rng.below(i))]);
    for (std::size_t s = 0; s <= d; ++s) {
      if (s > 0) {
        const std::size_t j = order[s - 1];
        level[j] = down[j] ? level[j] - jump : level[j] + jump;
      }
      for (std::size_t j = 0; j < d; ++j) unit.push_back(static_cast<double>(level[j]) * step);
    }
  }
  add_unit_points(spec, file_, factors_, std::move(unit));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_morris_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<MorrisDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
