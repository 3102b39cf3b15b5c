// The MPI calls of the sweep runner (run/runner.cpp, run/master.cpp) as a table of functions.
// The module geopipe-mpi.so (run/mpi_module.cpp, the one file of geopipe that includes <mpi.h>)
// fills it in, and the runner loads that module, and with it Open MPI, only in a process that
// uses MPI (launched by mpirun or srun, or told to): every other command of geopipe-full and
// every sweep run without mpirun starts without Open MPI's seven libraries (~2.4 ms and ~90
// page faults a process here; docs/design.md, "Layers"; docs/performance.md, "Open MPI loaded
// when used").
//
// Internal to src/run. Sources and tags are MPI's ints; kAnySource / kAnyTag stand for
// MPI_ANY_SOURCE / MPI_ANY_TAG. Messages are bytes (MPI_BYTE) on MPI_COMM_WORLD.
#pragma once

namespace geopipe::sweep {

/// The version of the table below: a module of another version is refused (not loaded).
constexpr int kMpiApiVersion = 1;
constexpr int kAnySource = -1;
constexpr int kAnyTag = -1;

struct MpiApi {
  int version;  ///< kMpiApiVersion of the module's build
  /// MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread calls MPI), then this process's
  /// rank and the number of ranks.
  void (*init)(int* rank, int* ranks);
  void (*finalize)();
  /// MPI_Bcast of one int from rank 0.
  void (*broadcast_int)(int* value);
  /// MPI_Abort of the whole job with `code` (does not return).
  void (*abort)(int code);
  /// MPI_Iprobe: whether a message from `source` with `tag` is waiting; if so its source, tag and
  /// size in bytes.
  bool (*iprobe)(int source, int tag, int* from, int* got_tag, int* bytes);
  /// MPI_Probe: waits for a message from `source` with `tag`; its tag and size in bytes.
  void (*probe)(int source, int tag, int* got_tag, int* bytes);
  void (*recv)(void* buf, int bytes, int source, int tag);
  void (*send)(const void* buf, int bytes, int dest, int tag);
};

/// The module's table, loaded at the first call (dlopen, RTLD_NOW | RTLD_GLOBAL so that Open
/// MPI's own plugins find its symbols) from, in order: $GEOPIPE_MPI_MODULE if set; beside the
/// executable (a build tree); <executable's directory>/../<libdir>/geopipe/ (an installation,
/// wherever its prefix). Throws InputError (exit 2: nothing was run) naming every path tried and
/// why it failed.
/// Thread-safe; the module stays loaded until the process ends.
const MpiApi& mpi_api();

}  // namespace geopipe::sweep

/// The module's one exported symbol.
extern "C" const geopipe::sweep::MpiApi* geopipe_mpi_api();
