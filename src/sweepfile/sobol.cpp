// The Sobol' (Saltelli) design of a sweep file (sweepfile/design.h; its section "Sobol' indices"
// of docs/sweep-format.md): the points from which `geopipe analyze sobol` estimates first-order,
// total and second-order Sobol' indices (Saltelli 2002, 2010), in the order of SALib's
// saltelli.sample, so a file can be checked against SALib.
//
//   [sweep]
//   design = "sobol"
//   [sobol]
//   samples = 1024        # N, a power of two >= 2
//   second_order = true   # optional (default true): N (2D + 2) points, else N (D + 2)
//   seed = 1              # optional (default 1): the randomisation of the sequence
//   [[factor]] ...        # as for "lhs"
//
// The points are analysis/saltelli_sample.h's (a digitally shifted Sobol' sequence in 2D
// dimensions, A = its first D coordinates, B = the last D), in the layout of
// analysis/saltelli_layout.h: with k = 2D + 2 (D + 2 without second order) points per sample,
// point p = i k + b of sample i is: b = 0: A_i; b = 1..D: AB_j (A_i with column j = b - 1 from
// B_i); b = D+1..2D: BA_j (B_i with column j = b - D - 1 from A_i), only with second order;
// b = k - 1: B_i.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/saltelli_layout.h"
#include "analysis/saltelli_sample.h"
#include "sweepfile/design.h"
#include "sweepfile/factors.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxSobolSamples = std::uint64_t{1} << 24;
constexpr std::size_t kMaxFactors = analysis::kMaxSaltelliFactors;

class SobolDesign final : public FactorDesign {
 public:
  SobolDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return layout().points(samples_); }
  void materialise(SweepSpec& spec) const override;

 private:
  std::uint64_t samples_ = 0;
  bool second_order_ = true;
  std::uint64_t seed_ = 1;

  analysis::SaltelliLayout layout() const { return {factors_.size(), second_order_}; }
};

SobolDesign::SobolDesign(const SweepFile& file, const toml::table& root) : FactorDesign(file) {
  auto read = [&](const toml::table& t) {
    samples_ = count_key(file_, t, "samples", "sobol", 2, kMaxSobolSamples, "the number of base samples N, a power of two");
    if (!std::has_single_bit(samples_))
      file_.fail(*t.get("samples"), "sobol.samples must be a power of two (got " + std::to_string(samples_) + "; the nearest are " +
                                        std::to_string(std::bit_floor(samples_)) + " and " +
                                        std::to_string(std::bit_ceil(samples_)) +
                                        "): Sobol' points are balanced only in blocks of 2^k");
    second_order_ = bool_key(file_, t, "second_order", "sobol", true);
    seed_ = seed_key(file_, t, "sobol");
  };
  factors_ = parse_factor_design(file_, root, "sobol", {"samples", "second_order", "seed"},
                                 "a [sobol] table (expected samples = N, a power of two, and [[factor]] entries)", read);
  if (factors_.size() > kMaxFactors)
    file_.fail(factors_[kMaxFactors].pos, "design 'sobol' takes at most " + std::to_string(kMaxFactors) +
                                              " factors (Sobol' direction numbers exist for 2 x that many dimensions)");
}

void SobolDesign::materialise(SweepSpec& spec) const {
  add_unit_points(spec, file_, factors_, analysis::saltelli_sample(samples_, factors_.size(), second_order_, seed_));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_sobol_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<SobolDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
