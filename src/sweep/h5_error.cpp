// HDF5 locking, error-stack collection and checked calls (see h5_error.h).
#include "sweep/h5_error.h"

#include <algorithm>
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

}  // namespace

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
