// geopipe: simulator and sweep runner for pipeline-parallel LLM training across regions.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "util/input_error.h"

#include "geopipe_version.h"

namespace {

/// The subcommand being parsed when CLI11 failed ("" before one was recognised).
std::string failed_command(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return sub->get_name();
  return "";
}

/// Everything written to stdout reached it (a full disk or a closed pipe is an error, not
/// exit 0 with a truncated report).
bool stdout_ok() {
  errno = 0;
  std::cout.flush();
  return std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.fail();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"geopipe: simulate multi-tenant pipeline-parallel LLM training across geo-distributed GPU regions"};
  app.set_version_flag("--version", std::string("geopipe ") + GEOPIPE_VERSION);
  app.require_subcommand(1);
  int rc = geopipe::cli::kExitOk;
  geopipe::cli::add_run_command(app, rc);
  geopipe::cli::add_validate_command(app, rc);
  geopipe::cli::add_list_command(app, rc);
  geopipe::cli::add_sweep_command(app, rc);
  geopipe::cli::add_merge_command(app, rc);
  geopipe::cli::add_summarize_command(app, rc);
  geopipe::cli::add_analyze_command(app, rc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, like every other error: "geopipe: error: <what> (see geopipe [CMD] --help)".
    const std::string cmd = failed_command(app);
    std::cerr << "geopipe: error: " << geopipe::util::printable_text(e.what()) << " (see 'geopipe "
              << (cmd.empty() ? "" : cmd + " ") << "--help')\n";
    return geopipe::cli::kExitInput;
  }
  if (!stdout_ok()) {
    std::cerr << "geopipe: error: cannot write to standard output"
              << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
    return rc == geopipe::cli::kExitOk ? geopipe::cli::kExitInput : rc;
  }
  return rc;
}
