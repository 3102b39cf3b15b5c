// Bounded reading of input files (config/input_file.h).
#include "config/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/system.h"

namespace geopipe::config {
namespace {

std::string os_error(int err) {
  if (err == ENOENT) return "no such file";
  if (err == ENOTDIR) return "no such file (a part of its path is not a directory)";
  return std::strerror(err);
}

std::string too_large(unsigned long long size, std::size_t limit) {
  return "it is " + std::to_string(size) + " bytes (expected at most " + byte_limit_text(limit) + ")";
}

/// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string byte_limit_text(std::size_t limit) {
  if (limit >= (std::size_t{1} << 20) && limit % (std::size_t{1} << 20) == 0)
    return std::to_string(limit >> 20) + " MiB";
  return std::to_string(limit) + " bytes";
}

std::optional<std::string> read_input_file(const std::string& path, std::size_t limit, std::string& out) {
  out.clear();
  if (path.empty()) return "the path is empty (expected a file name)";
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f) return "the path contains a control character (expected a file name)";

  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat lst {};
    if (err == ENOENT && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
      return "no such file (a symbolic link to a missing file)";
    return os_error(err);
  }
  if (!S_ISREG(st.st_mode)) return util::non_regular_phrase(st.st_mode);
  if (static_cast<unsigned long long>(st.st_size) > limit) return too_large(static_cast<unsigned long long>(st.st_size), limit);

  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return os_error(errno);
  if (::fstat(f.fd, &st) != 0) return os_error(errno);
  if (!S_ISREG(st.st_mode)) return util::non_regular_phrase(st.st_mode);  // replaced since stat()
  if (static_cast<unsigned long long>(st.st_size) > limit) return too_large(static_cast<unsigned long long>(st.st_size), limit);

  out.resize(static_cast<std::size_t>(st.st_size) + 1);  // one more byte: a file that grew is seen
  std::size_t got = 0;
  while (true) {
    if (got == out.size()) {
      if (got > limit) {
        const auto size = static_cast<unsigned long long>(got);
        out.clear();
        return too_large(size, limit) + " (it grew while being read)";
      }
      out.resize(std::min(limit + 1, got + (got >> 1) + 4096));
    }
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      out.clear();
      return os_error(err);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > limit) {
    out.clear();
    return too_large(got, limit) + " (it grew while being read)";
  }
  out.resize(got);
  return std::nullopt;
}

}  // namespace geopipe::config
