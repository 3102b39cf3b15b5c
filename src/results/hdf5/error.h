// HDF5 locking, RAII handles and error mapping for the result store (results/hdf5/store.h).
// Internal to src/results/hdf5: only the store's own files include it.
//
// Owns: the one global Lock that every public entry point of the store takes (HDF5 state is
// global), the conversion of the HDF5 error stack into one line of text, Hid (an owning
// hid_t) and the checked-call helpers that turn an HDF5 failure into an exception naming the
// file and the operation:
//   writing a result file -> std::runtime_error "path: HDF5 error while <op>: <stack>"
//   reading an input file -> InputError(path, "cannot <op>: <stack>")
// Every other header of the store builds on this one.
#pragma once

#include <hdf5.h>

#include <mutex>
#include <string>
#include <utility>

namespace geopipe::sweep::h5 {

/// One lock around every public entry point: HDF5 state (error stacks, open files) is global.
/// The library is the thread-safe build (it serialises calls), but the error stack is per
/// thread, so automatic printing is switched off on every entry.
class Lock {
 public:
  Lock();

 private:
  static std::recursive_mutex& mutex();
  std::lock_guard<std::recursive_mutex> lk_;
};

/// What to do about a damaged input file: appended to every message that says one is damaged.
inline constexpr const char* kDamagedAdvice =
    " (the file is damaged or was not written by geopipe: re-run the sweep into a new file, or use a "
    "copy; `geopipe sweep ... --force` replaces it)";

/// While one is alive, a crash inside the process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT:
/// HDF5 1.10.8 can crash on a damaged file, e.g. in H5HG_read on a damaged global heap, which
/// has no checksum) ends the process with exit code 2 after printing the one line
/// "geopipe: error: PATH: damaged result file: the HDF5 library crashed reading it (signal N)
/// <kDamagedAdvice>" and removing the files registered with remove_on_crash (a temporary
/// output, the lock file). Guards nest (the innermost names the file); one thread reads files.
class CrashGuard {
 public:
  explicit CrashGuard(const std::string& path);
  ~CrashGuard();
  CrashGuard(const CrashGuard&) = delete;
  CrashGuard& operator=(const CrashGuard&) = delete;
  /// Files to remove if a guarded crash happens (until forget_on_crash).
  static void remove_on_crash(const std::string& path);
  static void forget_on_crash(const std::string& path);

 private:
  std::string previous_;
};

/// While one is alive (inside a CrashGuard), the process ends like a crash (exit code 2, one
/// line "... the HDF5 library did not finish reading it within N s ...") if it is still alive
/// after `seconds`: for reads that take milliseconds on any valid file but that HDF5 1.10.8
/// can loop on forever (the vlen attribute strings live in the global heap, which has no
/// checksum; a damaged one can make H5HG_read loop). Uses alarm(); not nested.
class Deadline {
 public:
  explicit Deadline(unsigned seconds);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
};

/// The current HDF5 error stack as one line, most specific error first. Clears the stack.
std::string h5_error_stack();

/// Failure while writing a result file: std::runtime_error "path: HDF5 error while op: ...".
[[noreturn]] void write_fail(const std::string& path, const std::string& op);

/// Failure while reading an input file: InputError(path, ...).
[[noreturn]] void read_fail(const std::string& path, const std::string& op);

[[noreturn]] void not_geopipe(const std::string& path, const std::string& why);

/// An owned hid_t, closed with its closer (H5Fclose, H5Dclose, ...) when destroyed.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Closer c) : id_(id), close_(c) {}
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  ~Hid() { reset(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  /// Forgets the handle without closing it: nothing more is written through it (an abandoned
  /// file after a failed write, see ResultStore). HDF5 never closes it later either: the
  /// library runs without its atexit handler (H5dont_atexit, results/hdf5/error.cpp).
  void abandon() { id_ = H5I_INVALID_HID; }
  /// Closes now and reports the result (H5Fclose writes the last metadata).
  herr_t close() {
    herr_t r = 0;
    if (id_ >= 0 && close_) r = close_(id_);
    id_ = H5I_INVALID_HID;
    return r;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// Checked calls: w_* fail with write_fail, r_* with read_fail (id < 0 or r < 0).
Hid w_hid(hid_t id, Hid::Closer c, const std::string& path, const std::string& op);
Hid r_hid(hid_t id, Hid::Closer c, const std::string& path, const std::string& op);
void w_check(herr_t r, const std::string& path, const std::string& op);
void r_check(herr_t r, const std::string& path, const std::string& op);

}  // namespace geopipe::sweep::h5
