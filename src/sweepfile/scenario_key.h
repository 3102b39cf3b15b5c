// Content keys of scenarios: what identifies a scenario's result, independently of where it
// sits in a sweep (docs/hdf5-format.md, "Scenario keys").
//
// A point's content is its resolved scenario document in canonical form: every leaf of the
// scenario schema (config/schema.h) of the base after the fixed overrides and the point's own,
// with every default filled in (except the defaults of parameters added after format 4,
// schema::Field::keyed_only_when_set, which are left out so that adding them keeps every key), as
// `path = value` entries — paths with array entries by index
// ("cluster.region[0].gpus"), numbers by the value they denote (shortest round-trip text of
// the double for a float key, so `2`, `2.0` and `2e0` are one value), strings quoted, arrays
// element by element, and `workload.trace` replaced by the size and FNV-1a 64 digest of the
// file's bytes (the path itself does not matter, its content does). Formatting, comments, key
// order, the order of axes and the way an override spells its path do not change it; any
// value does. Its digest is order-independent: the sum, in two 64-bit lanes, of a hash of each
// entry, so a point's digest is the base's plus the difference of the entries it overrides
// (cheap for millions of points).
//
// A scenario's key adds the seed, the scheduler preset and the model version (sim/
// model_version.h) to its point's digest: 128 bits, shown as 32 hex digits.
//
// Owns: the canonical form and both digests. Uses toml++ internally (not in this header).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/scenario_loader.h"

namespace geopipe::config {

/// An order-independent digest of a set of canonical entries (two lanes, sums mod 2^64).
struct ContentDigest {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  bool operator==(const ContentDigest&) const = default;
  std::string hex() const;  ///< 32 lower-case hex digits, lane a first
};

/// A scenario's 128-bit key.
struct ContentKey {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  bool operator==(const ContentKey&) const = default;
  auto operator<=>(const ContentKey&) const = default;
  std::string hex() const;  ///< 32 lower-case hex digits, hi first
  /// The key whose hex() is `text`; nullopt unless it is 32 lower-case hex digits.
  static std::optional<ContentKey> from_hex(std::string_view text);
};

/// The key of scenario (point digest, seed, scheduler preset) under `model_version`.
ContentKey scenario_key(const ContentDigest& point, std::uint64_t seed, const std::string& scheduler,
                        int model_version);

/// scenario_key() for the many scenarios of one point: the point's part of the text is hashed
/// once (a sweep writes millions of keys). key(seed, s) == scenario_key(point, seed, s, mv).
class PointKeyPrefix {
 public:
  PointKeyPrefix(const ContentDigest& point, int model_version);
  ContentKey key(std::uint64_t seed, std::string_view scheduler) const;

 private:
  std::uint64_t a_ = 0, b_ = 0;  ///< FNV-1a states of both lanes after the point's part
};

/// Digests of the points of one base scenario. Not thread-safe (it caches).
class PointKeyer {
 public:
  /// The base scenario's text and path (relative traces resolve against its directory), and the
  /// overrides applied to every point first (a sweep's SweepSpec::fixed). Throws InputError as
  /// the scenario loader does for a path that names no parameter.
  PointKeyer(const std::string& base_text, const std::string& base_path, const std::vector<Override>& fixed);
  ~PointKeyer();
  PointKeyer(const PointKeyer&) = delete;
  PointKeyer& operator=(const PointKeyer&) = delete;

  /// The digest of the base with `overrides` applied after the fixed ones.
  ContentDigest digest(const std::vector<Override>& overrides);
  /// The canonical form itself, "path = value" per entry, sorted by path (for tests and docs).
  std::vector<std::string> canonical(const std::vector<Override>& overrides);

  /// One entry of the canonical form of base + fixed overrides.
  struct Entry {
    std::string path;   ///< canonical path ("cluster.region[0].gpus")
    std::string value;  ///< canonical value (see the file comment)
    std::string text;   ///< the value as TOML text (a default: its documented text), e.g. the trace's path
  };
  /// Every entry of base + fixed, sorted by path.
  std::vector<Entry> fixed_entries() const;
  /// The canonical path of the parameter that `o` sets.
  std::string canonical_path(const Override& o);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace geopipe::config
