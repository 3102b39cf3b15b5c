#include "util/system.h"

#include <unistd.h>

#include <sys/stat.h>

#include <ctime>

namespace geopipe::util {

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string non_regular_phrase(unsigned mode) {
  const auto m = static_cast<mode_t>(mode);
  if (S_ISDIR(m)) return "it is a directory";
  if (S_ISFIFO(m)) return "it is not a regular file (a FIFO)";
  if (S_ISCHR(m)) return "it is not a regular file (a character device)";
  if (S_ISBLK(m)) return "it is not a regular file (a block device)";
  if (S_ISSOCK(m)) return "it is not a regular file (a socket)";
  return "it is not a regular file";
}

std::optional<std::string> not_a_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return std::nullopt;
  return non_regular_phrase(st.st_mode);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) != 0; }

}  // namespace geopipe::util
