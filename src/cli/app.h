// What both geopipe executables share around CLI11 (docs/design.md, "Layers", the CLI): the
// one-line errors of a failed parse ("geopipe: error: <what> (see 'geopipe CMD --help')", with
// "did you mean" for a misspelt command or option), and the check that stdout took everything.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace geopipe::cli {

/// What `geopipe --version` prints (without the newline): "geopipe <git describe>".
std::string version_text();

/// Names `app` "geopipe", gives it --version, requires one command and adds the commands both
/// executables run: run, validate, list (their exit code goes to `rc`). With `only` ("run",
/// "validate" or "list"), adds that one command alone, and with "--version" none: the front end
/// (cli/main.cpp) knows its command from argv[1] and builds nothing else (CLI11's setup of
/// every command was 150k of the 540k instructions of `list`:
/// docs/performance.md, "Process start, second step"); geopipe-full, whose --help lists every
/// command, passes nullptr.
void add_common_commands(CLI::App& app, int& rc, const char* only = nullptr);

/// Parses argv into `app` (whose commands set `rc`) and runs the chosen command; returns the
/// exit code: CLI11's for --help and --version (0), kExitInput (2) for a parse error (one line
/// on stderr), else `rc`, or kExitInput when stdout could not be written.
int run_app(CLI::App& app, int argc, char** argv, const int& rc);

}  // namespace geopipe::cli
