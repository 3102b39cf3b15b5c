// Tests of the HDF5 result store (src/results/hdf5/store.h): real HDF5 files in a temp directory,
// read back with the library, the HDF5 C API and (when available) Python h5py + pandas.
// The crash tests run tests/sweep/h5_crash_writer.cpp and kill it with SIGKILL.
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
#include "results/hdf5/table.h"
#include "results/hdf5/store.h"

using namespace geopipe;
using namespace geopipe::sweep;
namespace fs = std::filesystem;

namespace {

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

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// 2 points x 2 seeds x 2 schedulers, one numeric and one text axis.
config::SweepSpec small_spec() {
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
  s.listed = {p0, p1};
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


StoreMeta small_meta(const std::string& hash = "abcdef0123456789") {
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
ScenarioResult small_result(std::int64_t id, bool jobs) {
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
std::vector<std::int64_t> crash_order(std::int64_t m) { return crash_rows::order(m); }
bool crash_ok(std::int64_t id) { return crash_rows::ok(id); }
ScenarioResult crash_result(std::int64_t id) { return crash_rows::result(id, true); }

// ---- direct HDF5 C API access, independent of the library ---------------------------------------

hid_t open_raw(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
  if (f < 0) f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + path);
  return f;
}

template <class T>
std::vector<T> read_column(const std::string& path, const char* dset, const char* field, hid_t memtype) {
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
std::vector<std::int64_t> col_i64(const std::string& p, const char* d, const char* f) {
  return read_column<std::int64_t>(p, d, f, H5T_NATIVE_INT64);
}
std::vector<double> col_f64(const std::string& p, const char* d, const char* f) {
  return read_column<double>(p, d, f, H5T_NATIVE_DOUBLE);
}
std::vector<std::int8_t> col_i8(const std::string& p, const char* d, const char* f) {
  return read_column<std::int8_t>(p, d, f, H5T_NATIVE_INT8);
}

/// A text column, read with the width it has in the file.
std::vector<std::string> col_str(const std::string& path, const char* dset, const char* field) {
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
std::vector<std::array<std::string, 3>> parameters_of(const std::string& path) {
  const auto p = col_str(path, "parameters", "path"), v = col_str(path, "parameters", "value"),
             c = col_str(path, "parameters", "column");
  std::vector<std::array<std::string, 3>> out;
  for (std::size_t i = 0; i < p.size(); ++i) out.push_back({p[i], v[i], c[i]});
  return out;
}

/// The width in bytes of a text column.
std::size_t str_width(const std::string& path, const char* dset, const char* field) {
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

bool has_dataset(const std::string& path, const char* name) {
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

void spawn(Child& c, const std::vector<std::string>& args) {
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

bool python_ok() {
  static const int ok = std::system(GEOPIPE_PYTHON " -c 'import h5py, pandas' >/dev/null 2>&1") == 0 ? 1 : 0;
  return ok == 1;
}

/// Runs a Python script with the given argument, returns its stdout (stderr passes through).
std::string run_python(const TempDir& dir, const std::string& script, const std::string& arg) {
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

std::unique_ptr<ResultStore> create_small(const std::string& path, bool jobs, const StoreMeta& meta = small_meta()) {
  const auto spec = small_spec();
  return ResultStore::create(path, meta, spec, Plan(2, 2, 2), jobs);
}

// ---- round trip ------------------------------------------------------------------------------------

TEST(H5Store, RoundTripSortedWithErrorsJobsAndAttributes) {
  TempDir dir;
  const std::string path = dir.file("small.h5");
  {
    auto store = create_small(path, true);
    for (std::int64_t id : {5, 2, 7, 0, 3, 1, 6, 4}) store->append(small_result(id, true));
    EXPECT_EQ(store->rows_written(), 8u);
    store->finalize();
  }
  EXPECT_FALSE(fs::exists(path + ".final-tmp"));
  EXPECT_FALSE(fs::exists(path + ".create-tmp"));

  const StoreContents c = ResultStore::read(path);
  EXPECT_EQ(c.done_ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(c.meta.complete);
  EXPECT_EQ(c.meta.format_version, 5);
  EXPECT_FALSE(c.meta.collection);
  EXPECT_EQ(c.meta.sweep_hash, "abcdef0123456789");
  EXPECT_EQ(c.meta.sweep_toml, small_spec().text);
  EXPECT_EQ(c.meta.base_toml, small_spec().base_text);
  EXPECT_EQ(c.meta.sweep_name, "small");
  EXPECT_EQ(c.meta.geopipe_version, "v-test");
  EXPECT_EQ(c.meta.created_utc, "2024-01-02T03:04:05Z");
  EXPECT_EQ(c.meta.layout, "ranks=2 threads=4");
  EXPECT_EQ(c.meta.num_scenarios, 8u);
  EXPECT_EQ(c.meta.total_scenarios, 8u);
  EXPECT_EQ(c.meta.shard, "");
  EXPECT_EQ(c.meta.schedulers, (std::vector<std::string>{"bace-pipe", "cost-first"}));
  EXPECT_EQ(c.meta.axes, (std::vector<std::string>{"network.bandwidth_scale", "workload.trace"}));

  // Raw layout, through the C API: sorted by id, errors and jobs in place.
  EXPECT_EQ(col_i64(path, "metrics", "id"), (std::vector<std::int64_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(col_i8(path, "metrics", "status"), (std::vector<std::int8_t>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(col_f64(path, "metrics", "avg_jct_s"), (std::vector<double>{100, 101, 102, 105, 106, 107}));
  EXPECT_EQ(col_f64(path, "metrics", "jobs_total"), (std::vector<double>{10, 11, 12, 15, 16, 17}));
  EXPECT_EQ(col_i64(path, "errors", "id"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(col_i64(path, "scenarios", "id"), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(col_i64(path, "scenarios", "point"), (std::vector<std::int64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(col_i64(path, "scenarios", "seed"), (std::vector<std::int64_t>{1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_EQ(col_f64(path, "scenarios", "network.bandwidth_scale"),
            (std::vector<double>{0.5, 0.5, 0.5, 0.5, 2, 2, 2, 2}));
  EXPECT_EQ(col_i64(path, "jobs", "scenario_id"), (std::vector<std::int64_t>{0, 0, 1, 1, 2, 2, 5, 5, 6, 6, 7, 7}));
  EXPECT_EQ(col_i64(path, "jobs", "job_id"), (std::vector<std::int64_t>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(col_f64(path, "jobs", "cost_usd")[3], 11.0);

  // read_joined: scenarios with metrics rows only, sorted by id.
  const Table t = read_joined(path);
  ASSERT_GE(t.names.size(), 5u);
  EXPECT_EQ(t.names[0], "id");
  EXPECT_EQ(t.names[1], "point");
  EXPECT_EQ(t.names[2], "seed");
  EXPECT_EQ(t.names[3], "network.bandwidth_scale");
  EXPECT_EQ(t.names[4], "jobs_total");
  EXPECT_EQ(t.text_names, (std::vector<std::string>{"scheduler", "key", "point_key", "workload.trace"}));
  EXPECT_EQ(t.numeric[0], (std::vector<double>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(t.numeric[3], (std::vector<double>{0.5, 0.5, 0.5, 2, 2, 2}));
  const auto jct = std::find(t.names.begin(), t.names.end(), "avg_jct_s") - t.names.begin();
  EXPECT_EQ(t.numeric[static_cast<std::size_t>(jct)], (std::vector<double>{100, 101, 102, 105, 106, 107}));
  EXPECT_EQ(std::find(t.names.begin(), t.names.end(), "status"), t.names.end());
  EXPECT_EQ(t.text[0], (std::vector<std::string>{"bace-pipe", "cost-first", "bace-pipe", "cost-first",
                                                 "bace-pipe", "cost-first"}));
  EXPECT_EQ(t.text[3], (std::vector<std::string>{"a.csv", "a.csv", "a.csv", "b.csv", "b.csv", "b.csv"}));
  // Every row's point key is its point's digest (small_spec: {1, 2} and {3, 4}).
  EXPECT_EQ(t.text[2][0], "00000000000000010000000000000002");
  EXPECT_EQ(t.text[2][5], "00000000000000030000000000000004");
  // Every row's content key: its point's digest, seed and scheduler under this model version.
  const std::vector<std::int64_t> ids = {0, 1, 2, 5, 6, 7};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto k = Plan(2, 2, 2).key(static_cast<std::uint64_t>(ids[i]));
    const auto spec = small_spec();
    EXPECT_EQ(t.text[1][i], config::scenario_key(spec.point_digests[k.point], spec.seeds[k.seed_index],
                                                 spec.schedulers[k.scheduler_index], kModelVersion)
                                .hex());
  }
  EXPECT_EQ(c.meta.model_version, kModelVersion);

  // The documented h5py/pandas recipe (docs/hdf5-format.md) works on the file.
  if (!python_ok()) GTEST_SKIP() << "python3 with h5py and pandas not available";
  const std::string script = R"PY(
import sys
import h5py, pandas as pd
f = h5py.File(sys.argv[1], "r")
df = pd.DataFrame(f["metrics"][:])
scen = pd.DataFrame(f["scenarios"][:])
for col in ["scheduler", "workload.trace"]:
    scen[col] = scen[col].str.decode("utf-8")
table = scen.merge(df, on="id")
errors = pd.DataFrame(f["errors"][:])
print("ids", ",".join(str(i) for i in df["id"]))
print("joined", len(table), ",".join(table["scheduler"]), ",".join(table["workload.trace"]))
print("jct", ",".join("%g" % v for v in table["avg_jct_s"]))
print("errors", ",".join(str(i) for i in errors["id"]), "|".join(errors["message"].str.decode("utf-8")))
print("attrs", int(f.attrs["complete"]), f.attrs["sweep_hash"], type(f.attrs["sweep_toml"]).__name__,
      ",".join(f.attrs["schedulers"]), ",".join(f.attrs["axes"]), int(f.attrs["num_scenarios"]))
print("cost", table.groupby("scheduler")["total_cost_usd"].sum().to_dict())
jobs = pd.DataFrame(f["jobs"][:])
print("jobs", len(jobs), jobs["model"].str.decode("utf-8").iloc[0], jobs["regions"].str.decode("utf-8").iloc[0])
)PY";
  const std::string out = run_python(dir, script, path);
  EXPECT_EQ(out,
            "ids 0,1,2,5,6,7\n"
            "joined 6 bace-pipe,cost-first,bace-pipe,cost-first,bace-pipe,cost-first a.csv,a.csv,a.csv,b.csv,b.csv,b.csv\n"
            "jct 100,101,102,105,106,107\n"
            "errors 3,4 boom 3|boom 4\n"
            "attrs 1 abcdef0123456789 str bace-pipe,cost-first network.bandwidth_scale,workload.trace 8\n"
            "cost {'bace-pipe': 16.0, 'cost-first': 26.0}\n"
            "jobs 12 llama2-7b us-east;eu-west\n");
}

// /parameters records the resolved base; a point that does not set an axis has the base's value
// in that cell; resume, finalize and merge keep the table.
TEST(H5Store, ParametersAndResolvedCells) {
  TempDir dir;
  config::SweepSpec spec = small_spec();
  spec.listed[1].numeric[0] = std::nan("");  // point 1 leaves the bandwidth scale alone
  spec.listed[1].text[1] = "";               // and the trace: it has no fixed value
  const std::string path = dir.file("p.h5");
  {
    auto store = ResultStore::create(path, small_meta(), spec, Plan(2, 2, 2), false);
    for (std::int64_t id : {0, 1, 2}) store->append(small_result(id, false));
  }
  const std::vector<std::array<std::string, 3>> want = {{"network.bandwidth_scale", "", "network.bandwidth_scale"},
                                                        {"sim.mfu", "0.4", ""},
                                                        {"workload.trace", "", "workload.trace"},
                                                        {"workload.trace_time_unit", "\"s\"", ""}};
  EXPECT_EQ(parameters_of(path), want);
  EXPECT_EQ(col_f64(path, "scenarios", "network.bandwidth_scale"), (std::vector<double>{0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1}));
  EXPECT_EQ(col_str(path, "scenarios", "workload.trace")[4], "");
  {
    auto store = ResultStore::resume(path, ResultStore::read(path), "ranks=1 threads=1");
    for (std::int64_t id = 3; id < 8; ++id) store->append(small_result(id, false));
    store->finalize();
  }
  EXPECT_EQ(parameters_of(path), want);
  const std::string merged = dir.file("m.h5");
  merge_stores({path}, merged);
  EXPECT_EQ(parameters_of(merged), want);
}

// A collection keeps a parameter fixed only if every input fixes it at one value; otherwise it
// gets a column, filled from each input's column or fixed value.
TEST(H5StoreMerge, CollectionColumnsForParametersThatDiffer) {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& hash, const config::SweepSpec& spec) {
    const std::string path = dir.file(name);
    auto store = ResultStore::create(path, small_meta(hash), spec, Plan(2, 2, 2), false);
    for (std::int64_t id = 0; id < 8; ++id) store->append(small_result(id, false));
    store->finalize();
    return path;
  };
  const auto a = write("a.h5", "abcdef0123456789", small_spec());
  config::SweepSpec sb = small_spec();
  sb.parameters[1].value = "0.5";                       // sim.mfu fixed at another value
  sb.parameters[3].value = "\"ms\"";                    // a text parameter too
  sb.point_digests = {{5, 6}, {7, 8}};                  // other points: other keys
  const auto b = write("b.h5", "0123456789abcdef", sb);
  const std::string out = dir.file("ab.h5");
  merge_stores({a, b}, out);
  const std::vector<std::array<std::string, 3>> want = {{"network.bandwidth_scale", "", "network.bandwidth_scale"},
                                                        {"sim.mfu", "", "sim.mfu"},
                                                        {"workload.trace", "", "workload.trace"},
                                                        {"workload.trace_time_unit", "", "workload.trace_time_unit"}};
  EXPECT_EQ(parameters_of(out), want);
  EXPECT_EQ(ResultStore::read(out).meta.axes,
            (std::vector<std::string>{"network.bandwidth_scale", "workload.trace", "sim.mfu", "workload.trace_time_unit"}));
  const auto mfu = col_f64(out, "scenarios", "sim.mfu");
  const auto unit = col_str(out, "scenarios", "workload.trace_time_unit");
  ASSERT_EQ(mfu.size(), 16u);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(mfu[i], i < 8 ? 0.4 : 0.5) << i;
    EXPECT_EQ(unit[i], i < 8 ? "s" : "ms") << i;
  }
  // Merged with a file that agrees on everything: the same columns, nothing promoted anew.
  const std::string again = dir.file("again.h5");
  merge_stores({out, a}, again);
  EXPECT_EQ(parameters_of(again), want);
}

TEST(H5Store, TextAxisValuesAreStoredWithoutTomlQuotes) {
  TempDir dir;
  config::SweepSpec spec = small_spec();
  spec.schedulers = {"bace-pipe"};
  spec.seeds = {7};
  spec.columns = {{"workload.trace", false}};
  spec.listed.clear();
  for (const char* v : {"\"x\\\"y\"", "\"caf\\u00e9\"", "'lit'", "[1, 2]", "true"}) {
    config::SweepPoint p;
    p.numeric = {std::nan("")};
    p.text = {v};
    spec.listed.push_back(p);
  }
  const std::string path = dir.file("text.h5");
  StoreMeta meta = small_meta();
  meta.schedulers = spec.schedulers;
  meta.axes = {"workload.trace"};
  spec.point_digests.assign(spec.listed.size(), {7, 8});
  auto store = ResultStore::create(path, meta, spec, Plan(5, 1, 1), false);
  for (std::int64_t id = 0; id < 5; ++id) {
    ScenarioResult r = small_result(0, false);
    r.id = id;
    store->append(r);
  }
  store->flush();
  const Table t = read_joined(path);
  ASSERT_EQ(t.text_names, (std::vector<std::string>{"scheduler", "key", "point_key", "workload.trace"}));
  EXPECT_EQ(t.text[3], (std::vector<std::string>{"x\"y", "caf\u00e9", "lit", "[1, 2]", "true"}));
  EXPECT_EQ(t.numeric[2], (std::vector<double>{7, 7, 7, 7, 7}));  // seed
}

TEST(H5Store, WithoutFinalizeFileIsResumableAndIncomplete) {
  TempDir dir;
  const std::string path = dir.file("open.h5");
  {
    auto store = create_small(path, false);
    store->append(small_result(6, false));
    store->append(small_result(3, false));
  }  // destructor flushes and closes, no finalize
  const StoreContents c = ResultStore::read(path);
  EXPECT_EQ(c.done_ids, (std::vector<std::int64_t>{3, 6}));
  EXPECT_FALSE(c.meta.complete);
  EXPECT_FALSE(has_dataset(path, "jobs"));

  {
    auto store = ResultStore::resume(path, c, "ranks=1 threads=8");
    EXPECT_EQ(store->rows_written(), 2u);
    for (std::int64_t id : {7, 0, 1, 2, 4, 5}) store->append(small_result(id, false));
    store->finalize();
  }
  const StoreContents d = ResultStore::read(path);
  EXPECT_EQ(d.done_ids.size(), 8u);
  EXPECT_TRUE(d.meta.complete);
  EXPECT_EQ(d.meta.layout, "ranks=1 threads=8");
  EXPECT_EQ(col_i64(path, "metrics", "id"), (std::vector<std::int64_t>{0, 1, 2, 5, 6, 7}));

  // Resuming a finished file works too and changes nothing but the layout.
  {
    auto store = ResultStore::resume(path, d, "ranks=3 threads=1");
    store->finalize();
  }
  EXPECT_EQ(col_i64(path, "metrics", "id"), (std::vector<std::int64_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_TRUE(ResultStore::read(path).meta.complete);
}

TEST(H5Store, FinalizeWithMissingRowsLeavesIncomplete) {
  TempDir dir;
  const std::string path = dir.file("partial.h5");
  {
    auto store = create_small(path, false);
    store->append(small_result(0, false));
    store->finalize();
  }
  EXPECT_FALSE(ResultStore::read(path).meta.complete);
}

TEST(H5Store, FlushMakesRowsVisibleToAConcurrentReader) {
  TempDir dir;
  const std::string path = dir.file("live.h5");
  auto store = create_small(path, true);
  store->append(small_result(1, true));
  store->append(small_result(4, true));
  EXPECT_TRUE(ResultStore::read(path).done_ids.empty());  // still buffered
  store->flush();
  EXPECT_EQ(ResultStore::read(path).done_ids, (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(read_joined(path).numeric[0], (std::vector<double>{1}));
}

// ---- crash safety ----------------------------------------------------------------------------------

TEST(H5StoreCrash, Kill9AtRandomMomentsThenResume) {
  TempDir dir;
  const std::string path = dir.file("crash.h5");
  // GEOPIPE_H5_CRASH_ITERATIONS=N runs a longer stress (default 10 kills).
  const char* env_it = std::getenv("GEOPIPE_H5_CRASH_ITERATIONS");
  const int iterations = env_it ? std::max(1, std::atoi(env_it)) : 10;
  const std::int64_t M = std::max<std::int64_t>(40000, 4000 * iterations), every = 250;
  const auto order = crash_order(M);
  std::mt19937 rng(20240611);
  std::set<std::int64_t> known;  // done ids after the previous kill
  int kills_during_work = 0, kills_in_flush = 0, kills_in_rebuild = 0;

  for (int it = 0; it < iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    std::vector<std::int64_t> missing;
    for (auto id : order)
      if (!known.count(id)) missing.push_back(id);
    const bool early = it % 3 == 2;  // kill soon after start: may hit resume()'s rebuild
    Child c;
    spawn(c, {GEOPIPE_H5_CRASH_WRITER, it == 0 ? "create" : "resume", path, std::to_string(M),
              std::to_string(every), "--jobs", "--hang"});
    long flushed = 0;
    bool done = false;
    std::string line;
    if (early) {
      usleep(static_cast<useconds_t>(20000 + rng() % 40000));
    } else {
      const long target = every + static_cast<long>(rng() % 3000);
      while (flushed < target && !done && c.line(line, 60000)) {
        if (line.rfind("F ", 0) == 0) flushed = std::stol(line.substr(2));
        if (line == "DONE") done = true;
      }
      if (it == 1) {  // a reader while the writer is alive (SWMR)
        const auto live = ResultStore::read(path);
        EXPECT_GE(live.done_ids.size(), known.size());
      }
      usleep(static_cast<useconds_t>(rng() % 3000));
    }
    const int st = c.kill_and_wait();
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && !done) ++kills_during_work;
    ASSERT_FALSE(WIFEXITED(st)) << "writer exited with " << WEXITSTATUS(st);
    bool in_flush = false;  // killed after "B n" and before "F n": during flush()
    bool resumed = false;
    while (c.line(line, 100)) {  // lines printed before the kill: those rows were flushed
      if (line.rfind("F ", 0) == 0) flushed = std::max(flushed, std::stol(line.substr(2)));
      if (line.rfind("R ", 0) == 0) resumed = true;
      in_flush = line.rfind("B ", 0) == 0;
    }
    if (in_flush) ++kills_in_flush;
    // Killed inside resume() while it was writing the new file beside the old one.
    const bool in_rebuild = it > 0 && !resumed && fs::exists(path + ".resume-tmp");
    if (in_rebuild) ++kills_in_rebuild;

    StoreContents got;
    ASSERT_NO_THROW(got = ResultStore::read(path));
    EXPECT_TRUE(std::is_sorted(got.done_ids.begin(), got.done_ids.end()));
    EXPECT_EQ(std::adjacent_find(got.done_ids.begin(), got.done_ids.end()), got.done_ids.end());
    for (auto id : got.done_ids) ASSERT_TRUE(id >= 0 && id < M) << id;
    const std::set<std::int64_t> now(got.done_ids.begin(), got.done_ids.end());
    for (auto id : known) ASSERT_TRUE(now.count(id)) << "lost id " << id << " of an earlier run";
    for (long k = 0; k < flushed && k < static_cast<long>(missing.size()); ++k)
      ASSERT_TRUE(now.count(missing[static_cast<std::size_t>(k)]))
          << "id " << missing[static_cast<std::size_t>(k)] << " was reported flushed (" << flushed
          << " rows) but is missing";
    std::cout << "[ crash    ] iteration " << it << (in_rebuild ? " (killed in resume's rebuild)" : early ? " (early kill)" : in_flush ? " (killed in flush)" : "")
              << ": " << flushed
              << " rows reported flushed, file has " << got.done_ids.size() << " done\n";

    if (it == 0 && python_ok()) {
      // h5py reads the killed file with swmr=True (a plain open is refused: flags still set).
      const std::string out = run_python(dir,
                                         "import sys, h5py, pandas as pd\n"
                                         "f = h5py.File(sys.argv[1], 'r', swmr=True)\n"
                                         "df = pd.DataFrame(f['metrics'][:])\n"
                                         "e = pd.DataFrame(f['errors'][:])\n"
                                         "print(int(((df.status == 1) & (df.id >= 0)).sum() + (e.id >= 0).sum()))\n",
                                         path);
      EXPECT_EQ(out, std::to_string(got.done_ids.size()) + "\n");
    }
    known = now;
  }
  EXPECT_GE(kills_during_work, iterations / 2);
  std::cout << "[ crash    ] " << kills_during_work << " of " << iterations << " kills while the writer worked, "
            << kills_in_flush << " of them inside flush(), " << kills_in_rebuild << " inside resume()'s rebuild\n";

  // A stale .resume-tmp (as left by a kill during the rebuild) is replaced.
  std::ofstream(path + ".resume-tmp") << "garbage from a crashed resume";
  {
    const StoreContents c = ResultStore::read(path);
    auto store = ResultStore::resume(path, c, "ranks=1 threads=1");
    EXPECT_FALSE(fs::exists(path + ".resume-tmp"));
    const std::set<std::int64_t> done(c.done_ids.begin(), c.done_ids.end());
    for (auto id : order)
      if (!done.count(id)) store->append(crash_result(id));
    store->finalize();
  }
  const StoreContents fin = ResultStore::read(path);
  EXPECT_TRUE(fin.meta.complete);
  ASSERT_EQ(fin.done_ids.size(), static_cast<std::size_t>(M));

  // Exactly ids 0..M-1 once each, with the right values.
  const auto mid = col_i64(path, "metrics", "id");
  const auto jct = col_f64(path, "metrics", "avg_jct_s");
  const auto cost = col_f64(path, "metrics", "total_cost_usd");
  const auto eid = col_i64(path, "errors", "id");
  std::vector<std::int64_t> want_ok, want_err;
  for (std::int64_t i = 0; i < M; ++i) (crash_ok(i) ? want_ok : want_err).push_back(i);
  ASSERT_EQ(mid, want_ok);
  ASSERT_EQ(eid, want_err);
  for (std::size_t i = 0; i < mid.size(); ++i) {
    ASSERT_EQ(jct[i], 1.5 * static_cast<double>(mid[i]));
    ASSERT_EQ(cost[i], 0.25 * static_cast<double>(mid[i]) + 1.0);
  }
  const auto js = col_i64(path, "jobs", "scenario_id");
  const auto jj = col_i64(path, "jobs", "job_id");
  const auto jc = col_f64(path, "jobs", "cost_usd");
  ASSERT_EQ(js.size(), 3 * want_ok.size());
  for (std::size_t i = 0; i < js.size(); ++i) {
    ASSERT_EQ(js[i], want_ok[i / 3]);
    ASSERT_EQ(jj[i], static_cast<std::int64_t>(i % 3));
    ASSERT_DOUBLE_EQ(jc[i], static_cast<double>(js[i]) + 0.1 * static_cast<double>(jj[i]));
  }
}

TEST(H5StoreCrash, FailedResumeLeavesTheOldFileUntouched) {
  TempDir dir;
  const std::string path = dir.file("keep.h5");
  {
    auto store = create_small(path, false);
    store->append(small_result(2, false));
  }
  const std::string before = slurp(path);
  // A .resume-tmp that cannot be replaced (a non-empty directory) makes resume() fail early.
  fs::create_directories(path + ".resume-tmp/x");
  const StoreContents c = ResultStore::read(path);
  EXPECT_THROW(ResultStore::resume(path, c, "ranks=1 threads=1"), InputError);
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(ResultStore::read(path).done_ids, (std::vector<std::int64_t>{2}));
}

// tests/sweep/data/format2.h5 was written by geopipe 2aa5ef3 (HDF5 format version 2; how: the
// comment of format2.toml). This build reads it, but neither resumes nor merges it.
TEST(H5StoreVersions, Format2IsReadableButNotResumedOrMerged) {
  TempDir dir;
  const std::string path = dir.file("v2.h5");
  fs::copy_file(std::string(GEOPIPE_SWEEP_TEST_DATA) + "/format2.h5", path);
  const StoreContents c = ResultStore::read(path);
  EXPECT_EQ(c.meta.format_version, 2);
  EXPECT_EQ(c.meta.model_version, 0);
  EXPECT_TRUE(c.meta.complete);
  EXPECT_EQ(c.done_ids, (std::vector<std::int64_t>{0, 1, 2, 3}));
  const Table t = read_joined(path);
  EXPECT_EQ(t.text_names, (std::vector<std::string>{"scheduler"}));
  EXPECT_EQ(t.numeric[0], (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(col_str(path, "jobs", "model").size(), 20u);
  const std::string before = slurp(path);
  try {
    ResultStore::resume(path, c, "ranks=1 threads=1");
    ADD_FAILURE() << "resumed a version-2 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format version 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_stores({path}, dir.file("m.h5")), InputError);
  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(fs::exists(dir.file("m.h5")));
}

// tests/sweep/data/format3.h5 was written by geopipe 5fb3f1c (HDF5 format version 3, content
// keys but no point keys; how: the comment of format3.toml). This build reads it and refuses to
// merge it, naming the upgrade (`--resume`, whose extension rewrites it: sweep.merge_studies).
TEST(H5StoreVersions, Format3IsReadableAndMergeNamesTheUpgrade) {
  TempDir dir;
  const std::string path = dir.file("v3.h5");
  fs::copy_file(std::string(GEOPIPE_SWEEP_TEST_DATA) + "/format3.h5", path);
  const StoreContents c = ResultStore::read(path);
  EXPECT_EQ(c.meta.format_version, 3);
  EXPECT_EQ(c.meta.model_version, 1);
  EXPECT_FALSE(c.meta.collection);
  EXPECT_EQ(c.done_ids, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(read_joined(path).text_names, (std::vector<std::string>{"scheduler", "key"}));
  const std::string before = slurp(path);
  try {
    merge_stores({path}, dir.file("m.h5"));
    ADD_FAILURE() << "merged a version-3 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format version 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(fs::exists(dir.file("m.h5")));
}

// ---- merge -------------------------------------------------------------------------------------------

std::string make_shard(const TempDir& dir, const std::string& name, std::uint64_t k, std::uint64_t n,
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

// No text is cut: /errors holds the whole error line (up to the 4 KiB every geopipe error line
// is bounded by), /jobs text columns are as wide as the sweep's longest model name and regions
// text, and a resume whose sweep needs wider ones widens them (a merge takes the widest).
TEST(H5Store, LongTextsAreStoredWhole) {
  TempDir dir;
  std::string message = "scenario failed: ";
  while (message.size() < 3000) message += "\u00e9t\u00e9 r\u00e9gion ";
  const std::string model(100, 'm');
  std::string regions;
  for (int s = 0; s < 24; ++s) regions += (s ? ";" : "") + std::string(39, static_cast<char>('a' + s % 26));
  ASSERT_EQ(regions.size(), 24u * 40 - 1);
  auto result = [&](std::int64_t id, const std::string& reg) {
    ScenarioResult r = small_result(id, true);
    if (!r.ok) r.error = message + std::to_string(id);
    for (JobRow& j : r.jobs) {
      j.model = model;
      j.regions = reg;
    }
    return r;
  };
  config::SweepSpec spec = small_spec();
  spec.job_text = {model.size(), regions.size()};
  const std::string path = dir.file("long.h5");
  {
    auto store = ResultStore::create(path, small_meta(), spec, Plan(2, 2, 2), true);
    for (std::int64_t id : {0, 1, 2, 3}) store->append(result(id, regions));
  }
  EXPECT_EQ(str_width(path, "jobs", "model"), model.size());
  EXPECT_EQ(str_width(path, "jobs", "regions"), regions.size());
  // Resumed by a sweep whose jobs span 30 regions.
  std::string wider = regions;
  for (int s = 24; s < 30; ++s) wider += ";" + std::string(39, 'z');
  spec.job_text.regions = wider.size();
  {
    auto store = ResultStore::resume(path, ResultStore::read(path), "ranks=1 threads=1", spec.job_text);
    for (std::int64_t id : {4, 5, 6, 7}) store->append(result(id, wider));
    store->finalize();
  }
  EXPECT_EQ(str_width(path, "jobs", "regions"), wider.size());
  EXPECT_EQ(col_i64(path, "errors", "id"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(col_str(path, "errors", "message"), (std::vector<std::string>{message + "3", message + "4"}));
  const auto ids = col_i64(path, "jobs", "scenario_id");
  const auto got_regions = col_str(path, "jobs", "regions");
  const auto got_models = col_str(path, "jobs", "model");
  ASSERT_EQ(ids.size(), 12u);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(got_regions[i], ids[i] < 4 ? regions : wider) << "scenario " << ids[i];
    EXPECT_EQ(got_models[i], model);
  }

  // A merge of files of different widths takes the widest; a text longer than its column is a
  // bug (a wrong bound), never cut.
  const std::string narrow = make_shard(dir, "narrow.h5", 0, 2);
  const std::string wide_shard = dir.file("wide.h5");
  {
    StoreMeta meta = small_meta();
    meta.shard = "1/2";
    Plan plan(2, 2, 2, 1, 2);
    auto store = ResultStore::create(wide_shard, meta, spec, plan, true);
    for (std::int64_t id = 0; id < 8; ++id)
      if (plan.in_shard(static_cast<std::uint64_t>(id))) store->append(result(id, wider));
    EXPECT_THROW(store->append(result(2, wider + ";x")), std::logic_error);
    store->finalize();
  }
  const std::string merged = dir.file("merged.h5");
  merge_stores({narrow, wide_shard}, merged);
  EXPECT_EQ(str_width(merged, "jobs", "regions"), wider.size());
  const auto m_ids = col_i64(merged, "jobs", "scenario_id");
  const auto m_regions = col_str(merged, "jobs", "regions");
  ASSERT_EQ(m_ids.size(), 12u);
  for (std::size_t i = 0; i < m_ids.size(); ++i)
    EXPECT_EQ(m_regions[i], Plan(2, 2, 2, 1, 2).in_shard(static_cast<std::uint64_t>(m_ids[i])) ? wider : "us-east;eu-west");
}

TEST(H5StoreMerge, DisjointShardsMergeComplete) {
  TempDir dir;
  const auto a = make_shard(dir, "a.h5", 0, 2);
  const auto b = make_shard(dir, "b.h5", 1, 2);
  const auto ca = ResultStore::read(a);
  EXPECT_TRUE(ca.meta.complete);  // the shard itself is complete
  EXPECT_EQ(ca.meta.shard, "0/2");
  EXPECT_EQ(ca.meta.num_scenarios, 4u);
  EXPECT_EQ(ca.done_ids, (std::vector<std::int64_t>{0, 1, 4, 5}));

  const std::string out = dir.file("merged.h5");
  merge_stores({b, a}, out);
  const auto m = ResultStore::read(out);
  EXPECT_EQ(m.done_ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(m.meta.complete);
  EXPECT_EQ(m.meta.shard, "");
  EXPECT_EQ(m.meta.num_scenarios, 8u);
  EXPECT_EQ(col_i64(out, "scenarios", "id"), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(col_i64(out, "metrics", "id"), (std::vector<std::int64_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(col_i64(out, "errors", "id"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(col_i64(out, "jobs", "scenario_id").size(), 12u);
  EXPECT_EQ(read_joined(out).numeric[0], (std::vector<double>{0, 1, 2, 5, 6, 7}));

  // One shard alone does not cover the sweep.
  const std::string half = dir.file("half.h5");
  merge_stores({a}, half);
  EXPECT_FALSE(ResultStore::read(half).meta.complete);

  // The output must not exist.
  EXPECT_THROW(merge_stores({a, b}, out), InputError);
}

/// A complete file of small_spec() (8 scenarios, small_result) with sweep hash `hash`, whose
/// result of scenario `changed` (if >= 0) is `change`d.
std::string full_file(const TempDir& dir, const std::string& name, const std::string& hash,
                      std::int64_t changed = -1, const std::function<void(ScenarioResult&)>& change = {}) {
  const std::string path = dir.file(name);
  auto store = ResultStore::create(path, small_meta(hash), small_spec(), Plan(2, 2, 2), true);
  for (std::int64_t id = 0; id < 8; ++id) {
    ScenarioResult r = small_result(id, true);
    if (id == changed) change(r);
    store->append(r);
  }
  store->finalize();
  return path;
}

TEST(H5StoreMerge, OverlapsAreKeptOnceOtherSweepsMakeACollection) {
  TempDir dir;
  const auto a = make_shard(dir, "a.h5", 0, 2);
  const auto other = make_shard(dir, "other.h5", 1, 2, "ffffffffffffffff");
  // A file given twice: one sweep, every scenario once.
  const std::string twice = dir.file("twice.h5");
  MergeSummary m = merge_stores({a, a}, twice);
  EXPECT_EQ(m.sweeps, 1u);
  EXPECT_EQ(m.scenarios, 4u);
  EXPECT_EQ(m.duplicates, 4u);
  EXPECT_FALSE(m.collection);
  EXPECT_EQ(col_i64(twice, "scenarios", "id"), (std::vector<std::int64_t>{0, 1, 4, 5}));
  EXPECT_EQ(col_i64(twice, "metrics", "id"), (std::vector<std::int64_t>{0, 1, 5}));
  EXPECT_EQ(col_i64(twice, "errors", "id"), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(col_i64(twice, "jobs", "scenario_id").size(), 6u);
  EXPECT_EQ(ResultStore::read(twice).meta.sweep_hash, "abcdef0123456789");

  // Another sweep: a collection, ids renumbered in input order, keys and results kept.
  const std::string out = dir.file("out.h5");
  m = merge_stores({other, a}, out);
  EXPECT_EQ(m.sweeps, 2u);
  EXPECT_EQ(m.scenarios, 8u);
  EXPECT_EQ(m.duplicates, 0u);
  EXPECT_TRUE(m.collection);
  const StoreContents c = ResultStore::read(out);
  EXPECT_TRUE(c.meta.collection);
  EXPECT_TRUE(c.meta.complete);
  EXPECT_EQ(c.meta.total_scenarios, 8u);
  EXPECT_NE(c.meta.sweep_hash, "abcdef0123456789");
  EXPECT_NE(c.meta.sweep_hash, "ffffffffffffffff");
  EXPECT_EQ(c.meta.axes, (std::vector<std::string>{"network.bandwidth_scale", "workload.trace"}));
  EXPECT_NE(c.meta.sweep_toml.find("sweep_hash ffffffffffffffff"), std::string::npos) << c.meta.sweep_toml;
  EXPECT_EQ(col_i64(out, "scenarios", "id"), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // other's ids 2, 3, 6, 7, then a's 0, 1, 4, 5: keys follow, and points are matched by
  // content (ids 2/3 and 0/1 are point 0, 6/7 and 4/5 point 1).
  std::vector<std::string> want_keys;
  for (const auto& f : {other, a})
    for (const auto& k : col_str(f, "scenarios", "key")) want_keys.push_back(k);
  EXPECT_EQ(col_str(out, "scenarios", "key"), want_keys);
  EXPECT_EQ(col_i64(out, "scenarios", "point"), (std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1}));
  // results by content: other's 2 -> 0, 3 (error) -> 1, 6 -> 2, 7 -> 3; a's 0, 1, 4 (error), 5 -> 4..7
  EXPECT_EQ(col_i64(out, "metrics", "id"), (std::vector<std::int64_t>{0, 2, 3, 4, 5, 7}));
  EXPECT_EQ(col_f64(out, "metrics", "avg_jct_s"), (std::vector<double>{102, 106, 107, 100, 101, 105}));
  EXPECT_EQ(col_i64(out, "errors", "id"), (std::vector<std::int64_t>{1, 6}));
  EXPECT_EQ(col_i64(out, "jobs", "scenario_id").size(), 12u);
  // The collection merges again with its parts: nothing new, every result compared.
  const std::string again = dir.file("again.h5");
  m = merge_stores({out, a, other}, again);
  EXPECT_EQ(m.scenarios, 8u);
  EXPECT_EQ(m.duplicates, 8u);
  EXPECT_EQ(m.checked, 8u);
  EXPECT_EQ(col_str(again, "scenarios", "key"), want_keys);

  try {
    merge_stores({a, dir.file("nope.h5")}, dir.file("x.h5"));
    FAIL() << "missing file accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir.file("nope.h5"));
  }
  EXPECT_FALSE(fs::exists(dir.file("x.h5")));
  EXPECT_FALSE(fs::exists(dir.file("x.h5.merge-tmp")));
}

// One scenario (one content key) with two different results is an error naming it, whether the
// files are of one sweep (joined by id) or of two (a collection); nothing is written.
TEST(H5StoreMerge, DifferentResultsForOneScenarioAreAnError) {
  TempDir dir;
  const auto a = full_file(dir, "a.h5", "abcdef0123456789");
  const auto slower = [](ScenarioResult& r) { r.metrics.avg_jct_s += 1; };
  const auto failed = [](ScenarioResult& r) {
    r.ok = false;
    r.error = "boom";
    r.jobs.clear();
  };
  const auto same_sweep = full_file(dir, "same.h5", "abcdef0123456789", 2, slower);
  const auto other_sweep = full_file(dir, "other.h5", "0123456789abcdef", 2, slower);
  const auto same_failed = full_file(dir, "same-failed.h5", "abcdef0123456789", 2, failed);
  const auto other_failed = full_file(dir, "other-failed.h5", "0123456789abcdef", 2, failed);
  const std::string key2 = col_str(a, "scenarios", "key")[2];
  const std::string out = dir.file("out.h5");
  const auto refused = [&](const std::vector<std::string>& in, const std::string& file,
                           const std::vector<std::string>& words) {
    try {
      merge_stores(in, out);
      ADD_FAILURE() << "a conflicting result was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), file);
      for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
    for (const char* tmp : {".merge-tmp", ".collect-tmp", ".lock"}) EXPECT_FALSE(fs::exists(out + tmp)) << tmp;
  };
  refused({a, same_sweep}, same_sweep, {"scenario 2 has a different result in '" + a + "'", "avg_jct_s = 102 vs 103"});
  refused({a, other_sweep}, other_sweep, {key2, "'" + a + "' (id 2)", "avg_jct_s = 102 vs 103"});
  refused({a, same_failed}, dir.file("out.h5"), {"scenario 2 failed in one input ('boom')"});
  refused({a, other_failed}, other_failed, {key2, "metrics vs error 'boom'"});
  // A wall-clock metric may differ.
  const auto timed = full_file(dir, "timed.h5", "0123456789abcdef", 2, [](ScenarioResult& r) { r.metrics.wall_s = 9; });
  EXPECT_EQ(merge_stores({a, timed}, out).checked, 8u);
}

// ---- bad input and failures --------------------------------------------------------------------

TEST(H5StoreErrors, NonGeopipeInputsAreInputErrors) {
  TempDir dir;
  const std::string text = dir.file("notes.txt");
  std::ofstream(text) << "this is not HDF5\n";
  try {
    ResultStore::read(text);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), text);
    EXPECT_NE(e.message().find("not a geopipe result file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_joined(text), InputError);

  // A valid HDF5 file that is not ours.
  const std::string other = dir.file("other.h5");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t f = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  H5Fclose(f);
  try {
    ResultStore::read(other);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), other);
    EXPECT_NE(e.message().find("not a geopipe result file"), std::string::npos) << e.what();
  }

  // A truncated geopipe file.
  const std::string good = dir.file("good.h5");
  create_small(good, false)->finalize();
  const std::string cut = dir.file("cut.h5");
  {
    const std::string bytes = slurp(good);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  EXPECT_THROW(ResultStore::read(cut), InputError);

  try {
    ResultStore::read(dir.file("missing.h5"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir.file("missing.h5"));
  }
}

TEST(H5StoreErrors, CreateRefusesExistingOutputAndBadDirectory) {
  TempDir dir;
  const std::string path = dir.file("exists.h5");
  std::ofstream(path) << "precious";
  EXPECT_THROW(create_small(path, false), InputError);
  EXPECT_EQ(slurp(path), "precious");

  const std::string bad = dir.file("no/such/dir/out.h5");
  try {
    create_small(bad, false);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), bad);
    EXPECT_NE(e.message().find("No such file or directory"), std::string::npos) << e.what();
  }
}

TEST(H5StoreErrors, FullDiskGivesAClearMessage) {
  TempDir dir;
  const std::string path = dir.file("full.h5");
  Child c;
  spawn(c, {GEOPIPE_H5_CRASH_WRITER, "fsize", path, "1000000"});
  std::string line, all;
  while (c.line(line, 120000)) all += line + "\n";
  const int st = c.wait();
  ASSERT_TRUE(WIFEXITED(st)) << "writer crashed: " << all;
  EXPECT_EQ(WEXITSTATUS(st), 3) << all;
  EXPECT_NE(all.find("ERR " + path), std::string::npos) << all;
  EXPECT_NE(all.find("File too large"), std::string::npos) << all;
  std::cout << "[ full     ] " << all;
}

// ---- performance (reported, not asserted) ------------------------------------------------------

// Also exercises the bounded-memory sort of finalize(): 100k metrics rows (19 MB) and 1M jobs
// rows (240 MB) exceed its 16 MB budget, so it sorts in several passes over id ranges.
TEST(H5StorePerf, Append100kRows) {
  TempDir dir;
  const std::int64_t n = 100000;
  config::SweepSpec spec = small_spec();
  const config::SweepPoint p0 = spec.listed[0];
  spec.listed.assign(static_cast<std::size_t>(n / 4), p0);
  for (std::size_t p = 0; p < spec.listed.size(); ++p) spec.listed[p].numeric[0] = 0.001 * static_cast<double>(p);
  spec.point_digests.assign(spec.listed.size(), {5, 6});
  Plan plan(spec.listed.size(), 2, 2);
  StoreMeta meta = small_meta();

  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  for (const bool jobs : {false, true}) {
    // Metrics only: appended in a random order (worst case for the sort); with 10 jobs per
    // scenario: in id order (what the runner does, up to the disorder of parallel workers).
    const std::string path = dir.file(jobs ? "perf-jobs.h5" : "perf.h5");
    std::vector<std::int64_t> order = crash_order(n);
    if (jobs) std::sort(order.begin(), order.end());
    const auto t0 = clk::now();
    auto store = ResultStore::create(path, meta, spec, plan, jobs);
    const auto t1 = clk::now();
    std::mt19937_64 vals(7);
    std::uniform_real_distribution<double> u(0.0, 1e6);
    std::size_t k = 0;
    for (const std::int64_t i : order) {
      ScenarioResult r;
      r.id = i;
      r.ok = true;
      // Realistic (poorly compressible) values: random doubles, except a checkable avg_jct_s.
      ScenarioMetrics& mm = r.metrics;
      for (double* v : {&mm.p50_jct_s, &mm.p95_jct_s, &mm.p99_jct_s, &mm.avg_queue_delay_s, &mm.makespan_s,
                        &mm.total_energy_j, &mm.total_cost_usd, &mm.total_carbon_g, &mm.gpu_hours,
                        &mm.gpu_utilization, &mm.cross_region_bytes, &mm.stall_fraction, &mm.sched_time_total_s,
                        &mm.sched_time_max_s, &mm.wall_s})
        *v = u(vals);
      mm.avg_jct_s = 1.25 * static_cast<double>(i);
      mm.jobs_total = mm.jobs_completed = 200;
      mm.events = static_cast<long>(u(vals));
      if (jobs)
        for (int j = 9; j >= 0; --j) {
          JobRow jr;
          jr.job_id = j;
          jr.model = "llama2-13b";
          jr.stages = 4;
          jr.gpus_per_stage = 2;
          jr.regions = "us-east;eu-west;ap-northeast";
          jr.arrival_s = u(vals);
          jr.start_s = jr.arrival_s + u(vals);
          jr.finish_s = jr.start_s + u(vals);
          jr.iterations = 1000;
          jr.energy_j = u(vals);
          jr.cost_usd = static_cast<double>(i) + 0.01 * j;
          r.jobs.push_back(jr);
        }
      store->append(r);
      if (++k % 1000 == 0) store->flush();  // a runner flushing often
    }
    store->flush();
    const auto t2 = clk::now();
    const auto size_open = fs::file_size(path);
    store->finalize();
    const auto t3 = clk::now();
    const auto size_final = fs::file_size(path);
    std::cout << "[ perf     ] " << n << " metrics rows" << (jobs ? " + 1M jobs rows (in id order)" : " (random order)")
              << ": create " << secs(t0, t1) << " s, append+flush " << secs(t1, t2) << " s ("
              << static_cast<double>(n) / secs(t1, t2) << " scenarios/s), finalize " << secs(t2, t3)
              << " s; file " << size_open / 1024 << " KiB before finalize, " << size_final / 1024 << " KiB after\n";

    const auto ids = col_i64(path, "metrics", "id");
    const auto jct = col_f64(path, "metrics", "avg_jct_s");
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(ids[static_cast<std::size_t>(i)], i);
      ASSERT_EQ(jct[static_cast<std::size_t>(i)], 1.25 * static_cast<double>(i));
    }
    EXPECT_TRUE(ResultStore::read(path).meta.complete);
    if (jobs) {
      const auto js = col_i64(path, "jobs", "scenario_id");
      const auto jj = col_i64(path, "jobs", "job_id");
      const auto jc = col_f64(path, "jobs", "cost_usd");
      ASSERT_EQ(js.size(), static_cast<std::size_t>(10 * n));
      for (std::size_t r = 0; r < js.size(); ++r) {
        ASSERT_EQ(js[r], static_cast<std::int64_t>(r / 10));
        ASSERT_EQ(jj[r], static_cast<std::int64_t>(r % 10));
        ASSERT_DOUBLE_EQ(jc[r], static_cast<double>(r / 10) + 0.01 * static_cast<double>(r % 10));
      }
    }
  }
}

}  // namespace

// A text longer than its column keeps its start and end around a visible marker (never a
// silent cut), on a UTF-8 boundary; a text that fits is stored as is.
TEST(H5Table, TooLongTextIsShortenedVisibly) {
  namespace h5 = geopipe::sweep::h5;
  h5::Layout l;
  l.add("message", h5::Kind::Str, h5::kErrorWidth);
  std::vector<unsigned char> row(l.size);
  std::string longer = "start ";
  for (int i = 0; i < 1000; ++i) longer += "\u00e9t\u00e9 ";
  longer += " the end";
  h5::put_str(row.data(), l.fields[0], longer);
  const std::string got = h5::get_str(row.data(), l.fields[0]);
  EXPECT_LE(got.size(), h5::kErrorWidth);
  EXPECT_EQ(got.rfind("start ", 0), 0u) << got;
  EXPECT_NE(got.find("bytes omitted"), std::string::npos) << got;
  EXPECT_EQ(got.substr(got.size() - 8), " the end") << got;
  const std::string fits = "a short message";
  h5::put_str(row.data(), l.fields[0], fits);
  EXPECT_EQ(h5::get_str(row.data(), l.fields[0]), fits);
}
