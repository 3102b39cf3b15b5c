// Subcommands of the geopipe CLI. Each registers itself on the CLI11 app and returns the exit
// code through `rc`. Exit codes: 0 ok, 1 internal error, 2 bad input (nothing run, nothing written).
#pragma once

#include <CLI/CLI.hpp>

namespace geopipe::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInput = 2;

void add_run_command(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);
void add_list_command(CLI::App& app, int& rc);
void add_sweep_command(CLI::App& app, int& rc);
void add_merge_command(CLI::App& app, int& rc);
void add_summarize_command(CLI::App& app, int& rc);

}  // namespace geopipe::cli
