// HDF5 locking, error-stack collection and checked calls (see results/hdf5/error.h).
#include "results/hdf5/error.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "util/input_error.h"

namespace geopipe::sweep::h5 {
namespace {

// HDF5 1.10.8 segfaults in its atexit handler (H5F__close_cb) if a file whose H5Fclose failed
// (disk full, file too large) is still registered. Files are always closed explicitly here, so
// the handler is switched off; this must happen before the library initialises itself.
[[maybe_unused]] const bool kNoHdf5Atexit = [] {
  H5dont_atexit();
  return true;
}();

herr_t collect_error(unsigned /*n*/, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::vector<std::string>*>(data);
  std::string d = e->desc ? e->desc : "";
  if (d.empty()) {
    char buf[256] = {0};
    if (H5Eget_msg(e->min_num, nullptr, buf, sizeof buf) > 0) d = buf;
  }
  // sec2 driver messages are long ("file write failed: time = ..., errno = 28, error message =
  // 'No space left on device', buf = ..."): keep the system error text, which is what matters.
  const std::string key = "error message = '";
  const auto k = d.find(key);
  if (k != std::string::npos) {
    const auto end = d.find('\'', k + key.size());
    const std::string sys = d.substr(k + key.size(), end == std::string::npos ? std::string::npos
                                                                                : end - k - key.size());
    const auto cut = std::min(d.find(':'), d.find(','));
    d = (cut == std::string::npos ? d.substr(0, 40) : d.substr(0, cut)) + ": " + sys;
  }
  if (!d.empty() && (out->empty() || out->back() != d)) out->push_back(d);
  return 0;
}

// ---- crash guard: everything the handler uses is prepared beforehand (async-signal-safe) ----

constexpr std::size_t kMsgBytes = 4096, kPathBytes = 4096, kMaxRemove = 4;
char g_msg[kMsgBytes];                 // the line to print, up to "(signal "
char g_timeout_msg[64];                // what replaces "crashed reading it (signal N)" on SIGALRM
std::size_t g_msg_prefix = 0;          // g_msg up to "the HDF5 library "
std::size_t g_msg_len = 0;
int g_depth = 0;                       // guards alive
std::array<std::array<char, kPathBytes>, kMaxRemove> g_remove{};  // "" = free slot
constexpr std::array<int, 5> kCrashSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_old[kCrashSignals.size()];
alignas(16) char g_altstack[64 * 1024];  // a stack overflow must still reach the handler

void set_message(const std::string& path) {
  const std::string head = "geopipe: error: " + path + ": damaged result file: the HDF5 library ";
  const std::string line = head + "crashed reading it (signal ";
  g_msg_len = std::min(line.size(), kMsgBytes - 64);
  g_msg_prefix = std::min(head.size(), g_msg_len);
  std::memcpy(g_msg, line.data(), g_msg_len);
}

void write_str(const char* s) { (void)!::write(2, s, std::strlen(s)); }

extern "C" void on_crash(int sig) {
  if (sig == SIGALRM) {
    (void)!::write(2, g_msg, g_msg_prefix);
    write_str(g_timeout_msg);
  } else {
    (void)!::write(2, g_msg, g_msg_len);
    char num[8];
    int n = 0;
    for (int v = sig; n < 6 && (n == 0 || v > 0); v /= 10) num[n++] = static_cast<char>('0' + v % 10);
    while (n > 0) (void)!::write(2, &num[--n], 1);
    write_str(")");
  }
  write_str(kDamagedAdvice);
  (void)!::write(2, "\n", 1);
  for (const auto& p : g_remove)
    if (p[0] != '\0') ::unlink(p.data());
  ::_exit(2);
}

}  // namespace

CrashGuard::CrashGuard(const std::string& path) {
  previous_.assign(g_msg, g_msg_len);
  set_message(path);
  if (g_depth++ > 0) return;
  stack_t ss{};
  ss.ss_sp = g_altstack;
  ss.ss_size = sizeof g_altstack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (std::size_t i = 0; i < kCrashSignals.size(); ++i) ::sigaction(kCrashSignals[i], &sa, &g_old[i]);
}

CrashGuard::~CrashGuard() {
  g_msg_len = previous_.size();
  std::memcpy(g_msg, previous_.data(), g_msg_len);
  if (--g_depth > 0) return;
  for (std::size_t i = 0; i < kCrashSignals.size(); ++i) ::sigaction(kCrashSignals[i], &g_old[i], nullptr);
}

Deadline::Deadline(unsigned seconds) {
  const std::string t = "did not finish reading it within " + std::to_string(seconds) + " s";
  std::memcpy(g_timeout_msg, t.c_str(), std::min(t.size() + 1, sizeof g_timeout_msg - 1));
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK;
  ::sigaction(SIGALRM, &sa, nullptr);
  ::alarm(seconds);
}

Deadline::~Deadline() {
  ::alarm(0);
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGALRM, &sa, nullptr);
}

void CrashGuard::remove_on_crash(const std::string& path) {
  if (path.size() >= kPathBytes) return;
  for (auto& p : g_remove)
    if (p[0] == '\0') {
      std::memcpy(p.data(), path.c_str(), path.size() + 1);
      return;
    }
}

void CrashGuard::forget_on_crash(const std::string& path) {
  for (auto& p : g_remove)
    if (path == p.data()) p[0] = '\0';
}

Lock::Lock() : lk_(mutex()) { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::recursive_mutex& Lock::mutex() {
  static std::recursive_mutex m;
  return m;
}

std::string h5_error_stack() {
  std::vector<std::string> msgs;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &msgs);
  H5Eclear2(H5E_DEFAULT);
  if (msgs.empty()) return "unknown HDF5 error";
  std::string s;
  const std::size_t n = std::min<std::size_t>(msgs.size(), 3);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += "; ";
    s += msgs[i];
  }
  return s;
}

void write_fail(const std::string& path, const std::string& op) {
  throw std::runtime_error(path + ": HDF5 error while " + op + ": " + h5_error_stack());
}

void read_fail(const std::string& path, const std::string& op) {
  throw InputError(path, 0, 0, "cannot " + op + ": " + h5_error_stack() + kDamagedAdvice);
}

void not_geopipe(const std::string& path, const std::string& why) {
  throw InputError(path, 0, 0, "not a geopipe result file: " + why + kDamagedAdvice);
}

Hid w_hid(hid_t id, Hid::Closer c, const std::string& path, const std::string& op) {
  if (id < 0) write_fail(path, op);
  return Hid(id, c);
}
Hid r_hid(hid_t id, Hid::Closer c, const std::string& path, const std::string& op) {
  if (id < 0) read_fail(path, op);
  return Hid(id, c);
}
void w_check(herr_t r, const std::string& path, const std::string& op) {
  if (r < 0) write_fail(path, op);
}
void r_check(herr_t r, const std::string& path, const std::string& op) {
  if (r < 0) read_fail(path, op);
}

}  // namespace geopipe::sweep::h5
