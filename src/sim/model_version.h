// The version of the simulator's results. Bump it in the same commit as any change that alters
// a result of the same input (a formula, a tie-break, a default, a built-in model or GPU, a
// scheduler's decision), and add a line to the table in docs/model.md, "Model versions". It is part of every
// scenario's content key (sweepfile/scenario_key.h): a result file of an older model is never
// reused or merged with one of this model silently.
#pragma once

namespace geopipe {

inline constexpr int kModelVersion = 5;

}  // namespace geopipe
