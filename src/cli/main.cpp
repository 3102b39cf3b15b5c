// geopipe: simulator and sweep runner for pipeline-parallel LLM training across regions.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"

#include "geopipe_version.h"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : geopipe::cli::kExitInput;
  }
  return rc;
}
