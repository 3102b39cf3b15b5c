// Byte encoding of scenario results and id batches for MPI messages (same binary on every
// rank, so host byte order and layout are fine; a version byte guards against mixing builds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/result.h"

namespace geopipe::sweep {

/// A batch of scenario ids as half-open ranges [first, last).
struct IdRange {
  std::int64_t first = 0, last = 0;
};

void encode_results(const std::vector<ScenarioResult>& results, std::vector<char>& out);
/// Throws std::runtime_error on malformed input.
void decode_results(const char* data, std::size_t size, std::vector<ScenarioResult>& out);

void encode_ranges(const std::vector<IdRange>& ranges, std::vector<char>& out);
void decode_ranges(const char* data, std::size_t size, std::vector<IdRange>& out);

}  // namespace geopipe::sweep
