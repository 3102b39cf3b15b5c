// Scenario ids of a sweep (docs/sweep-runner.md, "Scenarios and seeds"). A scenario is
// (point, seed, scheduler); its id is
//   id = (point · n_seeds + seed_index) · n_schedulers + scheduler_index
// so ids are stable for a given sweep file, dense in [0, n), and all schedulers of one
// (point, seed) pair are adjacent. Shards split by (point, seed) pair so that paired
// comparisons never straddle shards. Nothing here allocates per scenario.
#pragma once

#include <cstdint>

namespace geopipe::sweep {

struct ScenarioKey {
  std::uint64_t point = 0;
  std::uint64_t seed_index = 0;
  std::uint64_t scheduler_index = 0;
};

class Plan {
 public:
  Plan(std::uint64_t points, std::uint64_t seeds, std::uint64_t schedulers, std::uint64_t shard = 0,
       std::uint64_t shards = 1)
      : points_(points), seeds_(seeds), scheds_(schedulers), shard_(shard), shards_(shards) {}

  std::uint64_t total() const { return points_ * seeds_ * scheds_; }
  ScenarioKey key(std::uint64_t id) const {
    ScenarioKey k;
    k.scheduler_index = id % scheds_;
    const std::uint64_t pair = id / scheds_;
    k.seed_index = pair % seeds_;
    k.point = pair / seeds_;
    return k;
  }
  std::uint64_t id(const ScenarioKey& k) const { return (k.point * seeds_ + k.seed_index) * scheds_ + k.scheduler_index; }
  /// Is this id in our shard? (pair index modulo the shard count)
  bool in_shard(std::uint64_t id) const { return shards_ <= 1 || (id / scheds_) % shards_ == shard_; }
  /// Number of ids in our shard.
  std::uint64_t shard_total() const {
    if (shards_ <= 1) return total();
    const std::uint64_t pairs = points_ * seeds_;
    const std::uint64_t mine = pairs / shards_ + (shard_ < pairs % shards_ ? 1 : 0);
    return mine * scheds_;
  }
  std::uint64_t shard() const { return shard_; }
  std::uint64_t shards() const { return shards_; }
  std::uint64_t schedulers() const { return scheds_; }
  std::uint64_t seeds() const { return seeds_; }
  std::uint64_t points() const { return points_; }

 private:
  std::uint64_t points_, seeds_, scheds_, shard_, shards_;
};

}  // namespace geopipe::sweep
