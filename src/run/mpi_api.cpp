// Loading the MPI module (run/mpi_api.h).
#include "run/mpi_api.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/input_error.h"

#ifndef GEOPIPE_INSTALL_LIBDIR
#define GEOPIPE_INSTALL_LIBDIR "lib"
#endif

namespace geopipe::sweep {
namespace {

constexpr const char* kModule = "geopipe-mpi.so";

/// The directory of this executable (/proc/self/exe), or "".
std::string exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string self(buf, static_cast<std::size_t>(n));
  const auto slash = self.rfind('/');
  return slash == std::string::npos ? std::string(".") : self.substr(0, slash);
}

const MpiApi* load() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("GEOPIPE_MPI_MODULE"); env && *env) {
    paths.emplace_back(env);
  } else if (const std::string dir = exe_dir(); !dir.empty()) {
    paths.push_back(dir + "/" + kModule);
    paths.push_back(dir + "/../" GEOPIPE_INSTALL_LIBDIR "/geopipe/" + kModule);
  }
  std::string tried;
  for (const std::string& p : paths) {
    // Only a regular file is opened: dlopen of a FIFO or a character device blocks on it, of a
    // directory says little (every other input of geopipe is refused the same way).
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      tried += "; " + p + ": no such file";
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      tried += "; " + p + ": not a regular file";
      continue;
    }
    void* h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      const char* e = ::dlerror();
      tried += "; " + p + ": " + (e ? e : "cannot be loaded");
      continue;
    }
    using Entry = const MpiApi* (*)();
    const auto entry = reinterpret_cast<Entry>(::dlsym(h, "geopipe_mpi_api"));
    const MpiApi* api = entry ? entry() : nullptr;
    if (!api) {
      tried += "; " + p + ": has no geopipe_mpi_api (not geopipe's MPI module)";
      continue;
    }
    if (api->version != kMpiApiVersion) {
      tried += "; " + p + ": of another geopipe build (version " + std::to_string(api->version) + ", expected " +
               std::to_string(kMpiApiVersion) + ")";
      continue;
    }
    return api;  // never unloaded: Open MPI cannot be loaded twice
  }
  if (!tried.empty()) tried.erase(0, 2);  // the first "; "
  throw InputError(kModule, 0, 0,
                   "geopipe's MPI module cannot be loaded, and a sweep under mpirun or srun needs it (expected "
                   "it beside geopipe-full, in <prefix>/" GEOPIPE_INSTALL_LIBDIR
                   "/geopipe/, or named by GEOPIPE_MPI_MODULE; or run without mpirun, or with --no-mpi); tried " +
                       (tried.empty() ? std::string("no path (the executable's directory is unknown)") : tried));
}

}  // namespace

const MpiApi& mpi_api() {
  static const MpiApi* const api = load();  // a failure throws, and the next call tries again
  return *api;
}

}  // namespace geopipe::sweep
