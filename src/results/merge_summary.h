// What joining result files did (geopipe merge): shared by the format-neutral output layer
// (results/output.h) and the HDF5 store (results/hdf5/store.h).
#pragma once

#include <cstdint>

namespace geopipe::sweep {

/// What a merge did (merge_stores, results/hdf5/store.h).
struct MergeSummary {
  std::uint64_t inputs = 0;
  std::uint64_t sweeps = 0;      ///< distinct sweep_hash values among the inputs
  std::uint64_t scenarios = 0;   ///< scenarios of the output
  std::uint64_t duplicates = 0;  ///< scenarios found in more than one input (kept once)
  std::uint64_t repeats = 0;     ///< collections: extra rows of one scenario within one input (a design that holds a point twice)
  std::uint64_t checked = 0;     ///< scenarios with a result in several inputs (all agreed); collections
  bool collection = false;       ///< the inputs were of different sweeps
};

}  // namespace geopipe::sweep
