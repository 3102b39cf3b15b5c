// Messages between the master (rank 0) and the workers of an MPI sweep. Payloads are encoded
// by run/serialize.h. Internal to src/run.
//
//   worker -> master  kTagResults       results of the last batch (empty at first) = "give me more"
//   master -> worker  kTagBatch         id ranges to run
//   master -> worker  kTagStop          no more work: leave
//   worker -> master  kTagResultsFinal  results, and "I am leaving" (the worker was signalled)
#pragma once

namespace geopipe::sweep {

inline constexpr int kTagResults = 1;
inline constexpr int kTagBatch = 2;
inline constexpr int kTagStop = 3;
inline constexpr int kTagResultsFinal = 4;

}  // namespace geopipe::sweep
