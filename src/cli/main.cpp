// geopipe: simulator and sweep runner for pipeline-parallel LLM training across regions.
//
// The front end: it runs `run`, `validate`, `list` and `--version` itself, linking neither MPI,
// oneTBB nor HDF5 (a process starts in about a millisecond: docs/performance.md), and replaces
// itself (execv, same arguments and environment: an MPI or Slurm launch is unaffected) with
// geopipe-full, the executable beside it, for every other command and for `--help`.
#include <CLI/CLI.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/app.h"
#include "cli/commands.h"

namespace {

/// geopipe-full in the directory of this executable (/proc/self/exe), or "" if unknown.
std::string full_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string self(buf, static_cast<std::size_t>(n));
  const auto slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/geopipe-full";
}

bool runs_here(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string cmd = argv[1];
  return cmd == "run" || cmd == "validate" || cmd == "list" || cmd == "--version";
}

}  // namespace

int main(int argc, char** argv) {
  if (!runs_here(argc, argv)) {
    const std::string full = full_executable();
    if (!full.empty()) ::execv(full.c_str(), argv);
    std::cerr << "geopipe: error: cannot run " << (full.empty() ? std::string("geopipe-full") : full) << ": "
              << std::strerror(errno)
              << " (the commands sweep, merge, summarize, analyze, plot and trace are in geopipe-full, which must be "
                 "in the directory of geopipe: copy or install both)\n";
    return geopipe::cli::kExitInput;
  }
  ::signal(SIGXFSZ, SIG_IGN);  // as geopipe-full: a write beyond a size limit is an error, not a kill
  // `geopipe --version` is answered here: CLI11 reports --version by throwing, and the first
  // exception a static executable throws makes libgcc's unwinder sort the whole program's frame
  // table first (~23M instructions, ~1.8 ms: docs/performance.md, "Process start, third step").
  // Same text as CLI11's (tests/cli/test_cli.sh compares it with geopipe-full's).
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << geopipe::cli::version_text() << '\n' << std::flush;
    if (std::cout) return geopipe::cli::kExitOk;
    std::cerr << "geopipe: error: cannot write to standard output\n";
    return geopipe::cli::kExitInput;
  }
  CLI::App app{"geopipe: simulate multi-tenant pipeline-parallel LLM training across geo-distributed GPU regions"};
  int rc = geopipe::cli::kExitOk;
  geopipe::cli::add_common_commands(app, rc, argv[1]);  // runs_here: argv[1] is its command or --version
  return geopipe::cli::run_app(app, argc, argv, rc);
}
