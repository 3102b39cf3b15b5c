// Stop requests of a sweep: SIGTERM, SIGUSR1 (Slurm's warning before the time limit) and
// SIGINT set a flag that every part of the runner polls; the run then stops dispatching,
// collects what is in flight and leaves a resumable output (exit code 75). Internal to
// src/run.
#pragma once

namespace geopipe::sweep {

/// Installs the handlers (idempotent). Call before anything slow (MPI_Init can take a second).
void install_stop_handlers();
/// A stop was requested (by a signal or by request_stop).
bool stop_requested();
/// The signal number that asked to stop, 0 if none.
int stop_signal();
/// Asks to stop as if `signal_number` had arrived (e.g. a worker reported it was signalled).
void request_stop(int signal_number);

}  // namespace geopipe::sweep
