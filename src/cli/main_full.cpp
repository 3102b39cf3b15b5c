// geopipe-full: every command of geopipe (README.md), the executable that links oneTBB and HDF5
// and, in a sweep under mpirun or srun, loads Open MPI through its module (run/mpi_api.h).
// `geopipe` (cli/main.cpp) runs `run`, `validate` and `list` itself and executes this one, from
// its own directory, for everything else.
#include <CLI/CLI.hpp>

#include <signal.h>

#include <cstring>

#include "cli/app.h"
#include "cli/commands.h"
#include "run/runner.h"

int main(int argc, char** argv) {
  // A write beyond a file-size limit (ulimit -f, a quota) fails with EFBIG and takes the
  // normal error path (a message, the temporary file removed) instead of killing geopipe
  // silently with SIGXFSZ (docs/design.md, "Outputs").
  ::signal(SIGXFSZ, SIG_IGN);
  if (argc >= 2 && std::strcmp(argv[1], "sweep") == 0) geopipe::sweep::install_sweep_stop_handlers();
  CLI::App app{"geopipe: simulate multi-tenant pipeline-parallel LLM training across geo-distributed GPU regions"};
  int rc = geopipe::cli::kExitOk;
  geopipe::cli::add_common_commands(app, rc);
  geopipe::cli::add_sweep_command(app, rc);
  geopipe::cli::add_merge_command(app, rc);
  geopipe::cli::add_summarize_command(app, rc);
  geopipe::cli::add_analyze_command(app, rc);
  geopipe::cli::add_plot_command(app, rc);
  geopipe::cli::add_trace_command(app, rc);
  return geopipe::cli::run_app(app, argc, argv, rc);
}
