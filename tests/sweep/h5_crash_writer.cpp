// Helper program for the crash-safety tests of test_h5store.cpp (not installed).
//
//   h5_crash_writer create PATH M FLUSH_EVERY [--jobs] [--hang]
//       creates a store for scenarios 0..M-1 and appends them in a fixed shuffled order
//       (crash_order(M)), calling flush() every FLUSH_EVERY rows, printing "B <n>" before and
//       "F <n>" (n rows appended by this process and flushed) after each flush. --jobs saves 3 jobs per ok
//       scenario; --hang waits to be killed after the last row instead of exiting.
//   h5_crash_writer resume PATH M FLUSH_EVERY [--jobs] [--hang]
//       read() + resume() the file, prints "R <done>", then appends the missing scenarios in
//       crash_order(M) order, as above.
//   h5_crash_writer fsize PATH LIMIT_BYTES
//       limits the file size (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG, like a
//       full disk), appends rows until the store throws, prints "ERR <what()>" and exits 3.
//
// Row values are a function of the id: tests/sweep/crash_rows.h, shared with
// test_h5store.cpp.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "sweepfile/loader.h"
#include "crash_rows.h"
#include "results/hdf5/store.h"

using namespace geopipe;
using namespace geopipe::sweep;

namespace {

constexpr std::uint64_t kSchedulers = 2;

config::SweepSpec crash_spec(std::uint64_t m) {
  config::SweepSpec s;
  s.name = "crash";
  s.text = "[sweep]\nname = \"crash\"\n";
  s.base_text = "# base\n";
  s.schedulers = {"bace-pipe", "cost-first"};
  s.seeds = {1};
  s.columns = {{"network.bandwidth_scale", true}};
  const std::uint64_t points = (m + kSchedulers - 1) / kSchedulers;
  for (std::uint64_t p = 0; p < points; ++p) {
    config::SweepPoint pt;
    pt.numeric = {0.5 * static_cast<double>(p)};
    pt.text = {""};
    s.points.listed.push_back(pt);
    s.point_digests.push_back({p, p + 1});
  }
  s.hash = 0x1234;
  s.job_text = {16, 32};
  return s;
}

ScenarioResult crash_result(std::int64_t id, bool jobs) { return crash_rows::result(id, jobs); }
std::vector<std::int64_t> crash_order(std::int64_t m) { return crash_rows::order(m); }

int run(const std::string& mode, const std::string& path, std::int64_t m, std::int64_t every, bool jobs,
        bool hang) {
  const auto spec = crash_spec(static_cast<std::uint64_t>(m));
  Plan plan(spec.num_points(), spec.seeds.size(), spec.schedulers.size());
  std::unique_ptr<ResultStore> store;
  std::unordered_set<std::int64_t> done;
  if (mode == "create") {
    StoreMeta meta;
    meta.geopipe_version = "test";
    meta.layout = "ranks=1 threads=1";
    meta.sweep_hash = "0000000000001234";
    meta.total_scenarios = static_cast<std::uint64_t>(m);
    store = ResultStore::create(path, meta, spec, plan, jobs);
  } else {
    const StoreContents c = ResultStore::read(path);
    done.insert(c.done_ids.begin(), c.done_ids.end());
    store = ResultStore::resume(path, c, "ranks=1 threads=1");
    std::printf("R %zu\n", done.size());
    std::fflush(stdout);
  }
  std::int64_t appended = 0;
  for (std::int64_t id : crash_order(m)) {
    if (done.count(id)) continue;
    store->append(crash_result(id, jobs));
    if (++appended % every == 0) {
      std::printf("B %lld\n", static_cast<long long>(appended));  // a flush begins
      std::fflush(stdout);
      store->flush();
      std::printf("F %lld\n", static_cast<long long>(appended));
      std::fflush(stdout);
    }
  }
  store->flush();
  std::printf("F %lld\n", static_cast<long long>(appended));
  std::printf("DONE\n");
  std::fflush(stdout);
  if (hang)
    for (;;) pause();
  return 0;
}

int fsize(const std::string& path, long limit) {
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit rl{};
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(limit);
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
    std::perror("setrlimit");
    return 1;
  }
  const std::int64_t m = 2'000'000;
  const auto spec = crash_spec(1000);
  Plan plan(spec.num_points(), spec.seeds.size(), spec.schedulers.size());
  try {
    StoreMeta meta;
    meta.sweep_hash = "0000000000001234";
    auto store = ResultStore::create(path, meta, spec, plan, true);
    for (std::int64_t id = 0; id < m; ++id) {
      store->append(crash_result(id, true));
      if (id % 1000 == 999) store->flush();
    }
    store->finalize();
  } catch (const std::exception& e) {
    std::printf("ERR %s\n", e.what());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: h5_crash_writer create|resume PATH M FLUSH_EVERY [--jobs] [--hang]\n"
                         "       h5_crash_writer fsize PATH LIMIT_BYTES\n");
    return 1;
  }
  const std::string mode = argv[1];
  try {
    if (mode == "fsize") return fsize(argv[2], std::atol(argv[3]));
    if (argc < 5) return 1;
    bool jobs = false, hang = false;
    for (int i = 5; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--jobs") jobs = true;
      else if (a == "--hang") hang = true;
    }
    return run(mode, argv[2], std::atoll(argv[3]), std::atoll(argv[4]), jobs, hang);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "h5_crash_writer: %s\n", e.what());
    return 2;
  }
}
