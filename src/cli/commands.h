// Subcommands of the geopipe CLI. Each registers itself on the CLI11 app and returns the exit
// code (util/exit_codes.h) through `rc`; bodies run inside util::guarded().
#pragma once

#include <CLI/CLI.hpp>

#include "util/exit_codes.h"

namespace geopipe::cli {

using util::guarded;
using util::kExitInput;
using util::kExitInternal;
using util::kExitOk;

void add_run_command(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);
void add_list_command(CLI::App& app, int& rc);
void add_sweep_command(CLI::App& app, int& rc);
void add_merge_command(CLI::App& app, int& rc);
void add_summarize_command(CLI::App& app, int& rc);
void add_analyze_command(CLI::App& app, int& rc);
void add_plot_command(CLI::App& app, int& rc);
void add_trace_command(CLI::App& app, int& rc);  ///< trace import, trace shape-table

}  // namespace geopipe::cli
