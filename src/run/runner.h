// `geopipe sweep`: expand a sweep file and run its scenarios standalone (oneTBB threads) or
// under mpirun/srun (rank 0 = dispatcher + writer + local worker; other ranks = workers), with
// results streamed into one HDF5 file (results/hdf5/store.h), resume, signals and progress.
//
// Dispatch: dynamic self-scheduling. Every worker (and rank 0's own local executor) asks for a
// batch when idle; batches are id ranges sized so that one batch takes ~0.25 s of its threads
// (from a running mean of scenario run times), and at most 1/(2·workers) of what is left, so the
// tail stays balanced. Scenario results do not depend on which rank or thread ran them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/scenario_loader.h"

namespace geopipe::sweep {

struct SweepOptions {
  std::string sweep_file;
  /// A sweep generated from the command line (geopipe sweep --base ... --axis ...): its text,
  /// loaded from memory and validated with everything else before anything is written, then
  /// written to `sweep_file` (OUT.sweep.toml) when the run starts, atomically, in the same step
  /// that opens the output. Empty for a sweep file.
  std::string generated_text;
  /// With generated_text: what to name in errors found in it ("--base/--axis"; the user never
  /// saw the file), and whether to write it (false for a --dry-run without -o).
  std::string generated_origin;
  bool write_generated = false;
  std::string output;                       ///< -o OUT.h5
  std::vector<config::Override> sets;       ///< --set (apply to every point; part of the hash)
  int threads = 0;                          ///< oneTBB threads per rank; 0 = all hardware threads
  bool resume = false;                      ///< continue OUT.h5 if it exists (else start it)
  bool force = false;                       ///< overwrite OUT.h5; with --resume: accept a changed sweep
  bool save_jobs = false;                   ///< write /jobs (implies check_all_points: exact /jobs text widths)
  bool check_all_points = false;            ///< build every point's scenario at load time, whatever the sweep's size
  bool durable = false;                     ///< fsync the output after every flush (--durable)
  bool dry_run = false;                     ///< print the scenario count and first points, run nothing
  bool quiet = false;                       ///< no progress output
  bool null_scenarios = false;              ///< benchmark only: scenarios return zero metrics at once
  std::uint64_t shard = 0, shards = 1;      ///< --shard K/N
  double progress_interval_s = 10.0;        ///< plain progress line period when stderr is not a TTY
  double flush_interval_s = 2.0;            ///< HDF5 flush period (rows lost on kill -9 <= this much work)
  int mpi = -1;                             ///< -1: use MPI when launched by mpirun/srun; 0: never; 1: always
  std::string version;                      ///< geopipe version string for the file
};

/// Runs the sweep; returns the process exit code (util/exit_codes.h). Messages go to stderr.
int run_sweep(const SweepOptions& opt);

/// Installs the sweep's stop handlers now (SIGTERM, SIGUSR1, SIGINT: stop resumably, exit 75).
/// run_sweep() installs them too; main() calls this first thing for `geopipe sweep`, so that a
/// signal during start-up (argument parsing, loading a large sweep) already ends it resumably.
void install_sweep_stop_handlers();

/// True when the environment says we were launched by an MPI launcher (mpirun, srun --mpi=pmix).
bool launched_by_mpi();

}  // namespace geopipe::sweep
