// Subcommands of the geopipe CLI. Each registers itself on the CLI11 app and returns the exit
// code through `rc`. Exit codes: 0 ok, 1 internal error, 2 bad input (nothing run, nothing written).
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "model/input_error.h"

namespace geopipe::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInput = 2;

/// Runs a subcommand's body and maps what it throws to an exit code, with the message on
/// stderr: InputError (bad input, "file:line:col: what") -> kExitInput, any other exception
/// -> kExitInternal.
template <class Body>
int guarded(Body&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "geopipe: error: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "geopipe: error: " << e.what() << "\n";
    return kExitInternal;
  }
}

void add_run_command(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);
void add_list_command(CLI::App& app, int& rc);
void add_sweep_command(CLI::App& app, int& rc);
void add_merge_command(CLI::App& app, int& rc);
void add_summarize_command(CLI::App& app, int& rc);

}  // namespace geopipe::cli
