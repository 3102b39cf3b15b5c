#include "util/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>
#include <vector>

#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::util {
namespace {

std::string errno_text(int err) { return err ? std::string(": ") + std::strerror(err) : std::string(); }

// ---- temporary files removed on a fatal signal -------------------------------------------------
// A fixed table the handler can walk without allocating: a slot holds a NUL-terminated path
// while its OutputFile is uncommitted. Slots are claimed and released by the main thread only.
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
char g_temp[kSlots][kPathBytes];
volatile sig_atomic_t g_used[kSlots];
bool g_handlers_installed = false;

extern "C" void remove_temps_and_die(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i]) ::unlink(g_temp[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers_once() {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(s, nullptr, &old);
    if (old.sa_handler != SIG_DFL) continue;  // a command with its own handling (the sweep runner) keeps it
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_die;
    sigemptyset(&sa.sa_mask);
    ::sigaction(s, &sa, nullptr);
  }
}

int claim_slot(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;  // too long to register: removed by the destructor only
  install_handlers_once();
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i]) {
      std::memcpy(g_temp[i], path.c_str(), path.size() + 1);
      g_used[i] = 1;
      return i;
    }
  return -1;
}

void release_slot(int& slot) {
  if (slot >= 0) g_used[slot] = 0;
  slot = -1;
}

}  // namespace

/// A buffered streambuf over a file descriptor that keeps the first write error.
class OutputFile::Buf final : public std::streambuf {
 public:
  explicit Buf(int fd) : fd_(fd), buf_(kChunk) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return err_; }
  int drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && err_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno != EINTR) err_ = errno;
        continue;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return err_ == 0 ? 0 : -1;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (drain() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain(); }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  int fd_;
  std::vector<char> buf_;
  int err_ = 0;
};

void check_output_path(const std::string& path, const std::vector<std::string>& inputs, std::string_view flag,
                       std::string_view what) {
  const std::string f(flag), w(what);
  if (path.empty()) throw InputError(f, 0, 0, "an empty path (expected a file to write " + w + " to)");
  for (const std::string& in : inputs) {
    if (in.empty()) continue;
    if (same_file(path, in))
      throw InputError(f, 0, 0, "'" + path + "' is an input (" + in + "); an input is never overwritten (expected a new path for " + w + ")");
  }
  if (const auto why = not_a_regular_file(path)) throw InputError(f, 0, 0, "'" + path + "': " + *why + " (expected a file path for " + w + ")");
}

void check_can_create(const std::string& path, std::string_view flag, std::string_view what) {
  OutputFile probe(path, {}, std::string(flag), std::string(what));  // removed again on destruction
}

OutputFile::OutputFile(std::string path, const std::vector<std::string>& inputs, std::string flag, std::string what)
    : path_(std::move(path)), flag_(std::move(flag)), what_(std::move(what)) {
  check_output_path(path_, inputs, flag_, what_);
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  struct stat st {};
  if (::lstat(tmp_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      throw InputError(flag_, 0, 0, "'" + tmp_ + "', where " + what_ + " is written before it is renamed, exists and " +
                                        (S_ISLNK(st.st_mode) ? std::string("is a symbolic link") : non_regular_phrase(st.st_mode)) +
                                        " (expected another path)");
    for (const std::string& in : inputs)
      if (!in.empty() && same_file(tmp_, in))
        throw InputError(flag_, 0, 0, "'" + tmp_ + "', where " + what_ + " is written before it is renamed, is an input (" + in +
                                          ") (expected another path)");
    ::unlink(tmp_.c_str());  // a leftover of an earlier process with this pid
  }
  slot_ = claim_slot(tmp_);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) {
    const int err = errno;
    release_slot(slot_);
    throw InputError(flag_, 0, 0, "cannot create '" + tmp_ + "'" + errno_text(err) + " (nothing was written to '" + path_ + "')");
  }
  buf_ = std::make_unique<Buf>(fd_);
  os_ = std::make_unique<std::ostream>(buf_.get());
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(tmp_.c_str());
  release_slot(slot_);
}

std::ostream& OutputFile::stream() { return *os_; }

void OutputFile::fail(const std::string& doing, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  release_slot(slot_);
  committed_ = true;  // nothing left to clean up
  throw InputError(flag_, 0, 0, "cannot " + doing + errno_text(err) + " (nothing was written to '" + path_ + "')");
}

void OutputFile::commit() {
  os_->flush();
  buf_->drain();
  if (buf_->error()) fail("write " + what_ + " to '" + tmp_ + "'", buf_->error());
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("write " + what_ + " to '" + tmp_ + "'", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("write " + what_ + " to '" + tmp_ + "'", errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) fail("rename '" + tmp_ + "' to '" + path_ + "'", errno);
  release_slot(slot_);
  committed_ = true;
}

}  // namespace geopipe::util
