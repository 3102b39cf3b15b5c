// Timing of the HDF5 result store, reported and not asserted: 100k metrics rows and 1M jobs
// rows through the bounded-memory sort of finalize().
#include <gtest/gtest.h>
#include <hdf5.h>

#include "h5store_testing.h"

using namespace geopipe;
using namespace geopipe::sweep;
using namespace geopipe::h5store_testing;
namespace fs = std::filesystem;

namespace {

// ---- performance (reported, not asserted) ------------------------------------------------------

// Also exercises the bounded-memory sort of finalize(): 100k metrics rows (19 MB) and 1M jobs
// rows (240 MB) exceed its 16 MB budget, so it sorts in several passes over id ranges.
TEST(H5StorePerf, Append100kRows) {
  TempDir dir;
  const std::int64_t n = 100000;
  config::SweepSpec spec = small_spec();
  const config::SweepPoint p0 = spec.points.listed[0];
  spec.points.listed.assign(static_cast<std::size_t>(n / 4), p0);
  for (std::size_t p = 0; p < spec.points.listed.size(); ++p) spec.points.listed[p].numeric[0] = 0.001 * static_cast<double>(p);
  spec.point_digests.assign(spec.points.listed.size(), {5, 6});
  Plan plan(spec.points.listed.size(), 2, 2);
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
