// geopipe plot ...: forwards to the Python package's plot command (`python3 -m geopipe plot`,
// python/geopipe/cli.py), which draws a metric against an axis with 95% CIs per scheduler. The
// package is looked up next to the binary (where `cmake --install` puts it) and in the source
// tree the binary was built from; Debian's /usr/bin/python3 (with h5py, pandas, matplotlib) is
// preferred.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/input_error.h"

#ifndef GEOPIPE_PYTHON_INSTALL_REL
#define GEOPIPE_PYTHON_INSTALL_REL "lib/python3/dist-packages"
#endif
#ifndef GEOPIPE_PYTHON_SOURCE_DIR
#define GEOPIPE_PYTHON_SOURCE_DIR ""
#endif

namespace geopipe::cli {
namespace {

namespace fs = std::filesystem;

/// The directory holding the package `geopipe` (installed, or the source tree's), or "".
std::string package_dir() {
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / GEOPIPE_PYTHON_INSTALL_REL);
  if (std::strlen(GEOPIPE_PYTHON_SOURCE_DIR) > 0) candidates.emplace_back(GEOPIPE_PYTHON_SOURCE_DIR);
  for (const fs::path& d : candidates)
    if (fs::exists(d / "geopipe" / "__init__.py", ec)) return d.string();
  return "";
}

}  // namespace

void add_plot_command(CLI::App& app, int& rc) {
  CLI::App* cmd = app.add_subcommand(
      "plot", "Plot a metric against an axis with 95% CIs per scheduler, to PNG or SVG (geopipe plot --help)");
  cmd->prefix_command();     // every argument goes to the Python command
  cmd->set_help_flag("");    // its --help too
  cmd->callback([cmd, &rc] {
    rc = guarded([&]() -> int {
      const std::string dir = package_dir();
      if (dir.empty())
        throw InputError("plot", 0, 0,
                         "cannot find the Python package geopipe (expected next to the binary after cmake --install, "
                         "or in the source tree's python/)");
      const char* old = std::getenv("PYTHONPATH");
      const std::string path = dir + (old && *old ? ":" + std::string(old) : std::string());
      ::setenv("PYTHONPATH", path.c_str(), 1);
      const std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
      std::vector<std::string> args = {python, "-m", "geopipe", "plot"};
      for (const std::string& a : cmd->remaining()) args.push_back(a);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      throw InputError("plot", 0, 0, "cannot run " + python + ": " + std::strerror(errno));
    });
  });
}

}  // namespace geopipe::cli
