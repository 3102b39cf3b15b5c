// Deterministic random numbers, identical on every platform and standard library.
//
// geopipe never uses <random> distributions (their output differs between libstdc++,
// libc++ and MSVC). The generator is xoshiro256** seeded through SplitMix64; the
// distributions below are written out here so a seed means the same trace everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "util/hash.h"

namespace geopipe {

/// SplitMix64 step: used for seeding and for deriving independent stream seeds.
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// FNV-1a of a label: lets streams be named ("workload", "view-noise") instead of numbered.
constexpr std::uint64_t hash_label(std::string_view label) { return util::fnv1a64(label); }

/// Seed of an independent stream derived from a parent seed and a label.
constexpr std::uint64_t derive_seed(std::uint64_t parent, std::string_view label) {
  std::uint64_t s = parent ^ hash_label(label);
  splitmix64(s);
  return splitmix64(s);
}

/// Seed of the `index`-th stream of a family derived from a parent seed (one stream per
/// measurement, say), independent of how many of the family's other streams are used.
constexpr std::uint64_t derive_stream_seed(std::uint64_t parent, std::uint64_t index) {
  std::uint64_t s = parent ^ (index * 0xD1B54A32D192ED03ULL);
  splitmix64(s);
  return splitmix64(s);
}

/// xoshiro256** 1.0 (Blackman & Vigna). Not thread-safe: one instance per consumer.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& w : s_) w = splitmix64(s);
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  /// Uniform in (0, 1]: safe for log().
  double uniform_pos() { return 1.0 - uniform(); }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method).
  std::uint64_t below(std::uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(next_u64()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  /// Exponential with the given rate (mean 1/rate).
  double exponential(double rate) { return -std::log(uniform_pos()) / rate; }
  /// Standard normal (Box–Muller, one value per call; the pair's second value is discarded
  /// so the stream position does not depend on call history).
  double normal() {
    const double u1 = uniform_pos();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  /// Bounded Pareto on [lo, hi] with shape alpha > 0 (inverse-CDF sampling).
  double bounded_pareto(double alpha, double lo, double hi) {
    const double u = uniform();
    const double la = std::pow(lo, alpha);
    const double ha = std::pow(hi, alpha);
    return std::pow(-(u * ha - u * la - ha) / (ha * la), -1.0 / alpha);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace geopipe
