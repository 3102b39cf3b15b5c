#include "cli/app.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/exit_codes.h"

#include "geopipe_version.h"
#include "util/input_error.h"

namespace geopipe::cli {
namespace {

/// The deepest subcommand being parsed when CLI11 failed, or nullptr before one was recognised.
const CLI::App* parsed_command(const CLI::App& app) {
  const CLI::App* cmd = nullptr;
  for (const CLI::App* at = &app;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return cmd;
    cmd = at = subs.front();
  }
}

/// Its name as typed after "geopipe" ("run", "trace import"), or "".
std::string failed_command(const CLI::App& app) {
  std::string name;
  for (const CLI::App* at = &app;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return name;
    at = subs.front();
    name += (name.empty() ? "" : " ") + at->get_name();
  }
}

/// Everything written to stdout reached it (a full disk or a closed pipe is an error, not
/// exit 0 with a truncated report).
bool stdout_ok() {
  errno = 0;
  std::cout.flush();
  return std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.fail();
}

/// A friendlier message than CLI11's for the two commonest slips: a misspelt command and a
/// misspelt option ("did you mean ...?", with the valid choices), or "" to keep CLI11's.
std::string friendlier(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
  // The first argument that is not an option must be a command.
  if (argc >= 2 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), std::string(argv[1])) == commands.end())
    return "unknown command '" + std::string(argv[1]) + "'" + geopipe::util::suggestion_suffix(argv[1], commands) +
           " (expected one of " + geopipe::util::quoted_list(commands) + ")";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return "";
  const CLI::App* cmd = parsed_command(app);
  if (!cmd) return "";
  std::vector<std::string> options;
  for (const CLI::Option* o : cmd->get_options())
    if (!o->get_group().empty())  // hidden options (benchmark only) are not offered
      for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  std::string msg;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(options.begin(), options.end(), name) != options.end()) continue;
    msg += (msg.empty() ? "" : "; ") + ("unknown option '" + name + "'") +
           geopipe::util::suggestion_suffix(name, options) + " of 'geopipe " + failed_command(app) + "'";
  }
  return msg.empty() ? "" : msg + " (expected one of " + geopipe::util::quoted_list(options, options.size()) + ")";
}

}  // namespace

// "geopipe 0.1.0 (16d071e)": the release (the Python package's too) and the commit.
std::string version_text() { return std::string("geopipe ") + GEOPIPE_RELEASE + " (" + GEOPIPE_VERSION + ")"; }

void add_common_commands(CLI::App& app, int& rc, const char* only) {
  app.name("geopipe");
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  const auto wanted = [only](const char* name) { return only == nullptr || std::strcmp(only, name) == 0; };
  if (wanted("run")) add_run_command(app, rc);
  if (wanted("validate")) add_validate_command(app, rc);
  if (wanted("list")) add_list_command(app, rc);
}

int run_app(CLI::App& app, int argc, char** argv, const int& rc) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, like every other error: "geopipe: error: <what> (see geopipe [CMD] --help)".
    const std::string cmd = failed_command(app);
    const std::string better = friendlier(app, e, argc, argv);
    std::cerr << "geopipe: error: " << geopipe::util::printable_text(better.empty() ? e.what() : better)
              << " (see 'geopipe " << (cmd.empty() ? "" : cmd + " ") << "--help')\n";
    return util::kExitInput;
  }
  if (!stdout_ok()) {
    std::cerr << "geopipe: error: cannot write to standard output"
              << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
    return rc == util::kExitOk ? util::kExitInput : rc;
  }
  return rc;
}

}  // namespace geopipe::cli
