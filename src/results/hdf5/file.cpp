// Result files of the store: metadata, tmp+fsync+rename production, opening for reading
// (see results/hdf5/file.h).
//
// Files at the final path are only ever produced by rename(): create(), resume(), finalize()
// and merge_stores() write "<path>.<what>-tmp" and rename it over the destination once it is
// complete (create/resume: in SWMR-write mode, so it stays readable after a kill -9). So a file
// at `path` is always either a SWMR file with every dataset in place or a complete final file.
#include "results/hdf5/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <vector>

#include "analysis/test_functions.h"
#include "util/input_error.h"
#include "util/system.h"

namespace geopipe::sweep::h5 {
namespace {

namespace fs = std::filesystem;

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
  const std::size_t fixed = H5Tis_variable_str(ft.get()) > 0 ? sizeof(char*) : H5Tget_size(ft.get());
  if (n > kMaxListEntries || fixed == 0 || fixed > kMaxStringBytes)
    not_geopipe(path, std::string("attribute '") + name + "' has " + std::to_string(n) + " entries of " +
                          std::to_string(fixed) + " bytes (expected at most " + std::to_string(kMaxListEntries) +
                          " entries of at most " + std::to_string(kMaxStringBytes) + " bytes)");
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

// ---------------------------------------------------------------------------------------------
// Temporary files and commit by rename
// ---------------------------------------------------------------------------------------------

}  // namespace

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

namespace {

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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------------------------

void write_meta(hid_t file, const StoreMeta& m, const std::string& path) {
  if (m.format_version < 3 || m.format_version > kFormatVersion)
    throw std::logic_error("h5store: cannot write a file of format version " + std::to_string(m.format_version));
  attr_num<std::int64_t>(file, "format_version", H5T_NATIVE_INT64, m.format_version, path);
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
  attr_num<std::int64_t>(file, "model_version", H5T_NATIVE_INT64, m.model_version, path);
  if (m.format_version >= 4) {
    attr_num<std::int8_t>(file, "collection", H5T_NATIVE_INT8, m.collection ? 1 : 0, path);
    attr_str(file, "design", m.design, path);
  }
  if (m.format_version >= 6) attr_str(file, "evaluator", m.evaluator, path);
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
  if (fv >= 3) {
    if (!attr_exists(file, "model_version")) not_geopipe(path, "no 'model_version' attribute");
    const auto mv = attr_read_num<std::int64_t>(file, "model_version", H5T_NATIVE_INT64, path, 0);
    if (mv < 1 || mv > std::numeric_limits<int>::max()) not_geopipe(path, "bad model_version " + std::to_string(mv));
    m.model_version = static_cast<int>(mv);
  }
  if (fv >= 4) {
    if (!attr_exists(file, "collection")) not_geopipe(path, "no 'collection' attribute");
    m.collection = attr_read_num<std::int8_t>(file, "collection", H5T_NATIVE_INT8, path, 0) != 0;
    if (!attr_exists(file, "design")) not_geopipe(path, "no 'design' attribute");
    m.design = attr_read_str(file, "design", path);
  }
  if (fv >= 6) {
    if (!attr_exists(file, "evaluator")) not_geopipe(path, "no 'evaluator' attribute");
    m.evaluator = attr_read_str(file, "evaluator", path);
    if (m.evaluator != metric_source_name(MetricSource::kSimulation) &&
        m.evaluator != metric_source_name(MetricSource::kTestFunction))
      not_geopipe(path, "unknown evaluator '" + m.evaluator + "'");
  } else {
    // Before format 6 a test function's value was stored as avg_jct_s, the function's name as
    // the scheduler: such a file is read as of the function (its values as `value`, read.cpp).
    bool all_functions = !m.schedulers.empty();
    for (const auto& s : m.schedulers) all_functions &= analysis::test_function_kind(s).has_value();
    m.evaluator = metric_source_name(all_functions ? MetricSource::kTestFunction : MetricSource::kSimulation);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

void Writer::close(const std::string& path) {
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

void Writer::abandon() {
  for (Hid* h : {&scen, &metrics, &errors, &jobs, &stype, &mtype, &etype, &jtype, &file}) h->abandon();
}

/// Creates `fpath` (truncating the placeholder) with empty tables. `shown` names it in messages.
namespace {

/// Creates `fpath` (truncating it) as every result file is made: HDF5's latest format, no
/// modification times; with `in_memory`, in memory only.
Hid create_file(const std::string& fpath, const std::string& shown, bool in_memory) {
  Hid fapl = w_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, shown, "creating the file");
  w_check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), shown, "creating the file");
  // The in-memory file grows by 64 KiB: its structure takes a few KiB, and every page of a larger
  // increment is zeroed (faulted in) by HDF5 whether or not it is written (1 MiB: ~120 more
  // page faults, ~1-2 ms of every sweep here; docs/performance.md, "Sweep overhead").
  if (in_memory) w_check(H5Pset_fapl_core(fapl.get(), 64 << 10, /*backing_store=*/0), shown, "creating the file in memory");
  // No modification times in the root group's header either (create_table: the datasets').
  Hid fcpl = w_hid(H5Pcreate(H5P_FILE_CREATE), H5Pclose, shown, "creating the file");
  w_check(H5Pset_obj_track_times(fcpl.get(), 0), shown, "creating the file");
  return w_hid(H5Fcreate(fpath.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose, shown,
               "creating the file '" + fpath + "'");
}

}  // namespace

Writer open_new(const std::string& fpath, const std::string& shown, const Layout& scen_layout,
                std::uint64_t scen_rows, const std::optional<JobTextBytes>& jobs, bool in_memory) {
  Writer w;
  w.file = create_file(fpath, shown, in_memory);
  w.stype = make_type(scen_layout, shown);
  const hsize_t schunk = std::clamp<hsize_t>(scen_rows, 1, kScenarioChunk);
  w.scen = create_table(w.file.get(), "scenarios", w.stype.get(), scen_layout, schunk, shown);
  w.mtype = make_type(metrics_layout(), shown);
  // A scenario has at most one /metrics or /errors row, so a file of fewer scenarios than a
  // chunk holds gets chunks of its size: a whole chunk is zeroed, filled and compressed when it
  // is written, which for a one-scenario sweep was a fifth of its instructions.
  w.metrics = create_table(w.file.get(), "metrics", w.mtype.get(), metrics_layout(),
                           std::clamp<hsize_t>(scen_rows, 1, kMetricsChunk), shown);
  w.etype = make_type(errors_layout(), shown);
  w.errors = create_table(w.file.get(), "errors", w.etype.get(), errors_layout(),
                          std::clamp<hsize_t>(scen_rows, 1, kErrorsChunk), shown);
  if (jobs) {
    w.jlayout = jobs_layout(*jobs);
    w.jtype = make_type(w.jlayout, shown);
    w.jobs = create_table(w.file.get(), "jobs", w.jtype.get(), w.jlayout, kJobsChunk, shown);
  }
  return w;
}

Layout parameters_layout(const std::vector<ParamRow>& rows) {
  std::size_t wp = 1, wv = 1, wc = 1;
  for (const ParamRow& r : rows) {
    wp = std::max(wp, r.path.size());
    wv = std::max(wv, r.value.size());
    wc = std::max(wc, r.column.size());
  }
  Layout l;
  l.add("path", Kind::Str, wp).add("value", Kind::Str, wv).add("column", Kind::Str, wc);
  return l;
}

void write_parameters(Writer& w, const std::vector<ParamRow>& rows, const std::string& shown) {
  const Layout l = parameters_layout(rows);
  Hid type = make_type(l, shown);
  Hid dset = create_table(w.file.get(), "parameters", type.get(), l,
                          std::clamp<hsize_t>(rows.size(), 1, kParametersChunk), shown);
  Rows out(l.size);
  for (const ParamRow& r : rows) {
    unsigned char* row = out.add();
    put_str(row, l.at("path"), r.path);
    put_str(row, l.at("value"), r.value);
    put_str(row, l.at("column"), r.column);
  }
  hsize_t n = 0;
  write_rows(dset.get(), type.get(), n, out, 0, out.n, shown, "parameters");
}

void write_design(Writer& w, const std::vector<std::string>& factors, const std::vector<double>& unit,
                  const std::string& shown) {
  if (factors.empty()) return;
  Layout l;
  l.add("point", Kind::I64);
  for (const auto& f : factors) l.add(f, Kind::F64);
  const std::size_t rows = unit.size() / factors.size();
  Hid type = make_type(l, shown);
  Hid dset = create_table(w.file.get(), "design", type.get(), l, std::clamp<hsize_t>(rows, 1, kScenarioChunk), shown);
  Rows out(l.size);
  hsize_t n = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    unsigned char* row = out.add();
    put_i64(row, l.fields[0], static_cast<std::int64_t>(i));
    for (std::size_t j = 0; j < factors.size(); ++j) put_f64(row, l.fields[1 + j], unit[i * factors.size() + j]);
    if (out.n >= kBlockRows) {
      write_rows(dset.get(), type.get(), n, out, 0, out.n, shown, "design");
      out.clear();
    }
  }
  write_rows(dset.get(), type.get(), n, out, 0, out.n, shown, "design");
}

void copy_design(const Input& from, Writer& w, const std::string& shown) {
  if (!from.design.valid()) return;
  const Layout& l = from.design_layout;
  Hid type = make_type(l, shown);
  Hid dset = create_table(w.file.get(), "design", type.get(), l, std::clamp<hsize_t>(from.n_design, 1, kScenarioChunk), shown);
  hsize_t n = 0;
  Rows buf(l.size);
  for (hsize_t start = 0; start < from.n_design; start += kBlockRows) {
    const hsize_t count = std::min<hsize_t>(kBlockRows, from.n_design - start);
    read_block(from.design.get(), type.get(), l.size, start, count, buf, from.path, "design");
    write_rows(dset.get(), type.get(), n, buf, 0, buf.n, shown, "design");
  }
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

Writer copy_marked_complete(const std::string& from, const std::string& tmp, const std::string& shown) {
  std::error_code ec;
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) throw std::runtime_error(shown + ": cannot copy '" + from + "' to '" + tmp + "': " + ec.message());
  const std::string op = "marking the file complete";
  Writer w;
  Hid fapl = w_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, shown, op);
  w_check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), shown, op);
  w.file = w_hid(H5Fopen(tmp.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, shown, op);
  Hid a = w_hid(H5Aopen(w.file.get(), "complete", H5P_DEFAULT), H5Aclose, shown, op);
  const std::int8_t one = 1;
  w_check(H5Awrite(a.get(), H5T_NATIVE_INT8, &one), shown, op);
  return w;
}

namespace {

/// Copies the table `name` of `src` into the new file `dst` as it is stored: created with the
/// source's type, extent and creation properties (chunks, filters, fill value, no times), each
/// allocated chunk read and written as its compressed bytes (H5Dread_chunk / H5Dwrite_chunk:
/// no inflate, no deflate). Only the chunks the table points to are copied, so the space of
/// earlier copies of a chunk rewritten while appending stays behind.
void copy_table_stored(hid_t src, hid_t dst, const char* name, const std::string& from, const std::string& shown) {
  const std::string op = std::string("copying /") + name;
  Hid in = r_hid(H5Dopen2(src, name, H5P_DEFAULT), H5Dclose, from, op);
  H5O_info_t info;
  r_check(H5Oget_info2(in.get(), &info, H5O_INFO_NUM_ATTRS), from, op);
  if (info.num_attrs != 0)  // the store writes none; copying would need their types
    throw std::logic_error(from + ": /" + std::string(name) + " has attributes, which a stored copy does not copy");
  Hid type = r_hid(H5Dget_type(in.get()), H5Tclose, from, op);
  Hid dcpl = r_hid(H5Dget_create_plist(in.get()), H5Pclose, from, op);
  Hid space = r_hid(H5Dget_space(in.get()), H5Sclose, from, op);
  if (H5Sget_simple_extent_ndims(space.get()) != 1 || H5Pget_layout(dcpl.get()) != H5D_CHUNKED)
    throw std::logic_error(from + ": /" + std::string(name) + " is not a chunked table of one dimension");
  hsize_t rows = 0, chunk = 0;
  r_check(H5Sget_simple_extent_dims(space.get(), &rows, nullptr), from, op);
  if (H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk == 0)
    throw std::logic_error(from + ": /" + std::string(name) + " has no chunk size");
  Hid out = w_hid(H5Dcreate2(dst, name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
                  shown, op);
  std::vector<unsigned char> buf;
  for (hsize_t at = 0; at < rows; at += chunk) {
    hsize_t bytes = 0;
    r_check(H5Dget_chunk_storage_size(in.get(), &at, &bytes), from, op);
    if (bytes == 0) continue;  // never written: reads as fill values in both files
    buf.resize(bytes);
    std::uint32_t filters = 0;
    r_check(H5Dread_chunk(in.get(), H5P_DEFAULT, &at, &filters, buf.data()), from, op);
    w_check(H5Dwrite_chunk(out.get(), H5P_DEFAULT, filters, &at, bytes, buf.data()), shown, op);
  }
}

}  // namespace

Writer compact_marked_complete(const std::string& from, const std::string& tmp, const std::string& shown) {
  const std::string op = "compacting the file";
  Hid fapl = r_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, from, op);
  r_check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), from, op);
  Hid src = r_hid(H5Fopen(from.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose, from, op);
  StoreMeta meta = read_meta(src.get(), from);
  meta.complete = true;
  Writer w;
  w.file = create_file(tmp, shown, /*in_memory=*/false);
  // In the order open_new, write_parameters and write_design create them.
  for (const char* name : {"scenarios", "metrics", "errors", "jobs", "parameters", "design"})
    if (H5Lexists(src.get(), name, H5P_DEFAULT) > 0) copy_table_stored(src.get(), w.file.get(), name, from, shown);
  write_meta(w.file.get(), meta, shown);
  w_check(H5Fflush(w.file.get(), H5F_SCOPE_GLOBAL), shown, "flushing the file");
  return w;
}

Writer produce(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open,
               const std::function<Writer(const std::string&)>& build) {
  prepare_tmp(tmp, path);
  return produce_prepared(tmp, path, must_not_exist, keep_open, build);
}

Writer produce_prepared(const std::string& tmp, const std::string& path, bool must_not_exist, bool keep_open,
                        const std::function<Writer(const std::string&)>& build) {
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

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Opens an existing file for reading. A file whose writer was killed in SWMR-write mode has
/// the "open for (SWMR) write" flags still set in its superblock: HDF5 1.10 then refuses a
/// plain read-only open ("file is already open for write") but accepts a SWMR-read open. A
/// file whose non-SWMR writer died is refused by both; the file-access property
/// "clear_status_flags" (what h5clear uses) makes a read-only open ignore the flags without
/// modifying the file.
Hid open_for_read(const std::string& path) {
  if (!util::path_exists(path)) throw InputError(path, 0, 0, "cannot open: no such file");
  if (auto why = util::not_a_regular_file(path))  // HDF5 would block on a FIFO
    throw InputError(path, 0, 0, "cannot open: " + *why + " (expected a geopipe result file)");
  if (::access(path.c_str(), R_OK) != 0) {
    const int e = errno;
    throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(e));
  }
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is == 0) not_geopipe(path, "not an HDF5 file");
  if (is < 0) read_fail(path, "open the file");
  // SWMR reads retry a metadata block whose checksum fails (it may be half-written by the live
  // writer), sleeping 1, 2, 4, ... ns between attempts: HDF5's default of 100 attempts sleeps
  // ~2^99 ns on a block that is damaged for good, i.e. forever. kMetadataReadAttempts bounds it.
  Hid swmr_fapl = r_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "open the file");
  r_check(H5Pset_metadata_read_attempts(swmr_fapl.get(), kMetadataReadAttempts), path, "open the file");
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, swmr_fapl.get());
  if (f < 0) {
    const std::string first = h5_error_stack();
    Hid fapl = r_hid(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "open the file");
    r_check(H5Pset_metadata_read_attempts(fapl.get(), 1), path, "open the file");
    f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    if (f < 0) {
      H5Eclear2(H5E_DEFAULT);
      hbool_t clear = 1;
      if (H5Pexist(fapl.get(), "clear_status_flags") > 0 && H5Pset(fapl.get(), "clear_status_flags", &clear) >= 0)
        f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    }
    if (f < 0) {
      H5Eclear2(H5E_DEFAULT);
      throw InputError(path, 0, 0, "not a readable geopipe result file: cannot open it: " + first + kDamagedAdvice);
    }
  }
  return Hid(f, H5Fclose);
}

Hid open_table(hid_t file, const char* name, const std::string& path, bool required) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    if (required) not_geopipe(path, std::string("no /") + name + " table");
    return Hid();
  }
  return r_hid(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, path, std::string("open /") + name);
}

}  // namespace geopipe::sweep::h5
