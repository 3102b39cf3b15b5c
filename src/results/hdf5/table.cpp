// Row layouts, packed rows and table I/O of the result store (see results/hdf5/table.h).
#include "results/hdf5/table.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "sim/metrics.h"
#include "util/hash.h"
#include "util/input_error.h"
#include "util/named_table.h"

namespace geopipe::sweep::h5 {

// ---------------------------------------------------------------------------------------------
// Row layouts
// ---------------------------------------------------------------------------------------------

Layout& Layout::add(std::string name, Kind k, std::size_t str_size) {
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

const Field* Layout::find(std::string_view name) const { return util::find_named(fields, name); }

const Field& Layout::at(std::string_view name) const {
  const Field* f = find(name);
  if (!f) throw std::logic_error("h5store: no field " + std::string(name));
  return *f;
}

bool Layout::same_as(const Layout& o) const {
  if (fields.size() != o.fields.size()) return false;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name != o.fields[i].name || fields[i].kind != o.fields[i].kind ||
        fields[i].size != o.fields[i].size)
      return false;
  return true;
}

bool Layout::same_columns_as(const Layout& o) const {
  if (fields.size() != o.fields.size()) return false;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name != o.fields[i].name || fields[i].kind != o.fields[i].kind ||
        (fields[i].kind != Kind::Str && fields[i].size != o.fields[i].size))
      return false;
  return true;
}

std::string Layout::describe() const {
  std::string s;
  for (const auto& f : fields) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

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

namespace {
/// A value of type T at the field's offset (rows are packed: no alignment).
template <class T>
T load(const unsigned char* row, const Field& f) {
  T x;
  std::memcpy(&x, row + f.off, sizeof x);
  return x;
}
template <class T>
void store(unsigned char* row, const Field& f, T x) {
  std::memcpy(row + f.off, &x, sizeof x);
}
}  // namespace

void put_i64(unsigned char* row, const Field& f, std::int64_t v) {
  switch (f.kind) {
    case Kind::I8: store(row, f, static_cast<std::int8_t>(v)); break;
    case Kind::I32: store(row, f, static_cast<std::int32_t>(v)); break;
    case Kind::I64: store(row, f, v); break;
    case Kind::U64: store(row, f, static_cast<std::uint64_t>(v)); break;
    case Kind::F64: store(row, f, static_cast<double>(v)); break;
    case Kind::Str: break;
  }
}

void put_u64(unsigned char* row, const Field& f, std::uint64_t v) {
  if (f.kind == Kind::U64) store(row, f, v);
  else put_i64(row, f, static_cast<std::int64_t>(v));
}

void put_f64(unsigned char* row, const Field& f, double v) {
  if (f.kind == Kind::F64) store(row, f, v);
  else put_i64(row, f, static_cast<std::int64_t>(v));
}

/// Copies at most f.size bytes, cut at a UTF-8 character boundary; the rest is NUL padding.
void put_str(unsigned char* row, const Field& f, const std::string& s) {
  // A text longer than its column is never cut silently: wide columns (/errors messages,
  // /jobs regions) keep its start and end around " ... (N bytes omitted) ... ".
  const std::string shown = s.size() > f.size && f.size >= kMinMarkedWidth ? util::shortened_text(s, f.size) : s;
  std::size_t n = std::min(shown.size(), f.size);
  if (n < shown.size())
    while (n > 0 && (static_cast<unsigned char>(shown[n]) & 0xC0) == 0x80) --n;
  std::memset(row + f.off, 0, f.size);
  std::memcpy(row + f.off, shown.data(), n);
}

std::int64_t get_i64(const unsigned char* row, const Field& f) {
  switch (f.kind) {
    case Kind::I8: return load<std::int8_t>(row, f);
    case Kind::I32: return load<std::int32_t>(row, f);
    case Kind::I64: return load<std::int64_t>(row, f);
    case Kind::U64: return static_cast<std::int64_t>(load<std::uint64_t>(row, f));
    case Kind::F64: return static_cast<std::int64_t>(load<double>(row, f));
    case Kind::Str: break;
  }
  return 0;
}

double get_f64(const unsigned char* row, const Field& f) {
  if (f.kind == Kind::F64) return load<double>(row, f);
  if (f.kind == Kind::U64) return static_cast<double>(load<std::uint64_t>(row, f));
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
bool is_format9_column(std::string_view column) {
  return column == "p99_queue_delay_s" || column == "avg_ftf_rho" || column == "max_ftf_rho" ||
         column == "unfair_fraction" || column == "jain_fairness" || column == "isolated_jct_s" || column == "ftf_rho";
}

bool is_format10_column(std::string_view column) { return column == "jct_lower_bound_s"; }

bool is_unrecorded_before_added(std::string_view column) {
  return is_format9_column(column) || is_format10_column(column);
}

int format_adding_column(std::string_view column) {
  if (column == "electricity_cost_usd" || column == "egress_cost_usd" || column == "sched_partition_misses" ||
      column == "layers")
    return 5;
  if (column == "value") return 6;
  if (column == "sync_bytes" || column == "sync_fraction" || column == "data_parallel") return 7;
  if (column == "failures" || column == "preemptions" || column == "restarts" || column == "lost_gpu_hours" ||
      column == "checkpoint_gpu_hours" || column == "goodput")
    return 8;
  if (is_format9_column(column)) return 9;
  if (is_format10_column(column)) return 10;
  return 3;
}

Layout columns_of_format(const Layout& l, int format) {
  Layout x;
  for (const Field& f : l.fields)
    if (format_adding_column(f.name) <= format) x.add(f.name, f.kind, f.kind == Kind::Str ? f.size : 0);
  return x;
}

void fill_columns_since(unsigned char* row, const Layout& l, int format, MetricSource evaluator) {
  if (format < 5) {
    const Field* total = l.find("total_cost_usd");
    if (!total) total = l.find("cost_usd");
    if (const Field* f = l.find("electricity_cost_usd"); f && total) put_f64(row, *f, get_f64(row, *total));
    if (const Field* f = l.find("egress_cost_usd")) put_f64(row, *f, 0.0);
    if (const Field* f = l.find("sched_partition_misses")) put_f64(row, *f, 0.0);
    if (const Field* f = l.find("layers")) std::memset(row + f->off, 0, f->size);
  }
  if (format < 7) {  // before data parallelism: one replica, no synchronisation
    if (const Field* f = l.find("data_parallel")) put_i64(row, *f, 1);
    if (const Field* f = l.find("sync_bytes")) put_f64(row, *f, 0.0);
    if (const Field* f = l.find("sync_fraction")) put_f64(row, *f, 0.0);
  }
  if (format < 8) {  // before failures and checkpoints: nothing failed, every GPU-hour was useful
    for (const char* c : {"failures", "preemptions", "restarts"})
      if (const Field* f = l.find(c)) put_i64(row, *f, 0);
    for (const char* c : {"lost_gpu_hours", "checkpoint_gpu_hours"})
      if (const Field* f = l.find(c)) put_f64(row, *f, 0.0);
    if (const Field* f = l.find("goodput")) put_f64(row, *f, evaluator == MetricSource::kSimulation ? 1.0 : 0.0);
  }
  if (format < 9) {  // before fairness: not recorded (NaN) in a simulation's rows
    const double v = evaluator == MetricSource::kSimulation ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    for (const Field& f : l.fields)
      if (is_format9_column(f.name)) put_f64(row, f, v);
  }
  if (format < 10) {  // before the lower bound on the mean JCT: not recorded (NaN), as format 9's
    const double v = evaluator == MetricSource::kSimulation ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    for (const Field& f : l.fields)
      if (is_format10_column(f.name)) put_f64(row, f, v);
  }
  if (format < 6) {
    if (const Field* f = l.find("value")) {
      const Field* jct = l.find("avg_jct_s");
      if (evaluator == MetricSource::kTestFunction && jct) {
        put_f64(row, *f, get_f64(row, *jct));
        put_f64(row, *jct, 0.0);
      } else {
        put_f64(row, *f, 0.0);
      }
    }
  }
}

const Layout& errors_layout() {
  static const Layout l = [] {
    Layout x;
    x.add("id", Kind::I64).add("message", Kind::Str, kErrorWidth);
    return x;
  }();
  return l;
}
namespace {
/// FNV-1a 64 of `n` bytes, continuing from `h`.
std::uint64_t fnv1a(std::uint64_t h, const void* p, std::size_t n) {
  return util::fnv1a64(std::string_view(static_cast<const char*>(p), n), h);
}
constexpr std::uint64_t kFnvBasis = util::kFnv1a64Basis;
/// The shortest text that reads back as `v`.
std::string fmt_double(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
}  // namespace

double number_of(const std::string& text) {
  if (text.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() ? v : std::numeric_limits<double>::quiet_NaN();
}

std::string metrics_difference(const unsigned char* a, const unsigned char* b) {
  const auto& defs = metric_defs();
  const Layout& l = metrics_layout();
  for (std::size_t k = 0; k < defs.size(); ++k) {
    if (!defs[k].deterministic) continue;
    const Field& f = l.fields[2 + k];
    // A row of a file before format 9 (10) does not record the fairness columns (the bound):
    // NaN, which agrees with any value there (the rest of the row is the same simulation's).
    if (is_unrecorded_before_added(f.name) && (std::isnan(get_f64(a, f)) || std::isnan(get_f64(b, f)))) continue;
    if (std::memcmp(a + f.off, b + f.off, f.size) != 0)
      return std::string(defs[k].name) + " = " + fmt_double(get_f64(a, f)) + " vs " + fmt_double(get_f64(b, f));
  }
  return "";
}

std::uint64_t metrics_digest(const unsigned char* row) {
  const auto& defs = metric_defs();
  const Layout& l = metrics_layout();
  std::uint64_t h = fnv1a(kFnvBasis, "m", 1);
  for (std::size_t k = 0; k < defs.size(); ++k)
    if (defs[k].deterministic && !is_unrecorded_before_added(defs[k].name))  // as metrics_difference: see there
      h = fnv1a(h, row + l.fields[2 + k].off, l.fields[2 + k].size);
  return h;
}

std::uint64_t error_digest(const unsigned char* row) {
  const std::string msg = get_str(row, errors_layout().at("message"));
  return fnv1a(fnv1a(kFnvBasis, "e", 1), msg.data(), msg.size());
}

Layout jobs_layout(const JobTextBytes& text) {
  Layout x;
  x.add("scenario_id", Kind::I64);
  const JobRow columns{};
  for_each_job_column(columns, [&](const char* name, const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      const std::string_view n = name;
      if (n != "regions" && n != "model" && n != "layers")
        throw std::logic_error("h5store: no width for the /jobs text column " + std::string(n) +
                               " (add it to JobTextBytes, sim/job_row.h)");
      x.add(name, Kind::Str,
            std::max<std::size_t>(1, n == "regions" ? text.regions : n == "layers" ? text.layers : text.model));
    } else if constexpr (std::is_same_v<T, double>) {
      x.add(name, Kind::F64);
    } else {
      static_assert(std::is_same_v<T, std::int32_t>, "job columns are int32, double or text");
      x.add(name, Kind::I32);
    }
  });
  return x;
}

JobTextBytes job_text_of(const Layout& jobs) {
  JobTextBytes t;
  if (const Field* f = jobs.find("model"); f && f->kind == Kind::Str) t.model = f->size;
  if (const Field* f = jobs.find("regions"); f && f->kind == Kind::Str) t.regions = f->size;
  if (const Field* f = jobs.find("layers"); f && f->kind == Kind::Str) t.layers = f->size;
  return t;
}

void put_job_row(unsigned char* row, const Layout& l, std::int64_t scenario_id, const JobRow& j) {
  std::size_t k = 0;
  put_i64(row, l.fields[k++], scenario_id);
  for_each_job_column(j, [&](const char* name, const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      const Field& f = l.fields[k++];
      // The widths come from job_text_bytes() of every point: a longer text is a wrong bound.
      if (v.size() > f.size)
        throw std::logic_error("h5store: /jobs " + std::string(name) + " of scenario " + std::to_string(scenario_id) +
                               " is " + std::to_string(v.size()) + " bytes, the column " + std::to_string(f.size) +
                               " (job_text_bytes, sim/job_row.cpp, is too small)");
      put_str(row, f, v);
    }
    else if constexpr (std::is_same_v<T, double>) put_f64(row, l.fields[k++], v);
    else put_i64(row, l.fields[k++], v);
  });
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
  // No modification times in the object headers (HDF5 records them by default): a file's bytes
  // are a function of its contents, so a rebuild of a complete file equals it byte for byte
  // whenever it is made (sweep.cli_rules checks it; with times it failed across a second).
  w_check(H5Pset_obj_track_times(dcpl.get(), 0), path, op);
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

hsize_t chunk_rows(hid_t dset, const std::string& path, const std::string& name) {
  const std::string op = "read the chunk size of /" + name;
  Hid dcpl = r_hid(H5Dget_create_plist(dset), H5Pclose, path, op);
  hsize_t rows = 0;
  if (H5Pget_chunk(dcpl.get(), 1, &rows) != 1 || rows == 0) not_geopipe(path, "/" + name + " is not chunked by rows");
  return rows;
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

}  // namespace geopipe::sweep::h5
