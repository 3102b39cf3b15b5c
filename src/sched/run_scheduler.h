// The scheduler of a preset as `geopipe run` and a sweep's simulations make it, with the one
// fault injection of the tests of failed runs. Plain C++ (the CLI front end links it without
// MPI or HDF5).
#pragma once

#include <memory>
#include <string>

#include "sched/registry.h"
#include "sim/scheduler_api.h"

namespace geopipe {

/// make_scheduler(preset, params), except that the presets named in the environment variable
/// GEOPIPE_STRAND_PRESETS ("a,b", for the tests of failed runs; unset in normal use) become a
/// scheduler of that name that never starts a job, so that their runs fail as a stranding
/// scheduler's would (sim/engine.h SimulationFailure). Throws as make_scheduler does.
std::unique_ptr<Scheduler> make_run_scheduler(const std::string& preset, const SchedulerParams& params);

}  // namespace geopipe
