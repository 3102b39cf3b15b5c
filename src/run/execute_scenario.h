// Running one scenario of a sweep by its id: the fault injections of the tests, then the
// sweep's PointEvaluator (run/evaluator.h), a failure caught into the result. No MPI, no HDF5
// here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "plan/plan.h"
#include "results/result.h"
#include "run/evaluator.h"
#include "sim/scheduler_api.h"

namespace geopipe::sweep {

/// Runs scenario `id` of `plan` with `evaluator`. Never throws for a failing scenario: the
/// exception's message becomes ScenarioResult::error (ok = false). Thread-safe. With
/// `opt.null_scenarios` nothing is evaluated (zero metrics, ok). Fault injection for the tests
/// (unset in normal use): the ids listed in GEOPIPE_FAIL_IDS ("3,17") fail.
ScenarioResult execute_scenario(const PointEvaluator& evaluator, const Plan& plan, std::int64_t id,
                                const ExecuteOptions& opt);

}  // namespace geopipe::sweep
