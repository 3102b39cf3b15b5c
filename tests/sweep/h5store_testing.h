// What the HDF5 store's tests share (tests/sweep/test_h5store_*.cpp): a temporary directory, a
// small sweep, its metadata and results, reading columns with the HDF5 C API (independent of the
// library), child processes (the crash writer, Python), and shards of the small sweep.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sweepfile/loader.h"
#include "sim/model_version.h"
#include "crash_rows.h"
#include "results/hdf5/error.h"
#include "results/hdf5/table.h"
#include "results/hdf5/store.h"

namespace geopipe::h5store_testing {

namespace fs = std::filesystem;
using namespace geopipe::sweep;

// ---- helpers ---------------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "geopipe-h5-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// 2 points x 2 seeds x 2 schedulers, one numeric and one text axis.
inline config::SweepSpec small_spec() {
  config::SweepSpec s;
  s.name = "small";
  s.path = "small.toml";
  s.text = "[sweep]\nname = \"small\"\nbase = \"base.toml\"\n";
  s.base_text = "# the base scenario\n";
  s.schedulers = {"bace-pipe", "cost-first"};
  s.seeds = {1, 2};
  s.columns = {{"network.bandwidth_scale", true}, {"workload.trace", false}};
  const double nan = std::nan("");
  config::SweepPoint p0, p1;
  p0.numeric = {0.5, nan};
  p0.text = {"", "\"a.csv\""};
  p1.numeric = {2.0, nan};
  p1.text = {"", "'b.csv'"};
  s.points.listed = {p0, p1};
  s.hash = 0xabcdef0123456789ULL;
  s.job_text = {16, 32};
  s.point_digests = {{1, 2}, {3, 4}};
  s.columns[0].canonical_path = "network.bandwidth_scale";
  s.columns[0].fixed_text = "1.0";
  s.columns[1].canonical_path = "workload.trace";
  s.parameters = {{"network.bandwidth_scale", "", 0}, {"sim.mfu", "0.4", -1}, {"workload.trace", "", 1},
                  {"workload.trace_time_unit", "\"s\"", -1}};
  return s;
}


inline StoreMeta small_meta(const std::string& hash = "abcdef0123456789") {
  StoreMeta m;
  m.geopipe_version = "v-test";
  m.created_utc = "2024-01-02T03:04:05Z";
  m.sweep_name = "small";
  m.sweep_toml = small_spec().text;
  m.base_toml = small_spec().base_text;
  m.sweep_hash = hash;
  m.layout = "ranks=2 threads=4";
  m.total_scenarios = 8;
  m.schedulers = small_spec().schedulers;
  m.axes = {"network.bandwidth_scale", "workload.trace"};
  return m;
}

/// ok unless id is 3 or 4; two jobs per ok scenario (job 1 first, to test sorting).
inline ScenarioResult small_result(std::int64_t id, bool jobs) {
  ScenarioResult r;
  r.id = id;
  r.ok = id != 3 && id != 4;
  if (!r.ok) {
    r.error = "boom " + std::to_string(id);
    return r;
  }
  r.metrics.jobs_total = static_cast<int>(10 + id);
  r.metrics.avg_jct_s = 100.0 + static_cast<double>(id);
  r.metrics.total_cost_usd = 2.0 * static_cast<double>(id);
  if (jobs)
    for (int j = 1; j >= 0; --j) {
      JobRow jr;
      jr.job_id = j;
      jr.model = "llama2-7b";
      jr.stages = 2;
      jr.gpus_per_stage = 1;
      jr.regions = "us-east;eu-west";
      jr.arrival_s = 1.0;
      jr.start_s = 2.0;
      jr.finish_s = 3.0;
      jr.cost_usd = static_cast<double>(id) * 10 + j;
      r.jobs.push_back(jr);
    }
  return r;
}

// The writer's rows (crash_rows.h).
inline std::vector<std::int64_t> crash_order(std::int64_t m) { return crash_rows::order(m); }
inline bool crash_ok(std::int64_t id) { return crash_rows::ok(id); }
inline ScenarioResult crash_result(std::int64_t id) { return crash_rows::result(id, true); }

// ---- direct HDF5 C API access, independent of the library ---------------------------------------

inline hid_t open_raw(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
  if (f < 0) f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + path);
  return f;
}

template <class T>
inline std::vector<T> read_column(const std::string& path, const char* dset, const char* field, hid_t memtype) {
  hid_t f = open_raw(path);
  hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, nullptr);
  hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(T));
  H5Tinsert(ct, field, 0, memtype);
  std::vector<T> v(n);
  herr_t rc = n ? H5Dread(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) : 0;
  H5Tclose(ct);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  if (rc < 0) throw std::runtime_error(std::string("cannot read ") + dset + "." + field);
  return v;
}
inline std::vector<std::int64_t> col_i64(const std::string& p, const char* d, const char* f) {
  return read_column<std::int64_t>(p, d, f, H5T_NATIVE_INT64);
}
inline std::vector<double> col_f64(const std::string& p, const char* d, const char* f) {
  return read_column<double>(p, d, f, H5T_NATIVE_DOUBLE);
}
inline std::vector<std::int8_t> col_i8(const std::string& p, const char* d, const char* f) {
  return read_column<std::int8_t>(p, d, f, H5T_NATIVE_INT8);
}

/// A text column, read with the width it has in the file.
inline std::vector<std::string> col_str(const std::string& path, const char* dset, const char* field) {
  hid_t f = open_raw(path);
  hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
  hid_t ft = H5Dget_type(d);
  hid_t mt = H5Tget_member_type(ft, static_cast<unsigned>(H5Tget_member_index(ft, field)));
  const std::size_t width = H5Tget_size(mt);
  hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, nullptr);
  hid_t ct = H5Tcreate(H5T_COMPOUND, width);
  H5Tinsert(ct, field, 0, mt);
  std::vector<char> buf(n * width + 1, '\0');
  herr_t rc = n ? H5Dread(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) : 0;
  H5Tclose(ct);
  H5Sclose(sp);
  H5Tclose(mt);
  H5Tclose(ft);
  H5Dclose(d);
  H5Fclose(f);
  if (rc < 0) throw std::runtime_error(std::string("cannot read ") + dset + "." + field);
  std::vector<std::string> v;
  for (hsize_t i = 0; i < n; ++i) {
    const char* p = buf.data() + i * width;
    v.emplace_back(p, strnlen(p, width));
  }
  return v;
}

/// /parameters as (path, value, column) rows.
inline std::vector<std::array<std::string, 3>> parameters_of(const std::string& path) {
  const auto p = col_str(path, "parameters", "path"), v = col_str(path, "parameters", "value"),
             c = col_str(path, "parameters", "column");
  std::vector<std::array<std::string, 3>> out;
  for (std::size_t i = 0; i < p.size(); ++i) out.push_back({p[i], v[i], c[i]});
  return out;
}

/// The width in bytes of a text column.
inline std::size_t str_width(const std::string& path, const char* dset, const char* field) {
  hid_t f = open_raw(path);
  hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
  hid_t ft = H5Dget_type(d);
  hid_t mt = H5Tget_member_type(ft, static_cast<unsigned>(H5Tget_member_index(ft, field)));
  const std::size_t width = H5Tget_size(mt);
  H5Tclose(mt);
  H5Tclose(ft);
  H5Dclose(d);
  H5Fclose(f);
  return width;
}

/// Everything a reader can learn of a dataset, as text: its type (as HDF5 encodes it), shape,
/// chunk size, filters, fill value and every row's bytes in the file's type.
inline std::string dataset_image(const std::string& path, const char* name) {
  hid_t f = open_raw(path);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t ft = H5Dget_type(d);
  hid_t sp = H5Dget_space(d);
  hid_t dcpl = H5Dget_create_plist(d);
  hsize_t n = 0, maxn = 0, chunk = 0;
  H5Sget_simple_extent_dims(sp, &n, &maxn);
  H5Pget_chunk(dcpl, 1, &chunk);
  std::size_t tsize = 0;
  H5Tencode(ft, nullptr, &tsize);
  std::string type(tsize, '\0');
  H5Tencode(ft, type.data(), &tsize);
  const std::size_t row = H5Tget_size(ft);
  std::string fill(row, '\0'), rows(static_cast<std::size_t>(n) * row, '\0');
  H5Pget_fill_value(dcpl, ft, fill.data());
  const herr_t rc = n ? H5Dread(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()) : 0;
  std::string out = std::string(name) + " type " + type + " rows " + std::to_string(n) + " max " + std::to_string(maxn) +
                    " chunk " + std::to_string(chunk) + " filters";
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0, cd[8] = {0};
    std::size_t ncd = 8;
    out += " " + std::to_string(H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &ncd, cd, 0, nullptr, nullptr));
    for (std::size_t k = 0; k < ncd && k < 8; ++k) out += ":" + std::to_string(cd[k]);
  }
  out += " fill " + fill + " data " + rows;
  H5Pclose(dcpl);
  H5Sclose(sp);
  H5Tclose(ft);
  H5Dclose(d);
  H5Fclose(f);
  if (rc < 0) throw std::runtime_error(std::string("cannot read ") + name);
  return out;
}

/// Every root attribute as "name=value" lines (strings as text, numbers as their bytes).
inline std::string root_attributes(const std::string& path) {
  hid_t f = open_raw(path);
  std::string out;
  const hsize_t count = [&] {
    H5O_info_t info;
    H5Oget_info2(f, &info, H5O_INFO_NUM_ATTRS);
    return info.num_attrs;
  }();
  for (hsize_t i = 0; i < count; ++i) {
    hid_t a = H5Aopen_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT);
    char name[256] = {0};
    H5Aget_name(a, sizeof name - 1, name);
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    const auto np = static_cast<std::size_t>(H5Sget_simple_extent_npoints(sp));
    out += std::string(name) + "=";
    if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
      std::vector<char*> v(np, nullptr);
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      H5Tset_cset(mt, H5Tget_cset(t));
      H5Aread(a, mt, v.data());
      for (char* s : v) out += std::string(s ? s : "") + ";";
      H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v.data());
      H5Tclose(mt);
    } else {
      std::string bytes(np * H5Tget_size(t), '\0');
      H5Aread(a, t, bytes.data());
      out += bytes;
    }
    out += "\n";
    H5Sclose(sp);
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Fclose(f);
  return out;
}

inline bool has_dataset(const std::string& path, const char* name) {
  hid_t f = open_raw(path);
  const bool r = H5Lexists(f, name, H5P_DEFAULT) > 0;
  H5Fclose(f);
  return r;
}

// ---- child processes -----------------------------------------------------------------------------

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string buf;

  /// Next line of the child's stdout; false on EOF or timeout.
  bool line(std::string& out, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const auto nl = buf.find('\n');
      if (nl != std::string::npos) {
        out = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        return true;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char tmp[4096];
      const ssize_t n = ::read(fd, tmp, sizeof tmp);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<std::size_t>(n));
    }
  }
  int kill_and_wait() {
    ::kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
  }
  int wait() {
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
  }
  ~Child() {
    if (fd >= 0) ::close(fd);
  }
};

inline void spawn(Child& c, const std::vector<std::string>& args) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(p[1], 1);
    ::close(p[0]);
    ::close(p[1]);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(p[1]);
  c.pid = pid;
  c.fd = p[0];
}

inline bool python_ok() {
  static const int ok = std::system(GEOPIPE_PYTHON " -c 'import h5py, pandas' >/dev/null 2>&1") == 0 ? 1 : 0;
  return ok == 1;
}

/// Runs a Python script with the given argument, returns its stdout (stderr passes through).
inline std::string run_python(const TempDir& dir, const std::string& script, const std::string& arg) {
  const std::string sp = dir.file("check.py");
  std::ofstream(sp) << script;
  const std::string cmd = std::string(GEOPIPE_PYTHON) + " " + sp + " '" + arg + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0) out += "\n[python exit status " + std::to_string(rc) + "]";
  return out;
}

inline std::unique_ptr<ResultStore> create_small(const std::string& path, bool jobs, const StoreMeta& meta = small_meta()) {
  const auto spec = small_spec();
  return ResultStore::create(path, meta, spec, Plan(2, 2, 2), jobs);
}

inline std::string make_shard(const TempDir& dir, const std::string& name, std::uint64_t k, std::uint64_t n,
                       const std::string& hash = "abcdef0123456789", bool jobs = true) {
  const std::string path = dir.file(name);
  Plan plan(2, 2, 2, k, n);
  std::vector<std::int64_t> ids;
  for (std::uint64_t id = 0; id < plan.total(); ++id)
    if (plan.in_shard(id)) ids.push_back(static_cast<std::int64_t>(id));
  StoreMeta meta = small_meta(hash);
  meta.shard = std::to_string(k) + "/" + std::to_string(n);
  const auto spec = small_spec();
  auto store = ResultStore::create(path, meta, spec, plan, jobs);
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) store->append(small_result(*it, jobs));
  store->finalize();
  return path;
}


}  // namespace geopipe::h5store_testing
