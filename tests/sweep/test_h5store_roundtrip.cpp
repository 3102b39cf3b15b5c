// Tests of the HDF5 result store (src/results/hdf5/store.h): rows, errors, jobs, attributes and
// parameters written and read back with the library, the HDF5 C API and (when available) h5py +
// pandas; unfinished files; concurrent readers; long texts.
#include <gtest/gtest.h>
#include <hdf5.h>

#include "h5store_testing.h"
#include "util/input_error.h"

using namespace geopipe;
using namespace geopipe::sweep;
using namespace geopipe::h5store_testing;
namespace fs = std::filesystem;

namespace {

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
  EXPECT_EQ(c.meta.format_version, 10);
  EXPECT_EQ(c.meta.evaluator, "simulation");
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
  spec.points.listed[1].numeric[0] = std::nan("");  // point 1 leaves the bandwidth scale alone
  spec.points.listed[1].text[1] = "";               // and the trace: it has no fixed value
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

TEST(H5Store, TextAxisValuesAreStoredWithoutTomlQuotes) {
  TempDir dir;
  config::SweepSpec spec = small_spec();
  spec.schedulers = {"bace-pipe"};
  spec.seeds = {7};
  spec.columns = {{"workload.trace", false}};
  spec.points.listed.clear();
  for (const char* v : {"\"x\\\"y\"", "\"caf\\u00e9\"", "'lit'", "[1, 2]", "true"}) {
    config::SweepPoint p;
    p.numeric = {std::nan("")};
    p.text = {v};
    spec.points.listed.push_back(p);
  }
  const std::string path = dir.file("text.h5");
  StoreMeta meta = small_meta();
  meta.schedulers = spec.schedulers;
  meta.axes = {"workload.trace"};
  spec.point_digests.assign(spec.points.listed.size(), {7, 8});
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

// create_in_background (what a sweep's new output uses): the file is written by another thread
// while rows are appended; the finished file is the one create() gives, byte for byte, also
// when every row was appended before the file existed (the test holds HDF5's lock, so the
// writing thread cannot start before the rows are in), with or without /jobs.
TEST(H5Store, CreatedInTheBackgroundGivesTheFileOfCreate) {
  TempDir dir;
  const auto spec = small_spec();
  const Plan plan(2, 2, 2);
  for (const bool jobs : {false, true}) {
    const std::string ref = dir.file(jobs ? "ref-jobs.h5" : "ref.h5");
    const std::string bg = dir.file(jobs ? "bg-jobs.h5" : "bg.h5");
    {
      auto store = ResultStore::create(ref, small_meta(), spec, plan, jobs);
      for (std::int64_t id : {5, 2, 7, 0, 3, 1, 6, 4}) store->append(small_result(id, jobs));
      store->finalize();
    }
    {
      std::unique_ptr<ResultStore> store;
      {
        const h5::Lock hold;  // the writing thread waits for it
        store = ResultStore::create_in_background(bg, small_meta(), spec, plan, jobs);
        EXPECT_FALSE(fs::exists(bg));  // not yet written
        for (std::int64_t id : {5, 2, 7, 0, 3, 1, 6, 4}) store->append(small_result(id, jobs));
        EXPECT_EQ(store->rows_written(), 8u);
        EXPECT_FALSE(fs::exists(bg));
      }
      store->finalize();
    }
    EXPECT_FALSE(fs::exists(bg + ".create-tmp"));
    EXPECT_EQ(ResultStore::read(bg).done_ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_TRUE(slurp(ref) == slurp(bg)) << "jobs " << jobs << ": the files differ";
  }
}

// Its failure (here: the output path taken while the file was written) is thrown by the first
// call that writes; the file at the path is left alone and no temporary file remains.
TEST(H5Store, CreatedInTheBackgroundReportsItsFailureAtTheFirstWrite) {
  TempDir dir;
  const auto spec = small_spec();
  const std::string path = dir.file("taken.h5");
  std::unique_ptr<ResultStore> store;
  {
    const h5::Lock hold;
    store = ResultStore::create_in_background(path, small_meta(), spec, Plan(2, 2, 2), false);
    std::ofstream(path) << "someone else's";
    store->append(small_result(0, false));  // buffered: nothing to report yet
  }
  try {
    store->flush();
    FAIL() << "expected the background write's failure";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("appeared while this one was being written"), std::string::npos) << e.message();
  }
  EXPECT_EQ(slurp(path), "someone else's");
  EXPECT_FALSE(fs::exists(path + ".create-tmp"));
  store.reset();  // a closed store: nothing more is written or reported
  EXPECT_EQ(slurp(path), "someone else's");
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

// finalize() keeps a file that holds every row in the rebuild's order, each chunk written once,
// and copies it table by table with its chunks as stored when some chunk was written twice
// (docs/hdf5-format.md, "Finalize"): either way a reader sees the file the rebuild writes, table
// by table (type, shape, chunks, filters, fill value, every byte of every row) and attribute by
// attribute. Any other history takes the rebuild, to the same contents.
TEST(H5Store, FinalizeKeepsAFileAlreadyInTheRebuildsOrder) {
  TempDir dir;
  const auto spec = small_spec();
  const Plan plan(2, 2, 2);
  // Jobs by job_id (small_result lists job 1 first, which the rebuild sorts).
  const auto result = [](std::int64_t id, bool jobs) {
    ScenarioResult r = small_result(id, jobs);
    std::reverse(r.jobs.begin(), r.jobs.end());
    return r;
  };
  const auto image = [](const std::string& path, bool jobs) {
    std::string out = root_attributes(path);
    for (const char* t : {"scenarios", "metrics", "errors", "parameters"}) out += dataset_image(path, t) + "\n";
    if (jobs) out += dataset_image(path, "jobs") + "\n";
    return out;
  };
  for (const bool jobs : {false, true}) {
    SCOPED_TRACE(jobs ? "with /jobs" : "without /jobs");
    const std::string ref = dir.file(jobs ? "ref-jobs.h5" : "ref.h5");
    {
      auto store = ResultStore::create(ref, small_meta(), spec, plan, jobs);
      for (std::int64_t id : {5, 2, 7, 0, 3, 1, 6, 4}) store->append(result(id, jobs));
      store->finalize();
      EXPECT_EQ(store->finalized_as(), ResultStore::Finalized::kRebuilt);  // ids out of order
    }
    ASSERT_TRUE(ResultStore::read(ref).meta.complete);
    const std::string want = image(ref, jobs);
    // name, then how the rows arrive: each case's file must read as the reference.
    constexpr auto Kept = ResultStore::Finalized::kKept, Compacted = ResultStore::Finalized::kCompacted,
                   Rebuilt = ResultStore::Finalized::kRebuilt;
    struct Case {
      const char* name;
      ResultStore::Finalized how;
      std::function<void(ResultStore&)> fill;
    };
    const auto in_order = [&](ResultStore& s, std::int64_t from, std::int64_t to) {
      for (std::int64_t id = from; id < to; ++id) s.append(result(id, jobs));
    };
    std::uintmax_t running_bytes = 0;  // of the file before finalize(), in the case that sets it
    const std::vector<Case> cases = {
        {"in order", Kept, [&](ResultStore& s) { in_order(s, 0, 8); }},
        {"in order, background creation", Kept, {}},
        // a flush after 4 scenarios: the next rows start inside a chunk (8 rows) written before
        {"a flush inside a chunk", Compacted,
         [&](ResultStore& s) {
           in_order(s, 0, 4);
           s.flush();
           in_order(s, 4, 8);
           s.flush();
           running_bytes = fs::file_size(dir.file(std::string(jobs ? "jobs-" : "") + "a flush inside a chunk.h5"));
         }},
        {"two ids swapped", Rebuilt,
         [&](ResultStore& s) {
           in_order(s, 0, 6);
           s.append(result(7, jobs));
           s.append(result(6, jobs));
         }},
        {"jobs out of job_id order", jobs ? Rebuilt : Kept,
         [&](ResultStore& s) {
           for (std::int64_t id = 0; id < 8; ++id) s.append(small_result(id, jobs));
         }},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      const std::string path = dir.file(std::string(jobs ? "jobs-" : "") + c.name + ".h5");
      std::unique_ptr<ResultStore> store;
      if (c.fill) {
        store = ResultStore::create(path, small_meta(), spec, plan, jobs);
        c.fill(*store);
      } else {
        store = ResultStore::create_in_background(path, small_meta(), spec, plan, jobs);
        in_order(*store, 0, 8);
      }
      store->finalize();
      EXPECT_EQ(store->finalized_as(), c.how);
      store.reset();
      EXPECT_FALSE(fs::exists(path + ".final-tmp"));
      EXPECT_TRUE(image(path, jobs) == want) << "the file reads differently from the rebuilt one";
      // Copied as stored, the chunk written twice leaves its first copy behind: no larger than
      // the rebuilt file (the running file before finalize() was larger).
      if (c.how == Compacted) {
        EXPECT_LT(fs::file_size(path), running_bytes);
        EXPECT_LE(fs::file_size(path), fs::file_size(ref));
      }
    }
  }
  // Missing rows: rebuilt, and not complete.
  const std::string partial = dir.file("partial.h5");
  auto store = ResultStore::create(partial, small_meta(), spec, plan, false);
  for (std::int64_t id = 0; id < 7; ++id) store->append(small_result(id, false));
  store->finalize();
  EXPECT_EQ(store->finalized_as(), ResultStore::Finalized::kRebuilt);
  EXPECT_FALSE(ResultStore::read(partial).meta.complete);
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

}  // namespace
