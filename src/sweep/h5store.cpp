// The HDF5 result file of a sweep: layout and crash-safety design in docs/hdf5-format.md.
//
// HDF5 C API only. Every hid_t lives in an RAII wrapper; every HDF5 failure becomes an
// exception whose message names the file and the operation, built from the HDF5 error stack
// (automatic printing of the stack is switched off).
//
// Files at the final path are only ever produced by rename(): create(), resume(), finalize()
// and merge_stores() write "<path>.<what>-tmp" and rename it over the destination once it is
// complete (create/resume: in SWMR-write mode, so it stays readable after a kill -9). So a file
// at `path` is always either a SWMR file with every dataset in place or a complete final file.
#include "sweep/h5store.h"

#include <hdf5.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "util/input_error.h"
#include "sim/metrics.h"
#include "util/hash.h"
#include "util/system.h"

namespace geopipe::sweep {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kFormatVersion = 1;

// Fixed string widths (bytes). Scheduler and text-axis columns grow if a value is longer.
constexpr std::size_t kSchedulerWidth = 32;
constexpr std::size_t kTextWidth = 64;
constexpr std::size_t kErrorWidth = 480;
constexpr std::size_t kModelWidth = 32;
constexpr std::size_t kRegionsWidth = 128;

// Chunk sizes (rows) and write batches (rows buffered before a write).
constexpr hsize_t kScenarioChunk = 4096;
constexpr hsize_t kMetricsChunk = 1024;
constexpr hsize_t kErrorsChunk = 256;
constexpr hsize_t kJobsChunk = 2048;
constexpr std::size_t kMetricsBatch = 1024;
constexpr std::size_t kErrorsBatch = 256;
constexpr std::size_t kJobsBatch = 8192;
constexpr unsigned kDeflateLevel = 1;

// HDF5 1.10.8 segfaults in its atexit handler (H5F__close_cb) if a file whose H5Fclose failed
// (disk full, file too large) is still registered. Files are always closed explicitly here, so
// the handler is switched off; this must happen before the library initialises itself.
[[maybe_unused]] const bool kNoHdf5Atexit = [] {
  H5dont_atexit();
  return true;
}();

// ---------------------------------------------------------------------------------------------
// Locking and error handling
// ---------------------------------------------------------------------------------------------

/// One lock around every public entry point: HDF5 state (error stacks, open files) is global.
/// The library is the thread-safe build (it serialises calls), but the error stack is per
/// thread, so automatic printing is switched off on every entry.
class Lock {
 public:
  Lock() : lk_(mutex()) { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

 private:
  static std::recursive_mutex& mutex() {
    static std::recursive_mutex m;
    return m;
  }
  std::lock_guard<std::recursive_mutex> lk_;
};

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

/// The current HDF5 error stack as one line, most specific error first. Clears the stack.
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

/// Failure while writing a result file: std::runtime_error "path: HDF5 error while op: ...".
[[noreturn]] void write_fail(const std::string& path, const std::string& op) {
  throw std::runtime_error(path + ": HDF5 error while " + op + ": " + h5_error_stack());
}

/// Failure while reading an input file: InputError(path, ...).
[[noreturn]] void read_fail(const std::string& path, const std::string& op) {
  throw InputError(path, 0, 0, "cannot " + op + ": " + h5_error_stack());
}

[[noreturn]] void not_geopipe(const std::string& path, const std::string& why) {
  throw InputError(path, 0, 0, "not a geopipe result file: " + why);
}

// ---------------------------------------------------------------------------------------------
// RAII for hid_t
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Row layouts: packed compound types, identical in memory and in the file
// ---------------------------------------------------------------------------------------------

enum class Kind { I8, I32, I64, U64, F64, Str };

struct Field {
  std::string name;
  Kind kind;
  std::size_t size;
  std::size_t off;
};

struct Layout {
  std::vector<Field> fields;
  std::size_t size = 0;

  Layout& add(std::string name, Kind k, std::size_t str_size = 0) {
    std::size_t sz = 8;
    switch (k) {
      case Kind::I8: sz = 1; break;
      case Kind::I32: sz = 4; break;
      case Kind::Str: sz = str_size; break;
      default: sz = 8; break;
    }
    fields.push_back({std::move(name), k, sz, size});
    size += sz;
    return *this;
  }
  const Field* find(std::string_view name) const {
    for (const auto& f : fields)
      if (f.name == name) return &f;
    return nullptr;
  }
  const Field& at(std::string_view name) const {
    const Field* f = find(name);
    if (!f) throw std::logic_error("h5store: no field " + std::string(name));
    return *f;
  }
  bool same_as(const Layout& o) const {
    if (fields.size() != o.fields.size()) return false;
    for (std::size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name != o.fields[i].name || fields[i].kind != o.fields[i].kind ||
          fields[i].size != o.fields[i].size)
        return false;
    return true;
  }
  std::string describe() const {
    std::string s;
    for (const auto& f : fields) s += (s.empty() ? "" : ", ") + f.name;
    return s;
  }
};

Hid string_type(std::size_t size, const std::string& path) {
  Hid t = w_hid(H5Tcopy(H5T_C_S1), H5Tclose, path, "creating a string type");
  w_check(H5Tset_size(t.get(), size), path, "creating a string type");
  w_check(H5Tset_strpad(t.get(), H5T_STR_NULLPAD), path, "creating a string type");
  w_check(H5Tset_cset(t.get(), H5T_CSET_UTF8), path, "creating a string type");
  return t;
}

Hid make_type(const Layout& l, const std::string& path) {
  Hid t = w_hid(H5Tcreate(H5T_COMPOUND, l.size), H5Tclose, path, "creating a compound type");
  for (const auto& f : l.fields) {
    hid_t base = H5T_NATIVE_DOUBLE;
    Hid str;
    switch (f.kind) {
      case Kind::I8: base = H5T_NATIVE_INT8; break;
      case Kind::I32: base = H5T_NATIVE_INT32; break;
      case Kind::I64: base = H5T_NATIVE_INT64; break;
      case Kind::U64: base = H5T_NATIVE_UINT64; break;
      case Kind::F64: base = H5T_NATIVE_DOUBLE; break;
      case Kind::Str:
        str = string_type(f.size, path);
        base = str.get();
        break;
    }
    w_check(H5Tinsert(t.get(), f.name.c_str(), f.off, base), path,
            "creating the compound type (column '" + f.name + "')");
  }
  return t;
}

/// The layout of a dataset's compound type as stored (names, order, kinds, string sizes).
Layout layout_of(hid_t dset, const std::string& path, const std::string& name) {
  Hid ft = r_hid(H5Dget_type(dset), H5Tclose, path, "read the type of /" + name);
  if (H5Tget_class(ft.get()) != H5T_COMPOUND) not_geopipe(path, "/" + name + " is not a table");
  const int n = H5Tget_nmembers(ft.get());
  if (n <= 0) not_geopipe(path, "/" + name + " has no columns");
  Layout l;
  for (unsigned i = 0; i < static_cast<unsigned>(n); ++i) {
    char* cname = H5Tget_member_name(ft.get(), i);
    if (!cname) read_fail(path, "read the columns of /" + name);
    std::string mname(cname);
    H5free_memory(cname);
    Hid mt = r_hid(H5Tget_member_type(ft.get(), i), H5Tclose, path, "read the columns of /" + name);
    const H5T_class_t cls = H5Tget_class(mt.get());
    const std::size_t sz = H5Tget_size(mt.get());
    if (cls == H5T_INTEGER) {
      const bool sign = H5Tget_sign(mt.get()) == H5T_SGN_2;
      if (sz == 1 && sign) l.add(mname, Kind::I8);
      else if (sz <= 4 && sign) l.add(mname, Kind::I32);
      else if (sign) l.add(mname, Kind::I64);
      else l.add(mname, Kind::U64);
    } else if (cls == H5T_FLOAT) {
      l.add(mname, Kind::F64);
    } else if (cls == H5T_STRING && H5Tis_variable_str(mt.get()) == 0) {
      l.add(mname, Kind::Str, sz);
    } else {
      not_geopipe(path, "/" + name + " column '" + mname + "' has an unsupported type");
    }
  }
  return l;
}

/// Rows of one table, packed as in the layout.
struct Rows {
  std::size_t row_size = 0;
  std::size_t n = 0;
  std::vector<unsigned char> data;

  Rows() = default;
  explicit Rows(std::size_t rs) : row_size(rs) {}
  unsigned char* add() {
    data.resize((n + 1) * row_size);
    return data.data() + (n++) * row_size;
  }
  unsigned char* row(std::size_t i) { return data.data() + i * row_size; }
  const unsigned char* row(std::size_t i) const { return data.data() + i * row_size; }
  void clear() {
    n = 0;
    data.clear();
  }
};

void put_i64(unsigned char* row, const Field& f, std::int64_t v) {
  switch (f.kind) {
    case Kind::I8: {
      const auto x = static_cast<std::int8_t>(v);
      std::memcpy(row + f.off, &x, 1);
      break;
    }
    case Kind::I32: {
      const auto x = static_cast<std::int32_t>(v);
      std::memcpy(row + f.off, &x, 4);
      break;
    }
    case Kind::I64: std::memcpy(row + f.off, &v, 8); break;
    case Kind::U64: {
      const auto x = static_cast<std::uint64_t>(v);
      std::memcpy(row + f.off, &x, 8);
      break;
    }
    case Kind::F64: {
      const auto x = static_cast<double>(v);
      std::memcpy(row + f.off, &x, 8);
      break;
    }
    case Kind::Str: break;
  }
}

void put_u64(unsigned char* row, const Field& f, std::uint64_t v) {
  if (f.kind == Kind::U64) std::memcpy(row + f.off, &v, 8);
  else put_i64(row, f, static_cast<std::int64_t>(v));
}

void put_f64(unsigned char* row, const Field& f, double v) {
  if (f.kind == Kind::F64) std::memcpy(row + f.off, &v, 8);
  else put_i64(row, f, static_cast<std::int64_t>(v));
}

/// Copies at most f.size bytes, cut at a UTF-8 character boundary; the rest is NUL padding.
void put_str(unsigned char* row, const Field& f, const std::string& s) {
  std::size_t n = std::min(s.size(), f.size);
  if (n < s.size())
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  std::memset(row + f.off, 0, f.size);
  std::memcpy(row + f.off, s.data(), n);
}

std::int64_t get_i64(const unsigned char* row, const Field& f) {
  switch (f.kind) {
    case Kind::I8: {
      std::int8_t x;
      std::memcpy(&x, row + f.off, 1);
      return x;
    }
    case Kind::I32: {
      std::int32_t x;
      std::memcpy(&x, row + f.off, 4);
      return x;
    }
    case Kind::I64: {
      std::int64_t x;
      std::memcpy(&x, row + f.off, 8);
      return x;
    }
    case Kind::U64: {
      std::uint64_t x;
      std::memcpy(&x, row + f.off, 8);
      return static_cast<std::int64_t>(x);
    }
    case Kind::F64: {
      double x;
      std::memcpy(&x, row + f.off, 8);
      return static_cast<std::int64_t>(x);
    }
    case Kind::Str: break;
  }
  return 0;
}

double get_f64(const unsigned char* row, const Field& f) {
  if (f.kind == Kind::F64) {
    double x;
    std::memcpy(&x, row + f.off, 8);
    return x;
  }
  if (f.kind == Kind::U64) {
    std::uint64_t x;
    std::memcpy(&x, row + f.off, 8);
    return static_cast<double>(x);
  }
  if (f.kind == Kind::Str) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(get_i64(row, f));
}

std::string get_str(const unsigned char* row, const Field& f) {
  const char* p = reinterpret_cast<const char*>(row + f.off);
  std::size_t n = 0;
  while (n < f.size && p[n] != '\0') ++n;
  return std::string(p, n);
}

/// A row of fill values: NaN for floats, -1 for "id"/"scenario_id"/"job_id", 0 otherwise.
Rows fill_row(const Layout& l) {
  Rows r(l.size);
  unsigned char* row = r.add();
  for (const auto& f : l.fields) {
    if (f.kind == Kind::F64) put_f64(row, f, std::numeric_limits<double>::quiet_NaN());
    else if (f.name == "id" || f.name == "scenario_id" || f.name == "job_id") put_i64(row, f, -1);
  }
  return r;
}

// The fixed tables.
const Layout& metrics_layout() {
  static const Layout l = [] {
    Layout x;
    x.add("id", Kind::I64).add("status", Kind::I8);
    for (const auto& f : metric_fields(ScenarioMetrics{})) x.add(f.name, Kind::F64);
    return x;
  }();
  return l;
}
const Layout& errors_layout() {
  static const Layout l = [] {
    Layout x;
    x.add("id", Kind::I64).add("message", Kind::Str, kErrorWidth);
    return x;
  }();
  return l;
}
const Layout& jobs_layout() {
  static const Layout l = [] {
    Layout x;
    x.add("scenario_id", Kind::I64).add("job_id", Kind::I32).add("model", Kind::Str, kModelWidth);
    x.add("stages", Kind::I32).add("gpus_per_stage", Kind::I32).add("regions", Kind::Str, kRegionsWidth);
    for (const char* n : {"arrival_s", "start_s", "finish_s", "iterations", "mean_iteration_s",
                          "energy_j", "cost_usd"})
      x.add(n, Kind::F64);
    return x;
  }();
  return l;
}

// ---------------------------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------------------------

void attr_write(hid_t loc, const char* name, hid_t type, hid_t space, const void* buf,
                const std::string& path) {
  const std::string op = std::string("writing attribute '") + name + "'";
  Hid a = w_hid(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, path, op);
  w_check(H5Awrite(a.get(), type, buf), path, op);
}

Hid vlen_string_type(const std::string& path) {
  Hid t = w_hid(H5Tcopy(H5T_C_S1), H5Tclose, path, "creating a string type");
  w_check(H5Tset_size(t.get(), H5T_VARIABLE), path, "creating a string type");
  w_check(H5Tset_cset(t.get(), H5T_CSET_UTF8), path, "creating a string type");
  return t;
}

void attr_str(hid_t loc, const char* name, const std::string& v, const std::string& path) {
  Hid t = vlen_string_type(path);
  Hid s = w_hid(H5Screate(H5S_SCALAR), H5Sclose, path, "creating a dataspace");
  const char* p = v.c_str();
  attr_write(loc, name, t.get(), s.get(), &p, path);
}

void attr_strlist(hid_t loc, const char* name, const std::vector<std::string>& v, const std::string& path) {
  Hid t = vlen_string_type(path);
  const hsize_t n = v.size();
  Hid s = w_hid(H5Screate_simple(1, &n, nullptr), H5Sclose, path, "creating a dataspace");
  std::vector<const char*> ptrs;
  for (const auto& x : v) ptrs.push_back(x.c_str());
  const char* dummy = "";
  attr_write(loc, name, t.get(), s.get(), ptrs.empty() ? &dummy : ptrs.data(), path);
}

template <class T>
void attr_num(hid_t loc, const char* name, hid_t type, T v, const std::string& path) {
  Hid s = w_hid(H5Screate(H5S_SCALAR), H5Sclose, path, "creating a dataspace");
  attr_write(loc, name, type, s.get(), &v, path);
}

bool attr_exists(hid_t loc, const char* name) { return H5Aexists(loc, name) > 0; }

std::vector<std::string> attr_read_strings(hid_t loc, const char* name, const std::string& path) {
  const std::string op = std::string("read attribute '") + name + "'";
  Hid a = r_hid(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, path, op);
  Hid ft = r_hid(H5Aget_type(a.get()), H5Tclose, path, op);
  if (H5Tget_class(ft.get()) != H5T_STRING) not_geopipe(path, std::string("attribute '") + name + "' is not text");
  Hid sp = r_hid(H5Aget_space(a.get()), H5Sclose, path, op);
  const hssize_t np = H5Sget_simple_extent_npoints(sp.get());
  if (np < 0) read_fail(path, op);
  const auto n = static_cast<std::size_t>(np);
  std::vector<std::string> out;
  if (n == 0) return out;
  if (H5Tis_variable_str(ft.get()) > 0) {
    Hid mt = r_hid(H5Tcopy(H5T_C_S1), H5Tclose, path, op);
    r_check(H5Tset_size(mt.get(), H5T_VARIABLE), path, op);
    r_check(H5Tset_cset(mt.get(), H5Tget_cset(ft.get())), path, op);
    std::vector<char*> ptrs(n, nullptr);
    r_check(H5Aread(a.get(), mt.get(), ptrs.data()), path, op);
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(mt.get(), sp.get(), H5P_DEFAULT, ptrs.data());
  } else {
    const std::size_t sz = H5Tget_size(ft.get());
    Hid mt = r_hid(H5Tcopy(ft.get()), H5Tclose, path, op);
    std::vector<char> buf(n * sz + 1, '\0');
    r_check(H5Aread(a.get(), mt.get(), buf.data()), path, op);
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = buf.data() + i * sz;
      std::size_t len = 0;
      while (len < sz && p[len] != '\0') ++len;
      while (len > 0 && p[len - 1] == ' ') --len;
      out.emplace_back(p, len);
    }
  }
  return out;
}

std::string attr_read_str(hid_t loc, const char* name, const std::string& path) {
  if (!attr_exists(loc, name)) return "";
  auto v = attr_read_strings(loc, name, path);
  return v.empty() ? std::string() : v.front();
}

template <class T>
T attr_read_num(hid_t loc, const char* name, hid_t memtype, const std::string& path, T dflt) {
  if (!attr_exists(loc, name)) return dflt;
  const std::string op = std::string("read attribute '") + name + "'";
  Hid a = r_hid(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, path, op);
  Hid sp = r_hid(H5Aget_space(a.get()), H5Sclose, path, op);
  if (H5Sget_simple_extent_npoints(sp.get()) != 1) not_geopipe(path, op + ": not a single number");
  T v{};
  r_check(H5Aread(a.get(), memtype, &v), path, op);
  return v;
}

void write_meta(hid_t file, const StoreMeta& m, const std::string& path) {
  attr_num<std::int64_t>(file, "format_version", H5T_NATIVE_INT64, kFormatVersion, path);
  attr_str(file, "geopipe_version", m.geopipe_version, path);
  attr_str(file, "created_utc", m.created_utc, path);
  attr_str(file, "sweep_name", m.sweep_name, path);
  attr_str(file, "sweep_toml", m.sweep_toml, path);
  attr_str(file, "base_toml", m.base_toml, path);
  attr_str(file, "sweep_hash", m.sweep_hash, path);
  attr_str(file, "layout", m.layout, path);
  attr_num<std::uint64_t>(file, "num_scenarios", H5T_NATIVE_UINT64, m.num_scenarios, path);
  attr_num<std::uint64_t>(file, "total_scenarios", H5T_NATIVE_UINT64, m.total_scenarios, path);
  attr_str(file, "shard", m.shard, path);
  attr_strlist(file, "schedulers", m.schedulers, path);
  attr_strlist(file, "axes", m.axes, path);
  attr_num<std::int8_t>(file, "complete", H5T_NATIVE_INT8, m.complete ? 1 : 0, path);
}

StoreMeta read_meta(hid_t file, const std::string& path) {
  StoreMeta m;
  if (!attr_exists(file, "format_version")) not_geopipe(path, "no 'format_version' attribute");
  const auto fv = attr_read_num<std::int64_t>(file, "format_version", H5T_NATIVE_INT64, path, 0);
  if (fv < 1) not_geopipe(path, "bad format_version " + std::to_string(fv));
  if (fv > kFormatVersion)
    throw InputError(path, 0, 0,
                     "written by a newer geopipe (format_version " + std::to_string(fv) +
                         "; this build reads up to " + std::to_string(kFormatVersion) + ")");
  m.format_version = static_cast<int>(fv);
  if (!attr_exists(file, "sweep_hash")) not_geopipe(path, "no 'sweep_hash' attribute");
  m.geopipe_version = attr_read_str(file, "geopipe_version", path);
  m.created_utc = attr_read_str(file, "created_utc", path);
  m.sweep_name = attr_read_str(file, "sweep_name", path);
  m.sweep_toml = attr_read_str(file, "sweep_toml", path);
  m.base_toml = attr_read_str(file, "base_toml", path);
  m.sweep_hash = attr_read_str(file, "sweep_hash", path);
  m.layout = attr_read_str(file, "layout", path);
  m.num_scenarios = attr_read_num<std::uint64_t>(file, "num_scenarios", H5T_NATIVE_UINT64, path, 0);
  m.total_scenarios = attr_read_num<std::uint64_t>(file, "total_scenarios", H5T_NATIVE_UINT64, path, 0);
  m.shard = attr_read_str(file, "shard", path);
  if (attr_exists(file, "schedulers")) m.schedulers = attr_read_strings(file, "schedulers", path);
  if (attr_exists(file, "axes")) m.axes = attr_read_strings(file, "axes", path);
  m.complete = attr_read_num<std::int8_t>(file, "complete", H5T_NATIVE_INT8, path, 0) != 0;
  return m;
}

// ---------------------------------------------------------------------------------------------
// Datasets
// ---------------------------------------------------------------------------------------------

Hid create_table(hid_t file, const char* name, hid_t type, const Layout& l, hsize_t chunk,
                 const std::string& path) {
  const std::string op = std::string("creating /") + name;
  const hsize_t dims = 0, maxdims = H5S_UNLIMITED;
  Hid space = w_hid(H5Screate_simple(1, &dims, &maxdims), H5Sclose, path, op);
  Hid dcpl = w_hid(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, op);
  w_check(H5Pset_chunk(dcpl.get(), 1, &chunk), path, op);
  w_check(H5Pset_shuffle(dcpl.get()), path, op);
  w_check(H5Pset_deflate(dcpl.get(), kDeflateLevel), path, op);
  const Rows fill = fill_row(l);
  w_check(H5Pset_fill_value(dcpl.get(), type, fill.row(0)), path, op);
  w_check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_IFSET), path, op);
  return w_hid(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
               path, op);
}

/// Appends rows [first, first + n) of `rows` at the end of the dataset (`in_file` rows so far).
void write_rows(hid_t dset, hid_t type, hsize_t& in_file, const Rows& rows, std::size_t first,
                std::size_t n, const std::string& path, const std::string& name) {
  if (n == 0) return;
  const std::string op = "writing " + std::to_string(n) + " rows to /" + name;
  const hsize_t total = in_file + n;
  w_check(H5Dset_extent(dset, &total), path, op);
  Hid fspace = w_hid(H5Dget_space(dset), H5Sclose, path, op);
  const hsize_t start = in_file, count = n;
  w_check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), path, op);
  Hid mspace = w_hid(H5Screate_simple(1, &count, nullptr), H5Sclose, path, op);
  w_check(H5Dwrite(dset, type, mspace.get(), fspace.get(), H5P_DEFAULT, rows.row(first)), path, op);
  in_file = total;
}

hsize_t table_rows(hid_t dset, const std::string& path, const std::string& name) {
  Hid sp = r_hid(H5Dget_space(dset), H5Sclose, path, "read the size of /" + name);
  if (H5Sget_simple_extent_ndims(sp.get()) != 1) not_geopipe(path, "/" + name + " is not one-dimensional");
  hsize_t n = 0;
  if (H5Sget_simple_extent_dims(sp.get(), &n, nullptr) < 0) read_fail(path, "read the size of /" + name);
  return n;
}

/// Reads every row of a dataset with the given layout (converted by column name).
Rows read_table(hid_t dset, const Layout& l, const std::string& path, const std::string& name) {
  Rows r(l.size);
  const hsize_t n = table_rows(dset, path, name);
  r.n = static_cast<std::size_t>(n);
  r.data.assign(r.n * l.size, 0);
  if (n == 0) return r;
  Hid mt = make_type(l, path);
  r_check(H5Dread(dset, mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, r.data.data()), path, "read /" + name);
  return r;
}

/// Stable sort by key(row), then drop rows whose key equals the previous one.
template <class Key>
Rows sorted_unique(const Rows& in, Key key) {
  std::vector<std::size_t> idx(in.n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return key(in.row(a)) < key(in.row(b)); });
  Rows out(in.row_size);
  out.data.reserve(in.n * in.row_size);
  bool have_prev = false;
  decltype(key(in.row(0))) prev{};
  for (std::size_t i : idx) {
    const auto k = key(in.row(i));
    if (have_prev && k == prev) continue;
    have_prev = true;
    prev = k;
    std::memcpy(out.add(), in.row(i), in.row_size);
  }
  return out;
}

/// Reads rows [start, start + count) into `out` (resized) with the given memory type.
void read_block(hid_t dset, hid_t memtype, std::size_t row_size, hsize_t start, hsize_t count, Rows& out,
                const std::string& path, const std::string& name) {
  out.row_size = row_size;
  out.n = static_cast<std::size_t>(count);
  out.data.assign(out.n * row_size, 0);
  if (count == 0) return;
  const std::string op = "read /" + name;
  Hid fspace = r_hid(H5Dget_space(dset), H5Sclose, path, op);
  r_check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), path, op);
  Hid mspace = r_hid(H5Screate_simple(1, &count, nullptr), H5Sclose, path, op);
  r_check(H5Dread(dset, memtype, mspace.get(), fspace.get(), H5P_DEFAULT, out.data.data()), path, op);
}

// ---------------------------------------------------------------------------------------------
// Bounded-memory copying (resume, finalize, merge must not need memory proportional to the
// number of rows: a sweep can have millions of scenarios)
// ---------------------------------------------------------------------------------------------

constexpr hsize_t kBlockRows = 4096;                      ///< rows per read
constexpr std::size_t kSortBudgetBytes = 8u << 20;        ///< rows held for one sort pass
constexpr unsigned kBucketShift = 10;                     ///< id histogram: 1024 ids per bucket

/// One bit per scenario id.
class Bits {
 public:
  explicit Bits(std::uint64_t n = 0) : w_((n + 63) / 64, 0), n_(n) {}
  void set(std::uint64_t i) { w_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::uint64_t i) const { return i < n_ && (w_[i / 64] >> (i % 64)) & 1u; }
  std::uint64_t count() const {
    std::uint64_t c = 0;
    for (auto x : w_) c += static_cast<std::uint64_t>(__builtin_popcountll(x));
    return c;
  }

 private:
  std::vector<std::uint64_t> w_;
  std::uint64_t n_;
};

struct SrcTable {
  hid_t dset;
  hsize_t rows;
  const std::string* path;
  const char* name;
};

using Key = std::pair<std::int64_t, std::int64_t>;

/// Copies the valid rows of `srcs` (in that order) sorted by key, keeping the first row of
/// each key, to sink(const Rows&) (called with consecutive sorted runs). key(row).first must
/// be in [0, id_limit) for valid rows. Rows are collected in passes over id ranges of at most
/// ~kSortBudgetBytes; a pass reads only the blocks whose id range intersects it, so nearly
/// sorted tables (the usual case) are read about twice. Small tables: one read, one sort.
template <class KeyFn, class ValidFn, class SinkFn>
void sorted_copy(const std::vector<SrcTable>& srcs, const Layout& l, hid_t memtype, std::uint64_t id_limit,
                 KeyFn key, ValidFn valid, SinkFn sink) {
  const std::size_t budget_rows = std::max<std::size_t>(kSortBudgetBytes / l.size, kBlockRows);
  struct Block {
    std::size_t src;
    hsize_t start, count;
    std::int64_t lo, hi;
  };
  std::vector<Block> blocks;
  std::vector<std::uint64_t> hist((id_limit >> kBucketShift) + 1, 0);
  Rows buf(l.size), acc(l.size);
  bool spilled = false;
  hsize_t total_rows = 0;
  for (const auto& src : srcs) total_rows += src.rows;
  acc.data.reserve(static_cast<std::size_t>(std::min<hsize_t>(total_rows, budget_rows + 1)) * l.size);
  for (std::size_t s = 0; s < srcs.size(); ++s)
    for (hsize_t start = 0; start < srcs[s].rows; start += kBlockRows) {
      const hsize_t count = std::min<hsize_t>(kBlockRows, srcs[s].rows - start);
      read_block(srcs[s].dset, memtype, l.size, start, count, buf, *srcs[s].path, srcs[s].name);
      Block b{s, start, count, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
      for (std::size_t i = 0; i < buf.n; ++i) {
        const unsigned char* row = buf.row(i);
        if (!valid(row)) continue;
        const std::int64_t k = key(row).first;
        b.lo = std::min(b.lo, k);
        b.hi = std::max(b.hi, k);
        ++hist[static_cast<std::uint64_t>(k) >> kBucketShift];
        if (!spilled) {
          std::memcpy(acc.add(), row, l.size);
          if (acc.n > budget_rows) {
            spilled = true;
            acc = Rows(l.size);
          }
        }
      }
      if (b.lo <= b.hi) blocks.push_back(b);
    }
  // Sorts acc (stable, first row of each key kept) and hands it to sink in pieces.
  Rows out(l.size);
  std::vector<std::size_t> idx;
  auto emit = [&] {
    idx.resize(acc.n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return key(acc.row(a)) < key(acc.row(b)); });
    out.clear();
    for (std::size_t j = 0; j < idx.size(); ++j) {
      if (j > 0 && key(acc.row(idx[j])) == key(acc.row(idx[j - 1]))) continue;
      std::memcpy(out.add(), acc.row(idx[j]), l.size);
      if (out.n >= kBlockRows) {
        sink(static_cast<const Rows&>(out));
        out.clear();
      }
    }
    if (out.n > 0) sink(static_cast<const Rows&>(out));
    out.clear();
  };
  if (!spilled) {
    emit();
    return;
  }
  std::size_t cached = std::numeric_limits<std::size_t>::max();
  for (std::size_t b0 = 0; b0 < hist.size();) {
    std::size_t b1 = b0;
    std::uint64_t n = 0;
    while (b1 < hist.size() && (b1 == b0 || n + hist[b1] <= budget_rows)) n += hist[b1++];
    const auto lo = static_cast<std::int64_t>(b0 << kBucketShift);
    const auto hi = static_cast<std::int64_t>(b1 << kBucketShift);
    if (n > 0) {
      acc.clear();
      acc.data.reserve(static_cast<std::size_t>(n) * l.size);
      for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
        const Block& b = blocks[bi];
        if (b.hi < lo || b.lo >= hi) continue;
        if (cached != bi) {
          read_block(srcs[b.src].dset, memtype, l.size, b.start, b.count, buf, *srcs[b.src].path,
                     srcs[b.src].name);
          cached = bi;
        }
        for (std::size_t i = 0; i < buf.n; ++i) {
          const unsigned char* row = buf.row(i);
          if (!valid(row)) continue;
          const std::int64_t k = key(row).first;
          if (k >= lo && k < hi) std::memcpy(acc.add(), row, l.size);
        }
      }
      emit();
    }
    b0 = b1;
  }
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/// Makes sure `tmp` can be created (clear message for a missing or unwritable directory) and
/// removes a stale one left by a crash.
void prepare_tmp(const std::string& tmp, const std::string& path) {
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    const fs::path parent = fs::path(path).parent_path();
    throw InputError(path, 0, 0,
                     "cannot create '" + tmp + "' in directory '" +
                         (parent.empty() ? std::string(".") : parent.string()) + "': " + std::strerror(e));
  }
  ::close(fd);
}

void fsync_file(const std::string& p, const std::string& shown) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(shown + ": cannot sync the new file to disk: " + std::strerror(e));
  }
  ::close(fd);
}

void fsync_dir_of(const std::string& p) {  // best effort: makes the rename durable
  fs::path parent = fs::path(p).parent_path();
  if (parent.empty()) parent = ".";
  const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)::fsync(fd);
    ::close(fd);
  }
}

/// fsync(tmp), rename(tmp, path) (atomic), fsync(directory).
void commit(const std::string& tmp, const std::string& path) {
  fsync_file(tmp, path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    throw std::runtime_error(path + ": cannot rename '" + tmp + "' over it: " + std::strerror(e));
  }
  fsync_dir_of(path);
}

/// An open result file being written.
struct Writer {
  Hid file;  // declared first: destroyed last
  Hid scen, metrics, errors, jobs;
  Hid stype, mtype, etype, jtype;
  hsize_t s_rows = 0, m_rows = 0, e_rows = 0, j_rows = 0;

  /// Closes the datasets, then the file, reporting a failure of the final write.
  void close(const std::string& path) {
    scen.reset();
    metrics.reset();
    errors.reset();
    jobs.reset();
    stype.reset();
    mtype.reset();
    etype.reset();
    jtype.reset();
    if (file.valid() && file.close() < 0) write_fail(path, "closing the file");
  }
};

/// Creates `fpath` (truncating the placeholder) with empty tables. `shown` names it in messages.
Writer open_new(const std::string& fpath, const std::string& shown, const Layout& scen_layout,
                std::uint64_t scen_rows, bool has_jobs) {
  Writer w;
  Hid fapl = w_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, shown, "creating the file");
  w_check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), shown, "creating the file");
  w.file = w_hid(H5Fcreate(fpath.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose, shown,
                 "creating the file '" + fpath + "'");
  w.stype = make_type(scen_layout, shown);
  const hsize_t schunk = std::clamp<hsize_t>(scen_rows, 1, kScenarioChunk);
  w.scen = create_table(w.file.get(), "scenarios", w.stype.get(), scen_layout, schunk, shown);
  w.mtype = make_type(metrics_layout(), shown);
  w.metrics = create_table(w.file.get(), "metrics", w.mtype.get(), metrics_layout(), kMetricsChunk, shown);
  w.etype = make_type(errors_layout(), shown);
  w.errors = create_table(w.file.get(), "errors", w.etype.get(), errors_layout(), kErrorsChunk, shown);
  if (has_jobs) {
    w.jtype = make_type(jobs_layout(), shown);
    w.jobs = create_table(w.file.get(), "jobs", w.jtype.get(), jobs_layout(), kJobsChunk, shown);
  }
  return w;
}

/// Writes the root attributes; with `swmr`, switches to SWMR-write mode (nothing can be created
/// or changed in the file's structure afterwards). Flushes.
void finish_new(Writer& w, const StoreMeta& meta, bool swmr, const std::string& shown) {
  write_meta(w.file.get(), meta, shown);
  w.scen.reset();  // written once; not needed any more
  w.stype.reset();
  if (swmr) w_check(H5Fstart_swmr_write(w.file.get()), shown, "switching to SWMR-write mode");
  w_check(H5Fflush(w.file.get(), H5F_SCOPE_GLOBAL), shown, "flushing the file");
}

/// Builds a new file at `tmp` with build(tmp) -> Writer, then renames it over `path`. Closes it
/// first unless `keep_open`. On any failure removes tmp and rethrows: `path` is untouched.
template <class Build>
Writer produce(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open, Build build) {
  prepare_tmp(tmp, path);
  Writer w;
  try {
    w = build(tmp);
    if (!keep_open) w.close(path);
    if (must_not_exist && util::path_exists(path))
      throw InputError(path, 0, 0, "output file exists (it appeared while this one was being written)");
    commit(tmp, path);
  } catch (...) {
    try {
      w.close(path);
    } catch (...) {
    }
    ::unlink(tmp.c_str());
    throw;
  }
  return w;
}

/// Opens an existing file for reading. A file whose writer was killed in SWMR-write mode has
/// the "open for (SWMR) write" flags still set in its superblock: HDF5 1.10 then refuses a
/// plain read-only open ("file is already open for write") but accepts a SWMR-read open. A
/// file whose non-SWMR writer died is refused by both; the file-access property
/// "clear_status_flags" (what h5clear uses) makes a read-only open ignore the flags without
/// modifying the file.
Hid open_for_read(const std::string& path) {
  if (!util::path_exists(path)) throw InputError(path, 0, 0, "cannot open: no such file");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path, 0, 0, "cannot open: is a directory");
  if (::access(path.c_str(), R_OK) != 0) {
    const int e = errno;
    throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(e));
  }
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is == 0) not_geopipe(path, "not an HDF5 file");
  if (is < 0) read_fail(path, "open the file");
  Hid fapl = r_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "open the file");
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl.get());
  if (f < 0) {
    const std::string first = h5_error_stack();
    f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    if (f < 0) {
      H5Eclear2(H5E_DEFAULT);
      hbool_t clear = 1;
      if (H5Pexist(fapl.get(), "clear_status_flags") > 0 && H5Pset(fapl.get(), "clear_status_flags", &clear) >= 0)
        f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    }
    if (f < 0) {
      H5Eclear2(H5E_DEFAULT);
      throw InputError(path, 0, 0, "not a readable geopipe result file: cannot open it: " + first);
    }
  }
  return Hid(f, H5Fclose);
}

Hid open_table(hid_t file, const char* name, const std::string& path, bool required = true) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    if (required) not_geopipe(path, std::string("no /") + name + " table");
    return Hid();
  }
  return r_hid(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, path, std::string("open /") + name);
}

void require_layout(const Layout& have, const Layout& want, const std::string& path, const char* name) {
  if (!have.same_as(want))
    throw InputError(path, 0, 0,
                     std::string("/") + name +
                         " has different columns than this geopipe build writes (written by another "
                         "version?): file has [" + have.describe() + "], expected [" + want.describe() + "]");
}

/// An existing result file opened for copying its rows.
struct Input {
  std::string path;
  Hid file;
  StoreMeta meta;
  Layout scen_layout;
  Hid scen, metrics, errors, jobs;
  hsize_t n_scen = 0, n_metrics = 0, n_errors = 0, n_jobs = 0;
};

Input open_input(const std::string& path) {
  Input in;
  in.path = path;
  in.file = open_for_read(path);
  in.meta = read_meta(in.file.get(), path);
  in.scen = open_table(in.file.get(), "scenarios", path);
  in.scen_layout = layout_of(in.scen.get(), path, "scenarios");
  const Field* sid = in.scen_layout.find("id");
  if (!sid || sid->kind == Kind::Str || sid->kind == Kind::F64)
    not_geopipe(path, "/scenarios has no integer id column");
  in.metrics = open_table(in.file.get(), "metrics", path);
  require_layout(layout_of(in.metrics.get(), path, "metrics"), metrics_layout(), path, "metrics");
  in.errors = open_table(in.file.get(), "errors", path);
  require_layout(layout_of(in.errors.get(), path, "errors"), errors_layout(), path, "errors");
  in.jobs = open_table(in.file.get(), "jobs", path, false);
  if (in.jobs.valid()) require_layout(layout_of(in.jobs.get(), path, "jobs"), jobs_layout(), path, "jobs");
  in.n_scen = table_rows(in.scen.get(), path, "scenarios");
  in.n_metrics = table_rows(in.metrics.get(), path, "metrics");
  in.n_errors = table_rows(in.errors.get(), path, "errors");
  if (in.jobs.valid()) in.n_jobs = table_rows(in.jobs.get(), path, "jobs");
  return in;
}

enum class Rebuild { Resume, Finalize, Merge };

/// Writes at `tmp` a new file with the metadata of inputs[0] and every valid row of the inputs:
/// /scenarios merged by id (each input's is sorted; an id in two inputs is an error), /metrics
/// (status 1, id a scenario of the file), /errors (id a scenario) and /jobs (scenario with a
/// metrics row) sorted by id / (scenario_id, job_id), one row per key. Memory stays bounded.
/// `rows_out` = metrics + errors rows written.
Writer rebuild(const std::vector<std::string>& inputs, const std::string& tmp, const std::string& shown,
               Rebuild mode, const std::string& layout, std::uint64_t* rows_out) {
  std::vector<Input> ins;
  ins.reserve(inputs.size());
  bool has_jobs = false;
  std::uint64_t scen_rows = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ins.push_back(open_input(inputs[i]));
    const Input& in = ins.back();
    const Input& first = ins.front();
    if (in.meta.sweep_hash != first.meta.sweep_hash)
      throw InputError(in.path, 0, 0,
                       "sweep_hash " + in.meta.sweep_hash + " differs from " + first.meta.sweep_hash + " of '" +
                           first.path + "': not shards of the same sweep");
    if (!in.scen_layout.same_as(first.scen_layout) || in.meta.total_scenarios != first.meta.total_scenarios)
      throw InputError(in.path, 0, 0,
                       "/scenarios columns [" + in.scen_layout.describe() + "] or total_scenarios differ from '" +
                           first.path + "'");
    has_jobs = has_jobs || in.jobs.valid();
    scen_rows += in.n_scen;
  }
  StoreMeta meta = ins.front().meta;
  const std::uint64_t total = meta.total_scenarios;
  const Layout& sl = ins.front().scen_layout;
  const Field sid = sl.at("id");

  Writer w = open_new(tmp, shown, sl, scen_rows, has_jobs);

  // /scenarios: k-way merge of the inputs' sorted tables, streamed.
  Bits scen_bits(total), ok_bits(total), done_bits(total);
  {
    struct Cursor {
      Rows buf;
      std::size_t pos = 0;
      hsize_t next = 0;
      std::int64_t last = -1;
    };
    std::vector<Cursor> cur(ins.size());
    auto current = [&](std::size_t i) -> const unsigned char* {
      Cursor& c = cur[i];
      if (c.pos >= c.buf.n) {
        if (c.next >= ins[i].n_scen) return nullptr;
        const hsize_t count = std::min<hsize_t>(kBlockRows, ins[i].n_scen - c.next);
        read_block(ins[i].scen.get(), w.stype.get(), sl.size, c.next, count, c.buf, ins[i].path, "scenarios");
        c.next += count;
        c.pos = 0;
      }
      return c.buf.row(c.pos);
    };
    Rows out(sl.size);
    for (;;) {
      std::size_t best = ins.size();
      std::int64_t best_id = 0;
      for (std::size_t i = 0; i < ins.size(); ++i) {
        const unsigned char* r = current(i);
        if (!r) continue;
        const std::int64_t id = get_i64(r, sid);
        if (id <= cur[i].last)
          throw InputError(ins[i].path, 0, 0, "/scenarios is not sorted by id or repeats id " + std::to_string(id));
        if (id < 0 || static_cast<std::uint64_t>(id) >= total)
          throw InputError(ins[i].path, 0, 0,
                           "/scenarios has id " + std::to_string(id) + " outside [0, total_scenarios = " +
                               std::to_string(total) + ")");
        if (best < ins.size() && id == best_id)
          throw InputError(ins[i].path, 0, 0,
                           "scenario id " + std::to_string(id) + " is also in '" + ins[best].path +
                               "': overlapping shards (was a file given twice?)");
        if (best == ins.size() || id < best_id) {
          best = i;
          best_id = id;
        }
      }
      if (best == ins.size()) break;
      std::memcpy(out.add(), cur[best].buf.row(cur[best].pos), sl.size);
      cur[best].last = best_id;
      ++cur[best].pos;
      scen_bits.set(static_cast<std::uint64_t>(best_id));
      if (out.n >= kScenarioChunk) {
        write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
        out.clear();
      }
    }
    write_rows(w.scen.get(), w.stype.get(), w.s_rows, out, 0, out.n, shown, "scenarios");
  }

  auto in_range = [&](std::int64_t id) { return id >= 0 && static_cast<std::uint64_t>(id) < total; };
  std::uint64_t rows = 0;
  {
    const Field& mid = metrics_layout().at("id");
    const Field& mst = metrics_layout().at("status");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins) srcs.push_back({in.metrics.get(), in.n_metrics, &in.path, "metrics"});
    sorted_copy(
        srcs, metrics_layout(), w.mtype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, mid), 0); },
        [&](const unsigned char* r) {
          const std::int64_t id = get_i64(r, mid);
          return in_range(id) && get_i64(r, mst) == 1 && scen_bits.test(static_cast<std::uint64_t>(id));
        },
        [&](const Rows& sorted) {
          for (std::size_t i = 0; i < sorted.n; ++i) {
            ok_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), mid)));
            done_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), mid)));
          }
          write_rows(w.metrics.get(), w.mtype.get(), w.m_rows, sorted, 0, sorted.n, shown, "metrics");
          rows += sorted.n;
        });
  }
  {
    const Field& eid = errors_layout().at("id");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins) srcs.push_back({in.errors.get(), in.n_errors, &in.path, "errors"});
    sorted_copy(
        srcs, errors_layout(), w.etype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, eid), 0); },
        [&](const unsigned char* r) {
          const std::int64_t id = get_i64(r, eid);
          return in_range(id) && scen_bits.test(static_cast<std::uint64_t>(id));
        },
        [&](const Rows& sorted) {
          for (std::size_t i = 0; i < sorted.n; ++i)
            done_bits.set(static_cast<std::uint64_t>(get_i64(sorted.row(i), eid)));
          write_rows(w.errors.get(), w.etype.get(), w.e_rows, sorted, 0, sorted.n, shown, "errors");
          rows += sorted.n;
        });
  }
  if (has_jobs) {
    const Field& js = jobs_layout().at("scenario_id");
    const Field& jj = jobs_layout().at("job_id");
    std::vector<SrcTable> srcs;
    for (const Input& in : ins)
      if (in.jobs.valid()) srcs.push_back({in.jobs.get(), in.n_jobs, &in.path, "jobs"});
    sorted_copy(
        srcs, jobs_layout(), w.jtype.get(), total,
        [&](const unsigned char* r) { return Key(get_i64(r, js), get_i64(r, jj)); },
        [&](const unsigned char* r) {
          const std::int64_t s = get_i64(r, js);
          return in_range(s) && ok_bits.test(static_cast<std::uint64_t>(s));
        },
        [&](const Rows& sorted) {
          write_rows(w.jobs.get(), w.jtype.get(), w.j_rows, sorted, 0, sorted.n, shown, "jobs");
        });
  }
  ins.clear();  // close the inputs (resume and finalize replace one of them)

  meta.format_version = static_cast<int>(kFormatVersion);
  meta.num_scenarios = w.s_rows;
  switch (mode) {
    case Rebuild::Resume:
      meta.layout = layout;
      meta.complete = false;
      break;
    case Rebuild::Finalize: {
      // complete = every scenario of this file has a metrics or errors row.
      std::uint64_t covered = 0;
      for (std::uint64_t id = 0; id < total; ++id)
        if (scen_bits.test(id) && done_bits.test(id)) ++covered;
      meta.complete = covered == scen_bits.count();
      break;
    }
    case Rebuild::Merge:
      meta.shard = "";
      meta.complete = total > 0 && done_bits.count() == total;
      break;
  }
  finish_new(w, meta, mode == Rebuild::Resume, shown);
  if (rows_out) *rows_out = rows;
  return w;
}

/// Strips the quotes of a TOML string value ("a\"b" -> a"b, 'x' -> x); other values unchanged.
std::string toml_text_value(const std::string& t) {
  if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') return t.substr(1, t.size() - 2);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') {
    std::string out;
    for (std::size_t i = 1; i + 1 < t.size(); ++i) {
      char ch = t[i];
      if (ch == '\\' && i + 2 < t.size()) {
        const char nx = t[++i];
        switch (nx) {
          case 'n': ch = '\n'; break;
          case 't': ch = '\t'; break;
          case 'r': ch = '\r'; break;
          case '"': ch = '"'; break;
          case '\\': ch = '\\'; break;
          case 'u':
          case 'U': {
            const std::size_t nd = nx == 'u' ? 4 : 8;
            unsigned long cp = 0;
            std::size_t d = 0;
            for (; d < nd && i + 1 + d + 1 < t.size() && std::isxdigit(static_cast<unsigned char>(t[i + 1 + d])); ++d)
            {
              const char c = t[i + 1 + d];
              const int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
              cp = cp * 16 + static_cast<unsigned long>(v);
            }
            if (d != nd || cp > 0x10FFFF) {
              out += '\\';
              ch = nx;
              break;
            }
            i += nd;
            auto byte = [](unsigned long v) { return static_cast<char>(static_cast<unsigned char>(v)); };
            if (cp < 0x80) {
              out += byte(cp);
            } else if (cp < 0x800) {
              out += byte(0xC0 | (cp >> 6));
              out += byte(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
              out += byte(0xE0 | (cp >> 12));
              out += byte(0x80 | ((cp >> 6) & 0x3F));
              out += byte(0x80 | (cp & 0x3F));
            } else {
              out += byte(0xF0 | (cp >> 18));
              out += byte(0x80 | ((cp >> 12) & 0x3F));
              out += byte(0x80 | ((cp >> 6) & 0x3F));
              out += byte(0x80 | (cp & 0x3F));
            }
            continue;
          }
          default: out += '\\'; ch = nx; break;
        }
      }
      out += ch;
    }
    return out;
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ResultStore
// ---------------------------------------------------------------------------------------------

struct ResultStore::Impl {
  std::string path;
  Writer w;
  bool has_jobs = false;
  bool open = false;
  bool finalized = false;
  bool jobs_unflushed = false;  ///< /jobs rows written since the last H5Fflush
  bool dirty = false;           ///< rows written since the last H5Fflush
  Rows mbuf{metrics_layout().size}, ebuf{errors_layout().size}, jbuf{jobs_layout().size};
  std::uint64_t written = 0;

  void write_jobs() {
    if (jbuf.n == 0) return;
    write_rows(w.jobs.get(), w.jtype.get(), w.j_rows, jbuf, 0, jbuf.n, path, "jobs");
    jbuf.clear();
    jobs_unflushed = true;
    dirty = true;
  }

  void gflush() {
    w_check(H5Fflush(w.file.get(), H5F_SCOPE_GLOBAL), path, "flushing the file");
    jobs_unflushed = false;
    dirty = false;
  }

  /// Jobs rows first and flushed, then errors and metrics: a valid metrics row on disk implies
  /// that every jobs row of its scenario is on disk too.
  void flush() {
    write_jobs();
    if (jobs_unflushed && (mbuf.n > 0 || ebuf.n > 0)) gflush();
    if (ebuf.n > 0) {
      write_rows(w.errors.get(), w.etype.get(), w.e_rows, ebuf, 0, ebuf.n, path, "errors");
      ebuf.clear();
      dirty = true;
    }
    if (mbuf.n > 0) {
      write_rows(w.metrics.get(), w.mtype.get(), w.m_rows, mbuf, 0, mbuf.n, path, "metrics");
      mbuf.clear();
      dirty = true;
    }
    if (dirty) gflush();
  }

  void close() {
    open = false;
    w.close(path);
  }

  static std::unique_ptr<Impl> make(const std::string& path, Writer&& w, bool has_jobs, std::uint64_t written) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->w = std::move(w);
    impl->has_jobs = has_jobs;
    impl->open = true;
    impl->written = written;
    return impl;
  }
};

ResultStore::ResultStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ResultStore::~ResultStore() {
  if (!impl_) return;
  Lock lock;
  if (!impl_->open) return;
  try {
    impl_->flush();
  } catch (const std::exception& e) {
    std::cerr << "geopipe: " << e.what() << "\n";
  }
  try {
    impl_->close();
  } catch (const std::exception& e) {
    std::cerr << "geopipe: " << e.what() << "\n";
  }
}

std::unique_ptr<ResultStore> ResultStore::create(const std::string& path, const StoreMeta& meta,
                                                 const config::SweepSpec& spec, const Plan& plan, bool save_jobs) {
  Lock lock;
  if (util::path_exists(path))
    throw InputError(path, 0, 0, "output file exists (use --resume to continue it, or remove it)");
  if (plan.total() != spec.num_scenarios())
    throw std::invalid_argument("h5store: the plan does not match the sweep (" + std::to_string(plan.total()) +
                                " vs " + std::to_string(spec.num_scenarios()) + " scenarios)");

  StoreMeta m = meta;
  m.format_version = static_cast<int>(kFormatVersion);
  if (m.geopipe_version.empty()) m.geopipe_version = "unknown";
  if (m.created_utc.empty()) m.created_utc = util::utc_now_iso8601();
  if (m.sweep_name.empty()) m.sweep_name = spec.name;
  if (m.sweep_toml.empty()) m.sweep_toml = spec.text;
  if (m.base_toml.empty()) m.base_toml = spec.base_text;
  if (m.sweep_hash.empty()) m.sweep_hash = util::hex16(spec.hash);
  m.total_scenarios = plan.total();
  if (m.schedulers.empty()) m.schedulers = spec.schedulers;
  if (m.axes.empty())
    for (const auto& col : spec.columns) m.axes.push_back(col.param);
  m.complete = false;

  // /scenarios layout: string widths fit the longest value of the whole sweep (so that the
  // shards of one sweep have identical layouts).
  std::size_t sched_w = kSchedulerWidth;
  for (const auto& s : spec.schedulers) sched_w = std::max(sched_w, s.size());
  std::vector<std::size_t> text_w(spec.columns.size(), kTextWidth);
  for (const auto& p : spec.points)
    for (std::size_t k = 0; k < spec.columns.size() && k < p.text.size(); ++k)
      if (!spec.columns[k].numeric) text_w[k] = std::max(text_w[k], toml_text_value(p.text[k]).size());
  Layout sl;
  sl.add("id", Kind::I64).add("point", Kind::I64).add("seed", Kind::U64).add("scheduler", Kind::Str, sched_w);
  for (std::size_t k = 0; k < spec.columns.size(); ++k) {
    const auto& col = spec.columns[k];
    if (sl.find(col.param))
      throw std::invalid_argument("h5store: sweep column '" + col.param + "' clashes with a /scenarios column");
    if (col.numeric) sl.add(col.param, Kind::F64);
    else sl.add(col.param, Kind::Str, text_w[k]);
  }

  Writer w = produce(path + ".create-tmp", path, /*must_not_exist=*/true, /*keep_open=*/true,
                     [&](const std::string& tmp) {
    Writer nw = open_new(tmp, path, sl, plan.shard_total(), save_jobs);
    const Field& f_id = sl.at("id");
    const Field& f_point = sl.at("point");
    const Field& f_seed = sl.at("seed");
    const Field& f_sched = sl.at("scheduler");
    Rows rows(sl.size);
    for (std::uint64_t id = 0; id < plan.total(); ++id) {  // chunk by chunk: flat memory
      if (!plan.in_shard(id)) continue;
      const ScenarioKey k = plan.key(id);
      const auto& pt = spec.points[k.point];
      unsigned char* row = rows.add();
      put_i64(row, f_id, static_cast<std::int64_t>(id));
      put_i64(row, f_point, static_cast<std::int64_t>(k.point));
      put_u64(row, f_seed, spec.seeds[k.seed_index]);
      put_str(row, f_sched, spec.schedulers[k.scheduler_index]);
      for (std::size_t j = 0; j < spec.columns.size(); ++j) {
        const Field& f = sl.fields[4 + j];
        if (spec.columns[j].numeric)
          put_f64(row, f, j < pt.numeric.size() ? pt.numeric[j] : std::numeric_limits<double>::quiet_NaN());
        else
          put_str(row, f, j < pt.text.size() ? toml_text_value(pt.text[j]) : std::string());
      }
      if (rows.n >= kScenarioChunk) {
        write_rows(nw.scen.get(), nw.stype.get(), nw.s_rows, rows, 0, rows.n, path, "scenarios");
        rows.clear();
      }
    }
    write_rows(nw.scen.get(), nw.stype.get(), nw.s_rows, rows, 0, rows.n, path, "scenarios");
    m.num_scenarios = nw.s_rows;
    finish_new(nw, m, /*swmr=*/true, path);
    return nw;
  });
  return std::unique_ptr<ResultStore>(new ResultStore(Impl::make(path, std::move(w), save_jobs, 0)));
}

StoreContents ResultStore::read(const std::string& path) {
  Lock lock;
  Hid file = open_for_read(path);
  StoreContents out;
  out.meta = read_meta(file.get(), path);
  Hid scen = open_table(file.get(), "scenarios", path);
  Hid met = open_table(file.get(), "metrics", path);
  Hid err = open_table(file.get(), "errors", path);
  // Only id and status are read (HDF5 converts the selected columns by name), block by block.
  Layout ml;
  ml.add("id", Kind::I64).add("status", Kind::I8);
  const Layout have = layout_of(met.get(), path, "metrics");
  if (!have.find("id") || !have.find("status")) not_geopipe(path, "/metrics has no id/status columns");
  if (!layout_of(err.get(), path, "errors").find("id")) not_geopipe(path, "/errors has no id column");
  Layout el;
  el.add("id", Kind::I64);
  Hid mt = make_type(ml, path), et = make_type(el, path);
  Rows buf;
  const hsize_t nm = table_rows(met.get(), path, "metrics");
  for (hsize_t start = 0; start < nm; start += kBlockRows) {
    read_block(met.get(), mt.get(), ml.size, start, std::min<hsize_t>(kBlockRows, nm - start), buf, path, "metrics");
    for (std::size_t i = 0; i < buf.n; ++i) {
      const std::int64_t id = get_i64(buf.row(i), ml.fields[0]);
      if (id >= 0 && get_i64(buf.row(i), ml.fields[1]) == 1) out.done_ids.push_back(id);
    }
  }
  const hsize_t ne = table_rows(err.get(), path, "errors");
  for (hsize_t start = 0; start < ne; start += kBlockRows) {
    read_block(err.get(), et.get(), el.size, start, std::min<hsize_t>(kBlockRows, ne - start), buf, path, "errors");
    for (std::size_t i = 0; i < buf.n; ++i) {
      const std::int64_t id = get_i64(buf.row(i), el.fields[0]);
      if (id >= 0) out.done_ids.push_back(id);
    }
  }
  std::sort(out.done_ids.begin(), out.done_ids.end());
  out.done_ids.erase(std::unique(out.done_ids.begin(), out.done_ids.end()), out.done_ids.end());
  return out;
}

std::unique_ptr<ResultStore> ResultStore::resume(const std::string& path, const StoreContents& contents,
                                                 const std::string& layout) {
  Lock lock;
  bool has_jobs = false;
  {
    Input in = open_input(path);
    if (!contents.meta.sweep_hash.empty() && contents.meta.sweep_hash != in.meta.sweep_hash)
      throw InputError(path, 0, 0, "the file changed since it was read (sweep_hash " + in.meta.sweep_hash +
                                       ", expected " + contents.meta.sweep_hash + ")");
    has_jobs = in.jobs.valid();
  }
  std::uint64_t rows = 0;
  Writer w = produce(path + ".resume-tmp", path, /*must_not_exist=*/false, /*keep_open=*/true,
                     [&](const std::string& tmp) { return rebuild({path}, tmp, path, Rebuild::Resume, layout, &rows); });
  return std::unique_ptr<ResultStore>(new ResultStore(Impl::make(path, std::move(w), has_jobs, rows)));
}

void ResultStore::append(const ScenarioResult& r) {
  Lock lock;
  Impl& s = *impl_;
  if (!s.open) throw std::logic_error("ResultStore::append: the store is closed (" + s.path + ")");
  if (r.id < 0) throw std::invalid_argument("ResultStore::append: negative scenario id");
  if (r.ok) {
    const Layout& ml = metrics_layout();
    unsigned char* row = s.mbuf.add();
    put_i64(row, ml.fields[0], r.id);
    put_i64(row, ml.fields[1], 1);
    const auto fields = metric_fields(r.metrics);
    for (std::size_t i = 0; i < fields.size() && i + 2 < ml.fields.size(); ++i)
      put_f64(row, ml.fields[i + 2], fields[i].value);
    if (s.has_jobs) {
      const Layout& jl = jobs_layout();
      for (const JobRow& j : r.jobs) {
        unsigned char* jr = s.jbuf.add();
        std::size_t k = 0;
        put_i64(jr, jl.fields[k++], r.id);
        put_i64(jr, jl.fields[k++], j.job_id);
        put_str(jr, jl.fields[k++], j.model);
        put_i64(jr, jl.fields[k++], j.stages);
        put_i64(jr, jl.fields[k++], j.gpus_per_stage);
        put_str(jr, jl.fields[k++], j.regions);
        for (double v : {j.arrival_s, j.start_s, j.finish_s, j.iterations, j.mean_iteration_s, j.energy_j,
                         j.cost_usd})
          put_f64(jr, jl.fields[k++], v);
      }
    }
  } else {
    const Layout& el = errors_layout();
    unsigned char* row = s.ebuf.add();
    put_i64(row, el.fields[0], r.id);
    put_str(row, el.fields[1], r.error.empty() ? std::string("unknown error") : r.error);
  }
  ++s.written;
  if (s.mbuf.n >= kMetricsBatch || s.ebuf.n >= kErrorsBatch) s.flush();
  else if (s.jbuf.n >= kJobsBatch) s.write_jobs();
}

void ResultStore::flush() {
  Lock lock;
  if (impl_->open) impl_->flush();
}

void ResultStore::finalize() {
  Lock lock;
  Impl& s = *impl_;
  if (s.finalized) return;
  if (!s.open) throw std::logic_error("ResultStore::finalize: the store is closed (" + s.path + ")");
  s.flush();
  s.close();
  produce(s.path + ".final-tmp", s.path, /*must_not_exist=*/false, /*keep_open=*/false,
          [&](const std::string& tmp) { return rebuild({s.path}, tmp, s.path, Rebuild::Finalize, "", nullptr); });
  s.finalized = true;
}

std::uint64_t ResultStore::rows_written() const { return impl_->written; }

// ---------------------------------------------------------------------------------------------
// merge and read_joined
// ---------------------------------------------------------------------------------------------

void merge_stores(const std::vector<std::string>& inputs, const std::string& output) {
  Lock lock;
  if (inputs.empty()) throw InputError(output, 0, 0, "merge: no input files");
  if (util::path_exists(output)) throw InputError(output, 0, 0, "output file exists (remove it first)");
  for (const auto& in : inputs) (void)open_input(in);  // every input problem before creating anything
  produce(output + ".merge-tmp", output, /*must_not_exist=*/true, /*keep_open=*/false,
          [&](const std::string& tmp) { return rebuild(inputs, tmp, output, Rebuild::Merge, "", nullptr); });
}

Table read_joined(const std::string& path) {
  Lock lock;
  Hid file = open_for_read(path);
  (void)read_meta(file.get(), path);
  Hid scen = open_table(file.get(), "scenarios", path);
  Hid met = open_table(file.get(), "metrics", path);
  const Layout sl = layout_of(scen.get(), path, "scenarios");
  const Layout ml = layout_of(met.get(), path, "metrics");
  const Field* sid = sl.find("id");
  const Field* mid = ml.find("id");
  const Field* mst = ml.find("status");
  if (!sid || !mid || !mst) not_geopipe(path, "/scenarios or /metrics lacks the id/status columns");
  const Rows srows = sorted_unique(read_table(scen.get(), sl, path, "scenarios"),
                                   [&](const unsigned char* r) { return get_i64(r, *sid); });
  Rows mvalid(ml.size);
  {
    const Rows raw = read_table(met.get(), ml, path, "metrics");
    for (std::size_t i = 0; i < raw.n; ++i)
      if (get_i64(raw.row(i), *mid) >= 0 && get_i64(raw.row(i), *mst) == 1)
        std::memcpy(mvalid.add(), raw.row(i), raw.row_size);
  }
  const Rows mrows = sorted_unique(mvalid, [&](const unsigned char* r) { return get_i64(r, *mid); });

  Table t;
  std::vector<const Field*> snum, stext, mnum;
  for (const auto& f : sl.fields) {
    if (f.kind == Kind::Str) {
      stext.push_back(&f);
      t.text_names.push_back(f.name);
    } else {
      snum.push_back(&f);
      t.names.push_back(f.name);
    }
  }
  for (const auto& f : ml.fields) {
    if (&f == mid || &f == mst || f.kind == Kind::Str) continue;
    mnum.push_back(&f);
    t.names.push_back(f.name);
  }
  t.numeric.assign(t.names.size(), {});
  t.text.assign(t.text_names.size(), {});
  std::size_t m = 0;
  for (std::size_t i = 0; i < srows.n; ++i) {
    const std::int64_t id = get_i64(srows.row(i), *sid);
    while (m < mrows.n && get_i64(mrows.row(m), *mid) < id) ++m;
    if (m >= mrows.n || get_i64(mrows.row(m), *mid) != id) continue;
    std::size_t c = 0;
    for (const Field* f : snum) t.numeric[c++].push_back(get_f64(srows.row(i), *f));
    for (const Field* f : mnum) t.numeric[c++].push_back(get_f64(mrows.row(m), *f));
    for (std::size_t k = 0; k < stext.size(); ++k) t.text[k].push_back(get_str(srows.row(i), *stext[k]));
  }
  return t;
}

}  // namespace geopipe::sweep
