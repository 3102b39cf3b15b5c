// Crash safety and old formats of the HDF5 result store: tests/sweep/h5_crash_writer.cpp killed
// with SIGKILL at random moments, then resumed; a failed resume; format 2 and 3 files.
#include <gtest/gtest.h>
#include <hdf5.h>

#include "h5store_testing.h"

using namespace geopipe;
using namespace geopipe::sweep;
using namespace geopipe::h5store_testing;
namespace fs = std::filesystem;

namespace {

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

}  // namespace
