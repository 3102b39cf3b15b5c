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
// The base sample is the first N points of Sobol's sequence in 2D dimensions (the origin first) (Boost.Random's
// sobol engine, Joe & Kuo direction numbers), randomised by a digital shift: coordinate d of
// every point is XORed with one 64-bit word drawn for d from the sweep's seed, which keeps the
// sequence's stratification (every dyadic box holds the same number of points) and makes the
// estimate unbiased. A = its first D coordinates, B = the last D. With k = 2D + 2 (D + 2
// without second order) points per sample, point p = i k + b of sample i is: b = 0: A_i;
// b = 1..D: AB_j (A_i with column j = b - 1 from B_i); b = D+1..2D: BA_j (B_i with column
// j = b - D - 1 from A_i), only with second order; b = k - 1: B_i.
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <boost/random/sobol.hpp>

#include "sweepfile/design.h"
#include "sweepfile/factors.h"
#include "model/rng.h"

namespace geopipe::config::sweep_internal {
namespace {

constexpr std::uint64_t kMaxSamples = std::uint64_t{1} << 24;
/// Boost's direction-number table covers 3667 dimensions; the design uses 2D.
constexpr std::size_t kMaxFactors = 1833;

class SobolDesign final : public FactorDesign {
 public:
  SobolDesign(const SweepFile& file, const toml::table& root);

  std::uint64_t num_points() const override { return samples_ * per_sample(); }
  void materialise(SweepSpec& spec) const override;

 private:
  std::uint64_t samples_ = 0;
  bool second_order_ = true;
  std::uint64_t seed_ = 1;

  std::uint64_t per_sample() const { return (second_order_ ? 2 : 1) * factors_.size() + 2; }
};

SobolDesign::SobolDesign(const SweepFile& file, const toml::table& root) : FactorDesign(file) {
  const toml::node* n = root.get("sobol");
  if (!n) file_.fail(Pos{1, 1}, "design 'sobol' needs a [sobol] table (expected samples = N, a power of two, and [[factor]] entries)");
  const toml::table* t = n->as_table();
  if (!t) file_.fail(*n, "sobol: expected a table, got " + type_of(*n));
  file_.check_keys(*t, {"samples", "second_order", "seed"}, "in [sobol]");
  samples_ = count_key(file_, *t, "samples", "sobol", 2, kMaxSamples, "the number of base samples N, a power of two");
  if (!std::has_single_bit(samples_))
    file_.fail(*t->get("samples"), "sobol.samples must be a power of two (got " + std::to_string(samples_) + "; the nearest are " +
                                       std::to_string(std::bit_floor(samples_)) + " and " +
                                       std::to_string(std::bit_ceil(samples_)) +
                                       "): Sobol' points are balanced only in blocks of 2^k");
  second_order_ = bool_key(file_, *t, "second_order", "sobol", true);
  if (t->get("seed")) seed_ = count_key(file_, *t, "seed", "sobol", 0, std::numeric_limits<std::int64_t>::max(), "a seed");
  factors_ = parse_factors(file_, root, "sobol", pos_of(*t));
  if (factors_.size() > kMaxFactors)
    file_.fail(factors_[kMaxFactors].pos, "design 'sobol' takes at most " + std::to_string(kMaxFactors) +
                                              " factors (Sobol' direction numbers exist for 2 x that many dimensions)");
}

void SobolDesign::materialise(SweepSpec& spec) const {
  const std::size_t d = factors_.size();
  const std::size_t dims = 2 * d;
  const auto n = static_cast<std::size_t>(samples_);
  const std::size_t k = static_cast<std::size_t>(per_sample());
  // The randomised base sample: n points of 2d coordinates in [0, 1).
  Rng rng(derive_seed(seed_, "sobol digital shift"));
  std::vector<std::uint64_t> shift(dims);
  for (auto& s : shift) s = rng.next_u64();
  // Boost's engine starts after the origin (it yields points 1, 2, ... of the Gray-code order);
  // the balanced first 2^m points are the origin and the next 2^m - 1.
  boost::random::sobol engine(dims);
  std::vector<double> base(n * dims);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < dims; ++c) {
      const std::uint64_t x = i == 0 ? 0 : static_cast<std::uint64_t>(engine());
      base[i * dims + c] = static_cast<double>((x ^ shift[c]) >> 11) * 0x1.0p-53;
    }
  std::vector<double> unit(n * k * d);
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = &base[i * dims];
    const double* b = a + d;
    double* row = &unit[i * k * d];
    auto put = [&](std::size_t block, const double* from, const double* other, std::size_t swapped) {
      for (std::size_t j = 0; j < d; ++j) row[block * d + j] = j == swapped ? other[j] : from[j];
    };
    put(0, a, b, d);  // A_i (no column swapped)
    for (std::size_t j = 0; j < d; ++j) put(1 + j, a, b, j);
    if (second_order_)
      for (std::size_t j = 0; j < d; ++j) put(1 + d + j, b, a, j);
    put(k - 1, b, a, d);  // B_i
  }
  add_unit_points(spec, file_, factors_, std::move(unit));
}

}  // namespace

std::unique_ptr<SweepDesign> parse_sobol_design(const SweepFile& file, const toml::table& root) {
  return std::make_unique<SobolDesign>(file, root);
}

}  // namespace geopipe::config::sweep_internal
