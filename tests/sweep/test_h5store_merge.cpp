// Merging HDF5 result files (merge_stores, src/results/hdf5/store.h): shards of one sweep,
// overlaps, collections of different sweeps and their columns, conflicting results.
#include <gtest/gtest.h>
#include <hdf5.h>

#include "h5store_testing.h"

using namespace geopipe;
using namespace geopipe::sweep;
using namespace geopipe::h5store_testing;
namespace fs = std::filesystem;

namespace {

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

}  // namespace
