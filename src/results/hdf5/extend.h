// Growing a result file with a changed sweep (ResultStore::extend, results/hdf5/store.h): which of
// its results the new sweep contains, by content key (sweepfile/scenario_key.h), and copying them
// under their new ids. Internal to src/results/hdf5: only the store's own files include it.
//
// Owns: reading a file's keys and the id remapping of its rows. The caller owns the lock, the
// new file (its /scenarios), the file of retired rows and the tmp+rename around them.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sweepfile/scenario_key.h"
#include "results/hdf5/file.h"

namespace geopipe::sweep::h5 {

struct ContentKeyHash {
  std::size_t operator()(const config::ContentKey& k) const { return static_cast<std::size_t>(k.hi ^ (k.lo * 31)); }
};

/// The content key of every scenario of `in` that has a result (a /metrics or /errors row),
/// mapped to its id; of equal keys, the lowest id, and each other id with its lowest id in
/// `duplicates` (when given). `in` must be of format 3 or later.
std::unordered_map<config::ContentKey, std::int64_t, ContentKeyHash> result_keys(
    const Input& in, std::vector<std::pair<std::int64_t, std::int64_t>>* duplicates = nullptr);

/// (old id, new id) pairs, sorted: the result of scenario `old id` of the file is the result
/// of scenario `new id` of the new sweep (one old id may serve several new ids).
using IdPairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Appends to `w` every valid /metrics, /errors and /jobs row of `in` whose id is an old id of
/// `pairs`, once per new id, with the new id. Reads block by block; memory does not grow with
/// the tables. Returns the number of /metrics + /errors rows written.
std::uint64_t copy_remapped(const Input& in, Writer& w, const IdPairs& pairs, const std::string& shown);

}  // namespace geopipe::sweep::h5
