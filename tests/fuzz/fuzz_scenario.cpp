// Fuzz target: the scenario loader with --set overrides (config/scenario_loader.h).
//
// Input layout: byte 0 = h; then (h & 3) lines, each one "--set" argument (path=value, up to
// '\n'), given to parse_override; the rest is the scenario's TOML text. (h >> 2) picks one of
// the canned overrides below (0: none), applied after the free-form ones, so the fuzzer reaches
// the override paths of arrays of tables without guessing their names. A scenario's relative
// paths (workload.trace) resolve in tests/config/good/ (trace.csv is there).
//
// A scenario that loads is also simulated, but only when it is tiny (at most 4 regions and 8
// jobs, no price events), so one input stays far below the fuzzer's timeout. Seeds:
// scripts/fuzz.sh prefixes each shipped scenario with the byte 0 (and a few with overrides).
#include <iterator>
#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "fuzz_target.h"
#include "model/scenario.h"
#include "sched/registry.h"
#include "sched/scheduler.h"
#include "sim/engine.h"
#include "util/input_error.h"

const char* const kFuzzTargetName = "scenario";

namespace {

const char* const kCanned[] = {
    "network.bandwidth_scale=0.5",
    "cluster.capacity_scale=2",
    "workload.num_jobs=3",
    "workload.load_scale=100",
    "scheduler.preset=cost-first",
    "scheduler.preset=\"greedy-cost\"",
    "cluster.region[0].gpus=1",
    "cluster.region[1].price_profile_usd_per_kwh=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]",
    "cluster.region.us-east.gpus=64",
    "workload.mix.tiny.weight=0",
    "workload.mix[0].micro_batches=1",
    "workload.trace=\"trace.csv\"",
    "network.link.us-east/us-west.latency_ms=1e308",
    "network.link[0].regions=[\"a\",\"b\"]",
    "gpu.small-gpu.peak_tflops=1e-300",
    "model.tiny.layers=1",
    "sim.mfu=1",
    "scheduler.max_region_switches=0",
    "scheduler.view_noise_sigma=0.999",
    "\"scenario\".\"name\"=x",
    "faults.gpu_mtbf_h=0.5",
    "faults.checkpoint_interval_s=\"none\"",
    "cluster.region[0].spot_mtbp_h=0.01",
    "cluster.region[0].gpus_series=\"series_gpus.csv\"",
    "faults.migrate_after_s=0",
    "faults.checkpoint_storage=\"regional\"",
};
constexpr std::size_t kNumCanned = std::size(kCanned);

constexpr int kMaxSimRegions = 4;
constexpr int kMaxSimJobs = 8;

bool tiny(const geopipe::Scenario& sc) {
  if (sc.topology.num_regions() > kMaxSimRegions) return false;
  if (!sc.trace_jobs.empty()) return sc.trace_jobs.size() <= kMaxSimJobs;
  return sc.workload.num_jobs <= kMaxSimJobs;
}

}  // namespace

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  static const std::string base_dir = geopipe::fuzz::source_dir() + "/tests/config/good";
  const std::string in(reinterpret_cast<const char*>(data), size);
  std::size_t pos = 0;
  const unsigned h = size > 0 ? data[0] : 0u;
  if (size > 0) pos = 1;
  try {
    std::vector<geopipe::config::Override> overrides;
    for (unsigned k = 0; k < (h & 3u); ++k) {
      std::size_t nl = in.find('\n', pos);
      if (nl == std::string::npos) nl = in.size();
      overrides.push_back(geopipe::config::parse_override(in.substr(pos, nl - pos)));
      pos = nl < in.size() ? nl + 1 : nl;
    }
    const std::size_t canned = h >> 2;
    if (canned > 0) overrides.push_back(geopipe::config::parse_override(kCanned[(canned - 1) % kNumCanned]));
    const geopipe::Scenario sc =
        geopipe::config::load_scenario_string(in.substr(pos), "fuzz.toml", overrides, base_dir);
    if (tiny(sc)) {
      const std::vector<geopipe::Job> jobs = sc.jobs_for_seed(sc.seed);
      auto scheduler = geopipe::make_scheduler(sc.scheduler.preset, sc.scheduler);
      geopipe::SimOptions opt;
      opt.price_events = false;
      // Failures may restart a job up to 10^5 times per segment (model/faults.h): the budget keeps
      // one input fast, and a run beyond it is an InputError like any other.
      opt.max_events = 200'000;
      (void)geopipe::simulate(sc, jobs, *scheduler, sc.seed, opt);
    }
  } catch (const geopipe::InputError&) {
    // bad input: expected
  }
  return 0;
}
