// Tests of the config layer: good scenarios (values and unit conversions), --set overrides,
// did-you-mean, and a data-driven test over tests/config/bad/*.toml whose first line is
// "# expect: <substring of the error message>".
#include <gtest/gtest.h>

#include "expectations.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/overrides.h"
#include "config/scenario_loader.h"
#include "config/schema.h"
#include "config/toml_error.h"
#include "model/flexible_job.h"
#include "model/gpu.h"
#include "util/input_error.h"
#include "model/llm.h"
#include "model/rng.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;

namespace {

const std::string kDir = GEOPIPE_CONFIG_TEST_DIR;
const std::string kSmall = kDir + "/good/small.toml";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int region(const Scenario& sc, const std::string& name) {
  const int r = sc.topology.find_region(name);
  EXPECT_GE(r, 0) << name;
  return r;
}

int llm_index(const Scenario& sc, const std::string& name) {
  for (std::size_t i = 0; i < sc.llms.size(); ++i)
    if (sc.llms[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no model " << name;
  return -1;
}

/// Runs `f`, expecting an InputError; returns its what().
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Scenario load_small(const std::vector<std::string>& sets) {
  std::vector<Override> ov;
  for (const auto& s : sets) ov.push_back(parse_override(s));
  return load_scenario_file(kSmall, ov);
}

const char* kMinimal = R"(
[scenario]
name = "minimal"
[[cluster.region]]
name = "r"
gpu = "A100-80GB"
gpus = 2
price_usd_per_kwh = 0.1
[[workload.mix]]
model = "gpt3-1.3b"
)";

}  // namespace

// ============================================================================================
// Good scenarios
// ============================================================================================

TEST(GoodScenario, SmallTopLevelAndCompute) {
  const Scenario sc = load_scenario_file(kSmall);
  EXPECT_EQ(sc.name, "small");
  EXPECT_EQ(sc.seed, 7u);
  EXPECT_EQ(sc.source_path, kSmall);
  EXPECT_EQ(sc.compute.mfu, 0.5);
  EXPECT_DOUBLE_EQ(sc.compute.tp_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(sc.compute.optimizer_step_s, 0.25);
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 2.0);
  EXPECT_DOUBLE_EQ(sc.capacity_scale, 0.5);
}

TEST(GoodScenario, GpuTypesAndModels) {
  const Scenario sc = load_scenario_file(kSmall);
  const auto& builtins = builtin_gpus();
  ASSERT_EQ(sc.topology.gpu_types.size(), builtins.size() + 1);
  for (std::size_t i = 0; i < builtins.size(); ++i) EXPECT_EQ(sc.topology.gpu_types[i].name, builtins[i].name);
  const GpuType& g = sc.topology.gpu_types.back();
  EXPECT_EQ(g.name, "small-gpu");
  EXPECT_DOUBLE_EQ(g.peak_flops, 65e12);
  EXPECT_DOUBLE_EQ(g.memory_bytes, 16e9);
  EXPECT_DOUBLE_EQ(g.busy_power_w, 70);
  EXPECT_DOUBLE_EQ(g.idle_power_w, 10);

  ASSERT_EQ(sc.llms.size(), builtin_llms().size() + 1);
  const LlmSpec& m = sc.llms.back();
  EXPECT_EQ(m.name, "tiny");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.hidden, 512);
  EXPECT_EQ(m.vocab, 1000);
  EXPECT_EQ(m.seq_len, 128);
  EXPECT_EQ(m.bytes_per_elem, 2);
}

TEST(GoodScenario, RegionsCapacityScaleRounding) {
  const Scenario sc = load_scenario_file(kSmall);
  ASSERT_EQ(sc.topology.num_regions(), 3);
  const Region& e = sc.topology.regions[static_cast<std::size_t>(region(sc, "us-east"))];
  const Region& w = sc.topology.regions[static_cast<std::size_t>(region(sc, "us-west"))];
  const Region& eu = sc.topology.regions[static_cast<std::size_t>(region(sc, "eu-west"))];
  EXPECT_EQ(e.gpu_count, 4);   // 8 * 0.5
  EXPECT_EQ(w.gpu_count, 3);   // 5 * 0.5 = 2.5 -> 3
  EXPECT_EQ(eu.gpu_count, 2);  // 3 * 0.5 = 1.5 -> 2
  EXPECT_EQ(sc.topology.total_gpus(), 9);
  EXPECT_EQ(sc.topology.gpu_types[static_cast<std::size_t>(e.gpu_type)].name, "H100-SXM");
  EXPECT_EQ(sc.topology.gpu_types[static_cast<std::size_t>(w.gpu_type)].name, "A100-80GB");
  EXPECT_EQ(sc.topology.gpu_types[static_cast<std::size_t>(eu.gpu_type)].name, "small-gpu");
  EXPECT_DOUBLE_EQ(e.pue, 1.2);
  EXPECT_DOUBLE_EQ(e.carbon_g_per_kwh, 380);
  EXPECT_DOUBLE_EQ(e.utc_offset_h, -5);
  EXPECT_DOUBLE_EQ(w.pue, 1.0);  // default
  EXPECT_DOUBLE_EQ(eu.carbon_g_per_kwh, 0.0);
}

TEST(GoodScenario, Prices) {
  const Scenario sc = load_scenario_file(kSmall);
  const Region& e = sc.topology.regions[static_cast<std::size_t>(region(sc, "us-east"))];
  const Region& w = sc.topology.regions[static_cast<std::size_t>(region(sc, "us-west"))];
  EXPECT_TRUE(e.price.is_flat());
  EXPECT_DOUBLE_EQ(e.price.usd_per_kwh_at(12345.0), 0.08);
  EXPECT_FALSE(w.price.is_flat());
  // utc_offset_h = -8: 00:00 UTC is local hour 16 (0.20); 08:00 UTC is local 00:00 (0.05);
  // 14:00 UTC is local 06:00 (0.10).
  EXPECT_DOUBLE_EQ(w.price.usd_per_kwh_at(0.0), 0.20);
  EXPECT_DOUBLE_EQ(w.price.usd_per_kwh_at(8 * 3600.0 + 1), 0.05);
  EXPECT_DOUBLE_EQ(w.price.usd_per_kwh_at(14 * 3600.0 + 1), 0.10);
}

TEST(GoodScenario, LinksUnitsAndBandwidthScale) {
  const Scenario sc = load_scenario_file(kSmall);
  const Topology& t = sc.topology;
  const int e = region(sc, "us-east"), w = region(sc, "us-west"), eu = region(sc, "eu-west");
  ASSERT_EQ(t.links.size(), 9u);
  // 10 Gbit/s = 1.25e9 bytes/s, times bandwidth_scale 2 and the default link efficiency.
  const double k = 2 * kDefaultLinkEfficiency;
  EXPECT_DOUBLE_EQ(t.link(e, w).capacity_bytes_per_s, 1.25e9 * k);
  EXPECT_DOUBLE_EQ(t.link(w, e).capacity_bytes_per_s, 1.0e9 * k);  // reverse 8 Gbit/s
  EXPECT_DOUBLE_EQ(t.link(e, w).latency_s, 0.032);
  EXPECT_DOUBLE_EQ(t.link(w, e).latency_s, 0.032);
  EXPECT_DOUBLE_EQ(t.link(eu, e).capacity_bytes_per_s, 0.625e9 * k);
  EXPECT_DOUBLE_EQ(t.link(e, eu).capacity_bytes_per_s, 0.625e9 * k);
  EXPECT_DOUBLE_EQ(t.link(eu, e).latency_s, 0.0405);
  EXPECT_TRUE(t.connected(e, w));
  EXPECT_TRUE(t.connected(e, eu));
  EXPECT_FALSE(t.connected(w, eu));
  EXPECT_DOUBLE_EQ(t.link(w, eu).capacity_bytes_per_s, 0.0);
  EXPECT_DOUBLE_EQ(t.intra_bandwidth_bytes_per_s, 25e9);  // 200 Gbit/s
  EXPECT_DOUBLE_EQ(t.intra_latency_s, 2e-5);              // 0.02 ms
}

TEST(GoodScenario, WorkloadAndScheduler) {
  const Scenario sc = load_scenario_file(kSmall);
  const WorkloadOptions& w = sc.workload;
  EXPECT_EQ(w.num_jobs, 20);
  EXPECT_DOUBLE_EQ(w.arrival_rate_per_hour, 6);
  EXPECT_DOUBLE_EQ(w.load_scale, 1.5);
  EXPECT_DOUBLE_EQ(w.duration_min_h, 0.1);
  EXPECT_DOUBLE_EQ(w.duration_max_h, 2);
  EXPECT_DOUBLE_EQ(w.duration_pareto_alpha, 1.5);
  EXPECT_EQ(w.reference_gpu, "A100-80GB");
  EXPECT_GE(sc.reference_gpu_index(), 0);
  ASSERT_EQ(w.mix.size(), 2u);
  EXPECT_EQ(w.mix[0].model, llm_index(sc, "tiny"));
  EXPECT_DOUBLE_EQ(w.mix[0].weight, 3);
  EXPECT_EQ(w.mix[0].gpus_per_stage, 1);
  EXPECT_EQ(w.mix[0].micro_batch_size, 1);
  EXPECT_EQ(w.mix[0].micro_batches, 8);
  EXPECT_DOUBLE_EQ(w.mix[0].stage_multiplier, 1.0);
  EXPECT_EQ(w.mix[1].model, llm_index(sc, "gpt3-1.3b"));
  EXPECT_EQ(w.mix[1].micro_batch_size, 2);
  EXPECT_DOUBLE_EQ(w.mix[1].stage_multiplier, 2.0);
  EXPECT_TRUE(sc.trace_jobs.empty());

  const SchedulerParams& s = sc.scheduler;
  EXPECT_EQ(s.preset, "bace-pipe");
  EXPECT_EQ(s.max_region_switches, 2);
  EXPECT_DOUBLE_EQ(s.epsilon, 0.2);
  EXPECT_DOUBLE_EQ(s.priority_runtime_weight, 0.5);
  EXPECT_DOUBLE_EQ(s.priority_network_weight, 2);
  EXPECT_DOUBLE_EQ(s.priority_aging, 1.5);
  EXPECT_DOUBLE_EQ(s.view_staleness_s, 30);
  EXPECT_DOUBLE_EQ(s.view_noise_sigma, 0.1);

  const auto jobs = sc.jobs_for_seed(sc.seed);
  EXPECT_EQ(jobs.size(), 20u);
}

TEST(GoodScenario, Defaults) {
  const Scenario sc = load_scenario_string(kMinimal, "minimal.toml");
  EXPECT_EQ(sc.seed, 1u);
  EXPECT_FALSE(sc.compute.mfu.has_value());  // each GPU type's calibrated efficiency
  EXPECT_EQ(sc.compute.recompute, Recompute::kFull);
  EXPECT_EQ(sc.link_efficiency, kDefaultLinkEfficiency);
  EXPECT_DOUBLE_EQ(sc.compute.tp_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(sc.compute.optimizer_step_s, 0.0);
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 1.0);
  EXPECT_DOUBLE_EQ(sc.capacity_scale, 1.0);
  EXPECT_DOUBLE_EQ(sc.topology.intra_bandwidth_bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(sc.topology.intra_latency_s, 1e-5);
  EXPECT_EQ(sc.topology.regions[0].gpu_count, 2);
  EXPECT_DOUBLE_EQ(sc.topology.regions[0].pue, 1.0);
  EXPECT_DOUBLE_EQ(sc.topology.regions[0].utc_offset_h, 0.0);
  EXPECT_EQ(sc.topology.links.size(), 1u);
  EXPECT_EQ(sc.workload.num_jobs, 200);
  EXPECT_DOUBLE_EQ(sc.workload.arrival_rate_per_hour, 4.0);
  EXPECT_DOUBLE_EQ(sc.workload.duration_max_h, 72.0);
  EXPECT_EQ(sc.workload.reference_gpu, "A100-80GB");
  EXPECT_EQ(sc.workload.mix[0].micro_batches, 16);
  EXPECT_EQ(sc.scheduler.preset, "bace-pipe");
  EXPECT_EQ(sc.scheduler.max_region_switches, 3);
  EXPECT_DOUBLE_EQ(sc.scheduler.epsilon, 0.1);
  EXPECT_EQ(sc.llms.size(), builtin_llms().size());
  EXPECT_EQ(sc.topology.gpu_types.size(), builtin_gpus().size());
}

// Data parallelism (docs/model.md, "Data parallelism"): the [sim] keys and the mix key, their
// defaults, and what the loader refuses.
TEST(GoodScenario, FaultKeys) {
  const Scenario d = load_scenario_string(kMinimal, "minimal.toml");
  for (const Region& r : d.topology.regions) EXPECT_TRUE(std::isinf(r.gpu_mtbf_s));
  EXPECT_FALSE(d.faults.checkpoint_interval_s.has_value());  // "auto"
  EXPECT_FALSE(d.faults.checkpoint_cost_s.has_value());      // "auto"
  EXPECT_EQ(d.faults.restart_s, 600.0);
  EXPECT_EQ(d.faults.checkpoint_bytes_per_param, 12.0);
  EXPECT_FALSE(d.faults.checkpoint_regional);             // "global"
  EXPECT_FALSE(d.faults.migrate_after_s.has_value());     // wait for the link
  const std::string text = R"(
[scenario]
name = "f"
[[cluster.region]]
name = "a"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1
[[cluster.region]]
name = "b"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1
gpu_mtbf_h = 10
checkpoint_gbps = 8
spot_mtbp_h = 20
spot_price_factor = 0.25
[workload]
num_jobs = 5
[[workload.mix]]
model = "gpt3-1.3b"
[faults]
gpu_mtbf_h = 50000
restart_s = 300
checkpoint_interval_s = "none"
checkpoint_cost_s = 45
checkpoint_bytes_per_param = 14
checkpoint_storage = "regional"
migrate_after_s = 900
)";
  const Scenario sc = load_scenario_string(text, "f.toml");
  EXPECT_EQ(sc.topology.regions[0].gpu_mtbf_s, 50000.0 * 3600);  // the [faults] default
  EXPECT_EQ(sc.topology.regions[1].gpu_mtbf_s, 10.0 * 3600);     // its own
  EXPECT_EQ(sc.topology.regions[0].checkpoint_bytes_per_s, 100e9 / 8);
  EXPECT_EQ(sc.topology.regions[1].checkpoint_bytes_per_s, 1e9);
  EXPECT_FALSE(sc.topology.regions[0].spot());
  EXPECT_EQ(sc.topology.regions[1].spot_mtbp_s, 20.0 * 3600);
  EXPECT_DOUBLE_EQ(sc.topology.regions[1].price.usd_per_kwh_at(0), 0.1 * 0.25);  // the spot discount
  EXPECT_EQ(sc.faults.preemption_notice_s, 120.0);
  EXPECT_EQ(sc.faults.restart_s, 300.0);
  ASSERT_TRUE(sc.faults.checkpoint_interval_s.has_value());
  EXPECT_TRUE(std::isinf(*sc.faults.checkpoint_interval_s));  // "none"
  EXPECT_EQ(sc.faults.checkpoint_cost_s, 45.0);
  EXPECT_EQ(sc.faults.checkpoint_bytes_per_param, 14.0);
  EXPECT_TRUE(sc.faults.checkpoint_regional);
  EXPECT_EQ(sc.faults.migrate_after_s, 900.0);
  std::string fixed = text;
  fixed.replace(fixed.find("\"none\""), 6, "3600");
  EXPECT_EQ(load_scenario_string(fixed, "f.toml").faults.checkpoint_interval_s, 3600.0);
  // An override sets a word as well as a number.
  const Scenario o = load_scenario_string(text, "f.toml", {parse_override("faults.checkpoint_interval_s=\"auto\"")});
  EXPECT_FALSE(o.faults.checkpoint_interval_s.has_value());
}

TEST(GoodScenario, DataParallelKeys) {
  const Scenario d = load_scenario_string(kMinimal, "minimal.toml");
  EXPECT_EQ(d.compute.dp_sync, DpSync::kAllReduce);
  EXPECT_EQ(d.compute.allreduce, AllReduceKind::kRing);
  EXPECT_EQ(d.compute.sync_bytes_per_param, 2.0);
  EXPECT_EQ(d.compute.diloco_interval, 100);
  EXPECT_EQ(d.workload.mix[0].data_parallel, 1);
  for (const Job& j : d.jobs_for_seed(1)) ASSERT_EQ(j.data_parallel, 1);

  const std::string text = R"(
[scenario]
name = "dp"
[sim]
dp_sync = "diloco"
allreduce = "hierarchical"
sync_bytes_per_param = 1
diloco_interval = 500
[[cluster.region]]
name = "r"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1
[workload]
num_jobs = 5
[[workload.mix]]
model = "gpt3-1.3b"
data_parallel = 4
)";
  const Scenario sc = load_scenario_string(text, "dp.toml");
  EXPECT_EQ(sc.compute.dp_sync, DpSync::kDiLoCo);
  EXPECT_EQ(sc.compute.allreduce, AllReduceKind::kHierarchical);
  EXPECT_EQ(sc.compute.sync_bytes_per_param, 1.0);
  EXPECT_EQ(sc.compute.diloco_interval, 500);
  const std::vector<Job> jobs = sc.jobs_for_seed(1);
  ASSERT_EQ(jobs.size(), 5u);
  for (const Job& j : jobs) {
    EXPECT_EQ(j.data_parallel, 4);
    EXPECT_EQ(j.total_gpus(), 4 * j.stages * j.gpus_per_stage);
  }
  // The same jobs as one replica but for D: the generator's draws do not see D.
  std::string one = text;
  one.replace(one.find("data_parallel = 4"), 17, "data_parallel = 1");
  const std::vector<Job> ones = load_scenario_string(one, "dp1.toml").jobs_for_seed(1);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].arrival_s, ones[i].arrival_s);
    EXPECT_EQ(jobs[i].iterations, ones[i].iterations);
    EXPECT_EQ(jobs[i].stages, ones[i].stages);
  }

  auto error_with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return input_error_of([&] { load_scenario_string(t, "dp.toml"); });
  };
  EXPECT_NE(error_with("dp_sync = \"diloco\"", "dp_sync = \"dilocco\"")
                .find("dp.toml:5:11: sim.dp_sync: unknown synchronisation 'dilocco' (did you mean 'diloco'?)"),
            std::string::npos);
  EXPECT_NE(error_with("allreduce = \"hierarchical\"", "allreduce = \"tree\"").find("sim.allreduce: unknown all-reduce 'tree'"),
            std::string::npos);
  EXPECT_NE(error_with("diloco_interval = 500", "diloco_interval = 0").find("dp.toml:8:19: sim.diloco_interval must be >= 1 (got 0)"), std::string::npos);
  EXPECT_NE(error_with("sync_bytes_per_param = 1", "sync_bytes_per_param = 0").find("dp.toml:7:24: sim.sync_bytes_per_param must be > 0 (got 0)"), std::string::npos);
  EXPECT_NE(error_with("data_parallel = 4", "data_parallel = -1").find("dp.toml:18:17: workload.mix[0].data_parallel must be >= 0 (got -1)"), std::string::npos);
  // 9 replicas of a 1-stage job need 9 GPUs of a cluster of 8: no placement, named as such.
  const std::string big = error_with("data_parallel = 4", "data_parallel = 9");
  EXPECT_NE(big.find("needs 9 replicas x 1 stages x 1 GPUs = 9 GPUs but fits no placement"), std::string::npos) << big;
}

// wait-awhile's keys (docs/scenario-format.md): a mix entry's slack_s (default 0) goes to every
// job it generates and moves no draw; the scheduler's signal and min_saving; errors located.
TEST(GoodScenario, WaitAwhileKeys) {
  const Scenario d = load_scenario_string(kMinimal, "minimal.toml");
  EXPECT_EQ(d.workload.mix[0].slack_s, 0.0);
  for (const Job& j : d.jobs_for_seed(1)) ASSERT_EQ(j.slack_s, 0.0);
  EXPECT_EQ(d.scheduler.wait_awhile_signal, WaitAwhileSignal::kPrice);
  EXPECT_EQ(d.scheduler.wait_awhile_min_saving, 0.05);

  const std::string text = R"(
[scenario]
name = "slack"
[scheduler]
preset = "wait-awhile"
wait_awhile_signal = "carbon"
wait_awhile_min_saving = 0.2
[[cluster.region]]
name = "r"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1
[workload]
num_jobs = 5
[[workload.mix]]
model = "gpt3-1.3b"
slack_s = 7200
)";
  const Scenario sc = load_scenario_string(text, "slack.toml");
  EXPECT_EQ(sc.scheduler.preset, "wait-awhile");
  EXPECT_EQ(sc.scheduler.wait_awhile_signal, WaitAwhileSignal::kCarbon);
  EXPECT_EQ(sc.scheduler.wait_awhile_min_saving, 0.2);
  EXPECT_EQ(sc.workload.mix[0].slack_s, 7200.0);
  const std::vector<Job> jobs = sc.jobs_for_seed(1);
  ASSERT_EQ(jobs.size(), 5u);
  std::string none = text;
  none.replace(none.find("slack_s = 7200"), 14, "slack_s = 0");
  const std::vector<Job> zero = load_scenario_string(none, "slack0.toml").jobs_for_seed(1);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].slack_s, 7200.0);
    EXPECT_EQ(zero[i].slack_s, 0.0);
    EXPECT_EQ(jobs[i].arrival_s, zero[i].arrival_s);
    EXPECT_EQ(jobs[i].iterations, zero[i].iterations);
    EXPECT_EQ(jobs[i].stages, zero[i].stages);
  }
  auto error_with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return input_error_of([&] { load_scenario_string(t, "slack.toml"); });
  };
  const std::string neg = error_with("slack_s = 7200", "slack_s = -1");
  EXPECT_NE(neg.find("slack.toml:17:11: workload.mix[0].slack_s must be >= 0 (got -1)"), std::string::npos) << neg;
  const std::string big = error_with("slack_s = 7200", "slack_s = 2e6");
  EXPECT_NE(big.find("slack.toml:17:11: workload.mix[0].slack_s must be <= 1000000"), std::string::npos) << big;
  const std::string sig = error_with("\"carbon\"", "\"carbn\"");
  EXPECT_NE(sig.find("slack.toml:6:22: scheduler.wait_awhile_signal: unknown signal 'carbn' (did you mean 'carbon'?)"),
            std::string::npos) << sig;
  const std::string ms = error_with("wait_awhile_min_saving = 0.2", "wait_awhile_min_saving = 1.5");
  EXPECT_NE(ms.find("slack.toml:7:26: scheduler.wait_awhile_min_saving must be <= 1"), std::string::npos) << ms;
}

// data_parallel = 0 in the mix (docs/model.md, "Choosing D"): a job's S counts GPU slots,
// stage_multiplier times the least feasible S and not capped at the layers; its iterations come
// from its first variant that fits; a mix whose jobs have no split, or none that fits, is refused.
TEST(Config, AFlexibleMixEntryGivesSlots) {
  const std::string text = R"([scenario]
name = "flex"
[[cluster.region]]
name = "r"
gpu = "A100-80GB"
gpus = 64
price_usd_per_kwh = 0.1
[workload]
num_jobs = 4
[[workload.mix]]
model = "gpt3-1.3b"
micro_batches = 16
stage_multiplier = 32
data_parallel = 0
)";
  const Scenario sc = load_scenario_string(text, "flex.toml");
  EXPECT_EQ(sc.workload.mix[0].data_parallel, 0);
  std::string fixed = text;
  fixed.replace(fixed.find("stage_multiplier = 32\ndata_parallel = 0"), 38, "stage_multiplier = 1\ndata_parallel = 1");
  const Scenario one = load_scenario_string(fixed, "fixed.toml");
  const std::vector<Job> jobs = sc.jobs_for_seed(3), ones = one.jobs_for_seed(3);
  ASSERT_EQ(jobs.size(), 4u);
  const int s0 = ones[0].stages;
  const LlmSpec& llm = sc.llms[static_cast<size_t>(jobs[0].model)];
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].data_parallel, 0);
    EXPECT_EQ(jobs[i].stages, 32 * s0);  // slots, beyond the model's 24 layers when s0 = 1
    EXPECT_EQ(jobs[i].total_gpus(), 32 * s0);
    // The run length is the first variant's (D = 2 of 16 stages when s0 = 1: 32 > 24 layers).
    const Job ref = reference_variant(jobs[i], llm, sc.topology, sc.compute);
    EXPECT_GE(ref.data_parallel, 1);
    EXPECT_EQ(ref.data_parallel * ref.stages, 32 * s0);
    EXPECT_EQ(jobs[i].arrival_s, ones[i].arrival_s);
  }
  // No split: 64 slots of 24 layers with one micro-batch (D = 1 only, and S = 64 > 24).
  std::string nosplit = text;
  nosplit.replace(nosplit.find("micro_batches = 16"), 18, "micro_batches = 1");
  nosplit.replace(nosplit.find("stage_multiplier = 32"), 21, "stage_multiplier = 64");
  const std::string e1 = input_error_of([&] { load_scenario_string(nosplit, "flex.toml"); });
  EXPECT_NE(e1.find("flex.toml:10:1: workload.mix[0]: a job of model 'gpt3-1.3b' with data_parallel = 0 on 64 slots"),
            std::string::npos) << e1;
  EXPECT_NE(e1.find("has no split into D replicas of S stages"), std::string::npos) << e1;
  // Splits exist but none fits 8 GPUs: named with the splits tried.
  std::string small = text;
  small.replace(small.find("gpus = 64"), 9, "gpus = 8");
  const std::string e2 = input_error_of([&] { load_scenario_string(small, "flex.toml"); });
  EXPECT_NE(e2.find("fits no placement in the cluster as any of its D x S splits ("), std::string::npos) << e2;
}

/// Every optional key and table omitted, custom GPU / model / link entries with required keys only.
const char* kOnlyRequired = R"(
[scenario]
name = "only-required"
[cluster]
[[cluster.region]]
name = "a"
gpu = "my-gpu"
gpus = 2
price_usd_per_kwh = 0.1
[[cluster.region]]
name = "b"
gpu = "A100-80GB"
gpus = 2
price_profile_usd_per_kwh = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
                             0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
[[network.link]]
regions = ["a", "b"]
bandwidth_gbps = 8
latency_ms = 5
[[gpu]]
name = "my-gpu"
peak_tflops = 100
memory_gb = 40
busy_power_w = 300
idle_power_w = 50
[[model]]
name = "tiny"
layers = 2
hidden = 64
vocab = 100
seq_len = 16
[workload]
[[workload.mix]]
model = "tiny"
)";

// The defaults live in the model structs' initialisers; before that, the loader had its own
// literals. Every absent key must still load exactly the double the old literal gave: the bit
// patterns are compared (so even -0.0 against 0.0 would fail).
TEST(GoodScenario, DefaultsAreTheOldLiteralsBitForBit) {
  const Scenario sc = load_scenario_string(kOnlyRequired, "only-required.toml");
  ASSERT_EQ(sc.topology.regions.size(), 2u);
  ASSERT_EQ(sc.workload.mix.size(), 1u);
  const Region& ra = sc.topology.regions[0];
  const Region& rb = sc.topology.regions[1];
  const Link& ab = sc.topology.link(0, 1);
  const Link& ba = sc.topology.link(1, 0);
  const ModelMixEntry& mix = sc.workload.mix[0];
  const WorkloadOptions& w = sc.workload;
  const SchedulerParams& s = sc.scheduler;
  struct Loaded {
    const char* key;
    double value;  // as loaded (integers converted exactly)
    double old;    // the old loader's literal (expression)
  };
  const Loaded loaded[] = {
      {"scenario.seed", static_cast<double>(sc.seed), 1},
      {"sim.tp_efficiency", sc.compute.tp_efficiency, 0.9},
      {"sim.optimizer_step_s", sc.compute.optimizer_step_s, 0.0},
      {"network.bandwidth_scale", sc.bandwidth_scale, 1.0},
      {"network.intra_bandwidth_gbps", sc.topology.intra_bandwidth_bytes_per_s, 100.0 * 1e9 / 8.0},  // gbps_to_bytes_per_s(100.0)
      {"network.intra_latency_ms", sc.topology.intra_latency_s, 0.01 * 1e-3},                        // ms_to_s(0.01)
      {"Topology{}.intra_bandwidth_bytes_per_s", Topology{}.intra_bandwidth_bytes_per_s, 100e9 / 8},
      {"Topology{}.intra_latency_s", Topology{}.intra_latency_s, 1e-5},
      {"network.link.a/b.reverse_bandwidth_gbps", ba.capacity_bytes_per_s, ab.capacity_bytes_per_s},
      {"cluster.capacity_scale", sc.capacity_scale, 1.0},
      {"cluster.region.a.utc_offset_h", ra.utc_offset_h, 0.0},
      {"cluster.region.a.pue", ra.pue, 1.0},
      {"cluster.region.a.carbon_g_per_kwh", ra.carbon_g_per_kwh, 0.0},
      {"cluster.region.b.utc_offset_h", rb.utc_offset_h, 0.0},
      {"cluster.region.b.pue", rb.pue, 1.0},
      {"cluster.region.b.carbon_g_per_kwh", rb.carbon_g_per_kwh, 0.0},
      {"model.tiny.bytes_per_elem", static_cast<double>(sc.llms.back().bytes_per_elem), 2},
      {"workload.num_jobs", static_cast<double>(w.num_jobs), 200},
      {"workload.arrival_rate_per_hour", w.arrival_rate_per_hour, 4.0},
      {"workload.load_scale", w.load_scale, 1.0},
      {"workload.duration_min_h", w.duration_min_h, 0.5},
      {"workload.duration_max_h", w.duration_max_h, 72.0},
      {"workload.duration_pareto_alpha", w.duration_pareto_alpha, 1.1},
      {"workload.mix.tiny.weight", mix.weight, 1.0},
      {"workload.mix.tiny.gpus_per_stage", static_cast<double>(mix.gpus_per_stage), 1},
      {"workload.mix.tiny.micro_batch_size", static_cast<double>(mix.micro_batch_size), 1},
      {"workload.mix.tiny.micro_batches", static_cast<double>(mix.micro_batches), 16},
      {"workload.mix.tiny.stage_multiplier", mix.stage_multiplier, 1.0},
      {"scheduler.max_region_switches", static_cast<double>(s.max_region_switches), 3},
      {"scheduler.epsilon", s.epsilon, 0.1},
      {"scheduler.priority_runtime_weight", s.priority_runtime_weight, 1.0},
      {"scheduler.priority_network_weight", s.priority_network_weight, 1.0},
      {"scheduler.priority_aging", s.priority_aging, 1.0},
      {"scheduler.view_staleness_s", s.view_staleness_s, 0.0},
      {"scheduler.view_noise_sigma", s.view_noise_sigma, 0.0},
  };
  for (const Loaded& l : loaded)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(l.value), std::bit_cast<std::uint64_t>(l.old))
        << l.key << ": " << util::format_number(l.value) << " vs " << util::format_number(l.old);
  EXPECT_EQ(sc.llms.back().name, "tiny");
  EXPECT_EQ(w.reference_gpu, "A100-80GB");
  EXPECT_EQ(s.preset, "bace-pipe");
  EXPECT_TRUE(sc.trace_jobs.empty());
}

TEST(GoodScenario, TraceReplayRelativeToScenarioFile) {
  const Scenario sc = load_scenario_file(kDir + "/good/trace.toml");
  ASSERT_EQ(sc.trace_jobs.size(), 2u);
  // Sorted by arrival: the gpt3 job (arrival 0) first.
  EXPECT_DOUBLE_EQ(sc.trace_jobs[0].arrival_s, 0.0);
  EXPECT_EQ(sc.trace_jobs[0].model, llm_index(sc, "gpt3-1.3b"));
  EXPECT_GE(sc.trace_jobs[0].stages, 1);  // stages = 0 -> smallest feasible
  EXPECT_EQ(sc.trace_jobs[1].model, llm_index(sc, "tiny"));
  EXPECT_EQ(sc.trace_jobs[1].stages, 2);
  EXPECT_EQ(sc.trace_jobs[1].iterations, 100);
  EXPECT_TRUE(sc.workload.mix.empty());
  EXPECT_EQ(sc.jobs_for_seed(3).size(), 2u);
}

// Series in place of constants (docs/scenario-format.md, "Time series"), values by hand.
TEST(GoodScenario, TimeSeries) {
  const Scenario sc = load_scenario_file(kDir + "/good/series.toml");
  const Topology& t = sc.topology;
  // Link: Gbit/s x 1e9/8 x bandwidth_scale 2 x link_efficiency, forward and reverse columns;
  // equal steps merged; the static capacity is the maximum.
  const Link& ab = t.link(0, 1);
  const Link& ba = t.link(1, 0);
  ASSERT_TRUE(ab.capacity_series && ba.capacity_series);
  EXPECT_DOUBLE_EQ(ab.capacity_bytes_per_s, 10 * 1e9 / 8 * 2 * kDefaultLinkEfficiency);
  EXPECT_DOUBLE_EQ(ba.capacity_bytes_per_s, 8 * 1e9 / 8 * 2 * kDefaultLinkEfficiency);
  EXPECT_EQ(ab.capacity_series->times_s(), (std::vector<double>{0, 3600, 5400}));
  EXPECT_EQ(ab.capacity_series->value_at(4000), 0.0);  // the outage
  EXPECT_EQ(ab.capacity_series->end_s(), 9000.0);      // 7200 + (7200 - 5400)
  EXPECT_EQ(ab.capacity_series->end(), SeriesEnd::kWrap);
  EXPECT_EQ(ab.capacity_series->value_at(9000 + 4000), 0.0);  // wrapped: the outage again
  // Price: USD/MWh x 0.001, calendar times from start_utc; rows before it dropped but the one
  // in force at 0 (60 at 00:00Z), then 70 at 01:00Z (02:00+01:00) and 80 at 02:00Z.
  const StepSeries* p = t.regions[0].price.step_series();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->times_s(), (std::vector<double>{0, 3600, 7200}));
  EXPECT_DOUBLE_EQ(t.regions[0].price.usd_per_kwh_at(0), 0.06);
  EXPECT_DOUBLE_EQ(t.regions[0].price.usd_per_kwh_at(5000), 0.07);
  EXPECT_DOUBLE_EQ(t.regions[0].price.integral(7200), 0.06 * 3600 + 0.07 * 3600);
  EXPECT_EQ(t.regions[0].carbon_series, nullptr);
  // Carbon: the carbon_intensity_avg column (its other columns ignored), the 23:30 row in
  // force at 0, then 00:30 and 01:30.
  const StepSeries* c = t.regions[1].carbon_series.get();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->times_s(), (std::vector<double>{0, 1800, 5400}));
  EXPECT_EQ(c->values(), (std::vector<double>{300, 250, 200}));
  EXPECT_TRUE(t.regions[1].price.is_flat());
}

TEST(GoodScenario, StringLoadUsesBaseDirForTrace) {
  const std::string text = read_file(kDir + "/good/trace.toml");
  const Scenario sc = load_scenario_string(text, "from-string.toml", {}, kDir + "/good");
  EXPECT_EQ(sc.trace_jobs.size(), 2u);
  EXPECT_EQ(sc.source_path, "from-string.toml");
  // Without the base dir the relative trace path does not resolve (tests run elsewhere).
  const std::string msg = input_error_of([&] { load_scenario_string(text, "from-string.toml", {}, "/nonexistent"); });
  EXPECT_EQ(msg.rfind("from-string.toml:", 0), 0u) << msg;
  EXPECT_NE(msg.find("cannot open trace file"), std::string::npos) << msg;
}

TEST(GoodScenario, ShippedScenariosLoad) {
  // Every base scenario shipped with the project must load (if any exist yet).
  const fs::path base = fs::path(GEOPIPE_SOURCE_DIR) / "sweeps" / "base";
  if (!fs::is_directory(base)) GTEST_SKIP() << "no sweeps/base";
  for (const auto& e : fs::directory_iterator(base)) {
    if (e.path().extension() != ".toml") continue;
    EXPECT_NO_THROW(load_scenario_file(e.path().string())) << e.path();
  }
}

// ============================================================================================
// Overrides
// ============================================================================================

TEST(Overrides, ParseOverride) {
  const Override o = parse_override("network.bandwidth_scale=4");
  EXPECT_EQ(o.path, "network.bandwidth_scale");
  EXPECT_EQ(o.value, "4");
  EXPECT_EQ(o.origin, "--set");
  EXPECT_EQ(o.column, 25);
  EXPECT_EQ(o.line, 0);
  const Override p = parse_override(" scheduler.preset =  cost-first ");
  EXPECT_EQ(p.path, "scheduler.preset");
  EXPECT_EQ(p.value, "cost-first");
  const Override q = parse_override("scenario.name=a=b");  // first '=' splits
  EXPECT_EQ(q.value, "a=b");
  const Override r = parse_override(R"(cluster.region."a=b".gpus=3)");
  EXPECT_EQ(r.path, R"(cluster.region."a=b".gpus)");
  EXPECT_EQ(r.value, "3");
}

TEST(Overrides, MalformedOverrides) {
  for (const char* bad : {"noequals", "=3", "a..b=1", "a.=1", ".a=1", "a[x]=1", "a b=1", "\"open=1"}) {
    try {
      parse_override(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "--set") << bad;
      EXPECT_EQ(std::string(e.what()).rfind("--set: ", 0), 0u) << e.what();
    }
  }
  const std::string msg = input_error_of([] { parse_override("noequals"); });
  EXPECT_NE(msg.find("malformed override 'noequals' (expected path=value"), std::string::npos) << msg;
}

TEST(Overrides, ScalarsAreAppliedBeforeValidation) {
  const Scenario sc = load_small({"network.bandwidth_scale=4", "sim.mfu=0.3", "workload.num_jobs=5"});
  const int e = region(sc, "us-east"), w = region(sc, "us-west");
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 4.0);
  EXPECT_DOUBLE_EQ(sc.topology.link(e, w).capacity_bytes_per_s, 1.25e9 * 4 * kDefaultLinkEfficiency);
  EXPECT_EQ(sc.compute.mfu, 0.3);
  EXPECT_EQ(sc.workload.num_jobs, 5);
}

TEST(Overrides, ArrayEntriesByNameAndIndex) {
  const Scenario sc = load_small({"cluster.region.us-west.gpus=10", "workload.mix.tiny.weight=5",
                                  "cluster.region[2].gpus=7", "gpu.small-gpu.memory_gb=24",
                                  "model.tiny.layers=8", R"(cluster.region."us-east".pue=1.5)"});
  EXPECT_EQ(sc.topology.regions[static_cast<std::size_t>(region(sc, "us-west"))].gpu_count, 5);  // 10 * 0.5
  EXPECT_EQ(sc.topology.regions[2].gpu_count, 4);                                                 // 7 * 0.5 = 3.5 -> 4
  EXPECT_DOUBLE_EQ(sc.workload.mix[0].weight, 5);
  EXPECT_DOUBLE_EQ(sc.topology.gpu_types.back().memory_bytes, 24e9);
  EXPECT_EQ(sc.llms.back().layers, 8);
  EXPECT_DOUBLE_EQ(sc.topology.regions[static_cast<std::size_t>(region(sc, "us-east"))].pue, 1.5);
}

TEST(Overrides, EntryNamesWithDots) {
  // Built-in model names contain dots; they can be written unquoted or quoted.
  const Scenario a = load_small({"workload.mix.gpt3-1.3b.micro_batches=4"});
  EXPECT_EQ(a.workload.mix[1].micro_batches, 4);
  const Scenario b = load_small({R"(workload.mix."gpt3-1.3b".weight=7)"});
  EXPECT_DOUBLE_EQ(b.workload.mix[1].weight, 7);
}

TEST(Overrides, LinksByRegionPairEitherOrder) {
  const Scenario sc = load_small({"network.link.us-west/us-east.latency_ms=10", "network.link.eu-west/us-east.bandwidth_gbps=1"});
  const int e = region(sc, "us-east"), w = region(sc, "us-west"), eu = region(sc, "eu-west");
  EXPECT_DOUBLE_EQ(sc.topology.link(e, w).latency_s, 0.010);
  EXPECT_DOUBLE_EQ(sc.topology.link(eu, e).capacity_bytes_per_s, 0.125e9 * 2 * kDefaultLinkEfficiency);
}

TEST(GoodScenario, LinkEfficiencyScalesInterRegionCapacitiesOnly) {
  // network.link_efficiency multiplies every inter-region capacity after bandwidth_scale (1:
  // the nominal rate, as for measured transfer rates); same-region hops keep theirs.
  const Scenario one = load_small({"network.link_efficiency=1"});
  const Scenario half = load_small({"network.link_efficiency=0.5"});
  const int e = region(one, "us-east"), w = region(one, "us-west");
  EXPECT_EQ(one.link_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(one.topology.link(e, w).capacity_bytes_per_s, 1.25e9 * 2);
  EXPECT_DOUBLE_EQ(half.topology.link(e, w).capacity_bytes_per_s, 1.25e9 * 2 * 0.5);
  EXPECT_EQ(one.topology.intra_bandwidth_bytes_per_s, half.topology.intra_bandwidth_bytes_per_s);
  EXPECT_PRED2(contains, input_error_of([] { load_small({"network.link_efficiency=0"}); }),
               "network.link_efficiency must be > 0 (got 0)");
  EXPECT_PRED2(contains, input_error_of([] { load_small({"network.link_efficiency=1.5"}); }),
               "network.link_efficiency must be <= 1 (got 1.5)");
}

TEST(GoodScenario, IdealLanJoinsEveryPairByTheFabric) {
  // network.ideal = "lan": every ordered pair of regions gets the intra-region fabric's
  // bandwidth and latency, no egress, no series, whatever the links said (or lacked).
  const Scenario wan = load_small({});
  const Scenario lan = load_small({"network.ideal=lan", "network.intra_bandwidth_gbps=400", "network.intra_latency_ms=0.02"});
  EXPECT_FALSE(wan.ideal_lan);
  EXPECT_TRUE(lan.ideal_lan);
  const Topology& t = lan.topology;
  for (int a = 0; a < t.num_regions(); ++a)
    for (int b = 0; b < t.num_regions(); ++b) {
      if (a == b) continue;
      EXPECT_DOUBLE_EQ(t.link(a, b).capacity_bytes_per_s, 400 * 1.25e8);
      EXPECT_DOUBLE_EQ(t.link(a, b).latency_s, 2e-5);
      EXPECT_EQ(t.link(a, b).egress_usd_per_byte, 0.0);
      EXPECT_EQ(t.link(a, b).capacity_series, nullptr);
    }
  const int e = region(wan, "us-east"), w = region(wan, "us-west");
  EXPECT_DOUBLE_EQ(wan.topology.link(e, w).capacity_bytes_per_s, 1.25e9 * 2 * wan.link_efficiency);  // "none": as given
  EXPECT_PRED2(contains, input_error_of([] { load_small({"network.ideal=lann"}); }),
               "network.ideal: unknown network idealisation 'lann' (did you mean 'lan'?)");
}

TEST(GoodScenario, MeshJoinsThePairsNoLinkJoins) {
  // network.mesh_*: small.toml links us-east with us-west and with eu-west; the mesh adds
  // us-west <-> eu-west (x bandwidth_scale x link_efficiency, as a link) and leaves the two links.
  const Scenario wan = load_small({});
  const Scenario mesh = load_small({"network.mesh_bandwidth_gbps=2", "network.mesh_latency_ms=30",
                                    "network.mesh_egress_usd_per_gb=0.05", "network.bandwidth_scale=0.5"});
  const int e = region(mesh, "us-east"), w = region(mesh, "us-west"), u = region(mesh, "eu-west");
  EXPECT_EQ(wan.topology.link(w, u).capacity_bytes_per_s, 0.0);
  for (auto [a, b] : {std::pair{w, u}, std::pair{u, w}}) {
    EXPECT_DOUBLE_EQ(mesh.topology.link(a, b).capacity_bytes_per_s, 2 * 1.25e8 * 0.5 * mesh.link_efficiency);
    EXPECT_DOUBLE_EQ(mesh.topology.link(a, b).latency_s, 0.03);
    EXPECT_DOUBLE_EQ(mesh.topology.link(a, b).egress_usd_per_byte, 0.05e-9);
  }
  for (auto [a, b] : {std::pair{e, w}, std::pair{w, e}, std::pair{e, u}, std::pair{u, e}}) {
    EXPECT_DOUBLE_EQ(mesh.topology.link(a, b).capacity_bytes_per_s,
                     wan.topology.link(a, b).capacity_bytes_per_s / wan.bandwidth_scale * 0.5);
    EXPECT_EQ(mesh.topology.link(a, b).latency_s, wan.topology.link(a, b).latency_s);
  }
  // network.ideal = "lan" overrides the mesh as it does the links.
  const Scenario lan = load_small({"network.mesh_bandwidth_gbps=2", "network.ideal=lan", "network.intra_bandwidth_gbps=400"});
  EXPECT_DOUBLE_EQ(lan.topology.link(w, u).capacity_bytes_per_s, 400 * 1.25e8);
  EXPECT_PRED2(contains, input_error_of([] { load_small({"network.mesh_latency_ms=30"}); }),
               "network.mesh_latency_ms has no mesh to apply to (expected network.mesh_bandwidth_gbps > 0 beside it)");
  EXPECT_PRED2(contains, input_error_of([] { load_small({"network.mesh_bandwidth_gbps=-1"}); }),
               "network.mesh_bandwidth_gbps must be >= 0 (got -1)");
}

TEST(GoodScenario, RecomputeAndGpuEfficiencyKeys) {
  const Scenario none = load_small({"sim.recompute=none"});
  EXPECT_EQ(none.compute.recompute, Recompute::kNone);
  EXPECT_PRED2(contains, input_error_of([] { load_small({"sim.recompute=ful"}); }),
               "sim.recompute: unknown recomputation 'ful' (did you mean 'full'?) (expected one of 'full', 'none')");
  // a [[gpu]] without the efficiency keys runs at the former constant 0.4; with them, its curve
  const Scenario sc = load_small({"gpu.small-gpu.mfu_max=0.5", "gpu.small-gpu.mfu_half_hidden=2048"});
  const GpuType& g = sc.topology.gpu_types.back();
  EXPECT_EQ(g.mfu_max, 0.5);
  EXPECT_EQ(g.mfu_half_hidden, 2048.0);
  EXPECT_EQ(load_small({}).topology.gpu_types.back().mfu_max, 0.4);
  EXPECT_EQ(load_small({"gpu.small-gpu.mfu_attention=0.3"}).topology.gpu_types.back().mfu_attention, 0.3);
  EXPECT_PRED2(contains, input_error_of([] { load_small({"gpu.small-gpu.mfu_attention=0.0001"}); }),
               "gpu[0].mfu_attention must be 0 (the width curve's) or >= 0.001 (got 1e-04)");
  EXPECT_PRED2(contains, input_error_of([] { load_small({"gpu.small-gpu.mfu_max=0"}); }), "must be >= 0.001");
}

TEST(Overrides, BareStringFallbackAndQuotedString) {
  EXPECT_EQ(load_small({"scheduler.preset=cost-first"}).scheduler.preset, "cost-first");
  EXPECT_EQ(load_small({"scheduler.preset=\"delay-first\""}).scheduler.preset, "delay-first");
  EXPECT_EQ(load_small({"scenario.name=2024"}).name, "2024");  // string key: number text kept as a string
  EXPECT_EQ(load_small({"workload.reference_gpu=H100-SXM"}).workload.reference_gpu, "H100-SXM");
}

TEST(Overrides, ArraysAndLaterWins) {
  std::string profile = "[";
  for (int h = 0; h < 24; ++h) profile += std::string(h ? "," : "") + (h == 0 ? "0.5" : "0.25");
  profile += "]";
  const Scenario sc = load_small({"cluster.region.us-west.price_profile_usd_per_kwh=" + profile,
                                  "network.bandwidth_scale=3", "network.bandwidth_scale=1"});
  const Region& w = sc.topology.regions[static_cast<std::size_t>(region(sc, "us-west"))];
  EXPECT_DOUBLE_EQ(w.price.usd_per_kwh_at(8 * 3600.0 + 1), 0.5);  // local hour 0
  EXPECT_DOUBLE_EQ(sc.bandwidth_scale, 1.0);
}

TEST(Overrides, CreatesMissingTables) {
  const Scenario sc = load_scenario_file(kDir + "/good/trace.toml",
                                         {parse_override("sim.mfu=0.25"), parse_override("network.intra_latency_ms=1")});
  EXPECT_EQ(sc.compute.mfu, 0.25);
  EXPECT_DOUBLE_EQ(sc.topology.intra_latency_s, 1e-3);
}

TEST(Overrides, UnknownPathSuggests) {
  const std::string msg = input_error_of([] { load_small({"network.bandwith_scale=2"}); });
  EXPECT_EQ(msg.rfind("--set: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("unknown parameter 'network.bandwith_scale' (did you mean 'network.bandwidth_scale'?)"),
            std::string::npos)
      << msg;
  const std::string m2 = input_error_of([] { load_small({"cluster.region.us-wst.gpus=2"}); });
  EXPECT_NE(m2.find("no [[cluster.region]] entry with name 'us-wst' (did you mean 'us-west'?)"), std::string::npos) << m2;
  const std::string m3 = input_error_of([] { load_small({"network.zzzzzzzz=2"}); });
  EXPECT_NE(m3.find("unknown parameter 'network.zzzzzzzz' (expected one of 'network.bandwidth_scale'"), std::string::npos)
      << m3;
  const std::string m4 = input_error_of([] { load_small({"cluster=2"}); });
  EXPECT_NE(m4.find("'cluster' is a table, not a parameter"), std::string::npos) << m4;
  const std::string m5 = input_error_of([] { load_small({"cluster.region[9].gpus=2"}); });
  EXPECT_NE(m5.find("cluster.region[9] does not exist"), std::string::npos) << m5;
  const std::string m6 = input_error_of([] { load_small({"network.bandwidth_scale.x=2"}); });
  EXPECT_NE(m6.find("unknown parameter 'network.bandwidth_scale.x'"), std::string::npos) << m6;
}

TEST(Overrides, TypeAndRangeErrorsPointAtTheOverride) {
  const std::string m1 = input_error_of([] { load_small({"workload.num_jobs=abc"}); });
  EXPECT_EQ(m1.rfind("--set: workload.num_jobs: 'abc' is not a valid TOML value (expected an integer", 0), 0u) << m1;
  const std::string m2 = input_error_of([] { load_small({"workload.num_jobs=2.5"}); });
  EXPECT_EQ(m2, "--set: workload.num_jobs: expected an integer, got a float (2.5)");
  const std::string m3 = input_error_of([] { load_small({"scheduler.epsilon=-1"}); });
  EXPECT_EQ(m3, "--set: scheduler.epsilon must be >= 0 (got -1)");
  const std::string m4 = input_error_of([] { load_small({"scheduler.preset=bace_pipe"}); });
  EXPECT_EQ(m4.rfind("--set: scheduler.preset: unknown preset 'bace_pipe' (did you mean 'bace-pipe'?)", 0), 0u) << m4;
  const std::string m5 = input_error_of([] { load_small({"cluster.region.us-east.gpus=\"8\""}); });
  EXPECT_EQ(m5, "--set: cluster.region[0].gpus: expected an integer, got a string");
}

TEST(Overrides, SweepOriginWithLineAndColumn) {
  Override o{"network.bandwidth_scale", "-1", "sweep.toml", 12, 7};
  const std::string msg = input_error_of([&] { load_scenario_file(kSmall, {o}); });
  EXPECT_EQ(msg, "sweep.toml:7:12: network.bandwidth_scale must be >= 1e-06 (got -1)");
  Override u{"network.bandwidht_scale", "2", "sweep.toml", 3, 4};
  const std::string m2 = input_error_of([&] { load_scenario_file(kSmall, {u}); });
  EXPECT_EQ(m2.rfind("sweep.toml:4:3: unknown parameter", 0), 0u) << m2;
}

TEST(Overrides, ApplyOverrideOnTable) {
  toml::table root = parse_toml(read_file(kSmall), kSmall);
  apply_override(root, parse_override("cluster.region.eu-west.gpus=11"));
  EXPECT_EQ(root["cluster"]["region"][2]["gpus"].value<int64_t>(), 11);
  const auto paths = document_paths(root);
  for (const char* p : {"network.bandwidth_scale", "cluster.region.us-east.gpus", "workload.mix.tiny.weight",
                        "network.link.us-east/us-west.latency_ms", "gpu.small-gpu.peak_tflops", "model.tiny.layers"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
}

TEST(Overrides, AmbiguousMixEntryNeedsIndex) {
  const std::string text = std::string(kMinimal) + "[[workload.mix]]\nmodel = \"gpt3-1.3b\"\nmicro_batches = 4\n";
  const std::string msg =
      input_error_of([&] { load_scenario_string(text, "m.toml", {parse_override("workload.mix.gpt3-1.3b.weight=2")}); });
  EXPECT_NE(msg.find("2 [[workload.mix]] entries have model 'gpt3-1.3b' (address one by index, e.g. workload.mix[0].weight)"),
            std::string::npos)
      << msg;
  const Scenario sc = load_scenario_string(text, "m.toml", {parse_override("workload.mix[1].weight=2")});
  EXPECT_DOUBLE_EQ(sc.workload.mix[1].weight, 2);
}

// ============================================================================================
// Paths, did-you-mean, misc errors
// ============================================================================================

TEST(Paths, ScenarioPathsCoverTheSchema) {
  const auto paths = scenario_paths();
  for (const char* p : {"scenario.name", "scenario.seed", "sim.mfu", "sim.pipeline_schedule", "sim.layer_partition", "network.bandwidth_scale", "network.mesh_bandwidth_gbps",
                        "network.link.<a>/<b>.bandwidth_gbps", "network.link.<a>/<b>.egress_usd_per_gb", "cluster.capacity_scale", "cluster.region.<name>.gpus",
                        "cluster.region.<name>.price_profile_usd_per_kwh", "gpu.<name>.idle_power_w",
                        "model.<name>.bytes_per_elem", "model.<name>.head", "workload.load_scale", "workload.trace",
                        "workload.mix.<model>.weight", "workload.mix.<model>.data_parallel", "workload.mix.<model>.slack_s",
                        "scheduler.wait_awhile_signal", "scheduler.wait_awhile_min_saving", "sim.dp_sync", "sim.diloco_interval", "scheduler.epsilon", "scheduler.view_noise_sigma",
                        "scheduler.variant_patience", "faults.gpu_mtbf_h", "faults.checkpoint_interval_s",
                        "cluster.region.<name>.gpu_mtbf_h", "cluster.region.<name>.checkpoint_gbps"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
  EXPECT_EQ(paths.size(), 102u);
}

// What `geopipe list params` prints: the same paths, with each field's type and range.
TEST(Paths, ParametersDescribeEachPath) {
  const auto params = schema::parameters();
  const auto paths = scenario_paths();
  ASSERT_EQ(params.size(), paths.size());
  for (std::size_t i = 0; i < params.size(); ++i) EXPECT_EQ(params[i].path, paths[i]);
  auto field = [&](const std::string& path) -> const schema::Field& {
    for (const auto& p : params)
      if (p.path == path) return *p.field;
    ADD_FAILURE() << "no parameter " << path;
    return *params.front().field;
  };
  EXPECT_EQ(schema::type_name(field("sim.mfu")), "number");
  EXPECT_EQ(schema::range_phrase(field("sim.mfu")), "[0.001, 1]");
  EXPECT_EQ(field("sim.mfu").default_text, "none (each GPU type's calibrated efficiency)");
  EXPECT_EQ(field("sim.recompute").default_text, "\"full\"");
  EXPECT_EQ(schema::range_phrase(field("network.link_efficiency")), "(0, 1]");
  EXPECT_EQ(schema::type_name(field("cluster.region.<name>.price_profile_usd_per_kwh")), "array of 24 numbers");
  EXPECT_EQ(schema::range_phrase(field("cluster.region.<name>.gpus")), "[1, 1000000]");
  EXPECT_EQ(schema::range_phrase(field("scheduler.epsilon")), "[0, 1000000]");
  EXPECT_EQ(schema::range_phrase(field("scenario.seed")), ">= 0");
  EXPECT_EQ(schema::range_phrase(field("scenario.name")), "");
  EXPECT_EQ(field("network.intra_latency_ms").default_text, "0.01");
  EXPECT_EQ(field("scheduler.preset").default_text, "\"bace-pipe\"");
}

TEST(Paths, EveryPathIsDocumented) {
  const std::string doc = read_file(std::string(GEOPIPE_SOURCE_DIR) + "/docs/scenario-format.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& p : scenario_paths()) EXPECT_NE(doc.find("`" + p + "`"), std::string::npos) << p;
}

namespace {

std::string without_backticks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

/// Cells of a markdown table row "| a | b |" (trimmed), or {} if the line is not a row.
std::vector<std::string> row_cells(const std::string& line) {
  std::vector<std::string> cells;
  if (line.size() < 2 || line.front() != '|') return cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] != '|') {
      cell += line[i];
      continue;
    }
    const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
    cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    cell.clear();
  }
  return cells;
}

/// docs/scenario-format.md "Tables and keys": for each "### `[x.y]`" or "### `[[x.y]]`" section,
/// its key table as key -> default cell (backticks removed: they are markup).
std::map<std::string, std::map<std::string, std::string>> documented_defaults(const std::string& doc) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::istringstream in(doc);
  std::string line, section;
  std::size_t default_col = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section.clear();
    if (line.rfind("### `[", 0) == 0) {
      const auto a = line.find_first_not_of("[", 5), b = line.find(']', 5);
      section = line.substr(a, b - a);
      default_col = 0;
      continue;
    }
    const std::vector<std::string> cells = row_cells(line);
    if (section.empty() || cells.empty()) continue;
    if (cells[0] == "key") {
      default_col = static_cast<std::size_t>(std::find(cells.begin(), cells.end(), "default") - cells.begin());
    } else if (cells[0].rfind("---", 0) != 0 && default_col < cells.size()) {
      out[section][without_backticks(cells[0])] = without_backticks(cells[default_col]);
    }
  }
  return out;
}

/// The schema of table `path` ("network.link"), or nullptr.
const schema::TableSpec* spec_at(const std::string& path) {
  const schema::TableSpec* t = &schema::scenario_root();
  std::istringstream parts(path);
  std::string part;
  while (t && std::getline(parts, part, '.')) {
    const schema::Field* f = t->find(part);
    t = f ? f->table : nullptr;
  }
  return t;
}

}  // namespace

// The default column of every key table in docs/scenario-format.md is the schema's default text
// (which the schema derives from the model structs), "**required**" or "—".
TEST(Paths, DocumentedDefaultsAreTheSchemas) {
  const auto documented = documented_defaults(read_file(std::string(GEOPIPE_SOURCE_DIR) + "/docs/scenario-format.md"));
  ASSERT_EQ(documented.size(), 12u) << "sections with a key table";
  for (const auto& [section, rows] : documented) {
    const schema::TableSpec* spec = spec_at(section);
    ASSERT_NE(spec, nullptr) << section;
    std::size_t leaves = 0;
    for (const schema::Field& f : spec->fields) {
      if (!f.is_leaf()) continue;
      ++leaves;
      const auto it = rows.find(f.name);
      if (it == rows.end()) {
        ADD_FAILURE() << section << "." << f.name << " has no row";
        continue;
      }
      const std::string want = !f.default_text.empty() ? f.default_text : f.required ? "**required**" : "—";
      EXPECT_EQ(it->second, want) << section << "." << f.name;
    }
    EXPECT_EQ(rows.size(), leaves) << section << ": rows for keys the schema does not have";
  }
}

TEST(Errors, MissingFile) {
  try {
    load_scenario_file("/nonexistent/dir/x.toml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/x.toml");
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/dir/x.toml: cannot open", 0), 0u) << e.what();
  }
  const std::string msg = input_error_of([] { load_scenario_file(kDir); });
  EXPECT_NE(msg.find("cannot open scenario file: it is a directory"), std::string::npos) << msg;
}

TEST(Errors, TooManyRegions) {
  std::string text = "[scenario]\nname = \"many\"\n[workload]\n[[workload.mix]]\nmodel = \"gpt3-1.3b\"\n";
  for (int r = 0; r < 65; ++r)
    text += "[[cluster.region]]\nname = \"r" + std::to_string(r) + "\"\ngpu = \"A100-80GB\"\ngpus = 1\nprice_usd_per_kwh = 0.1\n";
  const std::string msg = input_error_of([&] { load_scenario_string(text, "many.toml"); });
  EXPECT_NE(msg.find("cluster.region: expected at most 64 [[cluster.region]] entries, got 65"), std::string::npos) << msg;
}

TEST(Errors, SyntaxErrorHasLocation) {
  const std::string msg = input_error_of([] { load_scenario_string("[scenario]\nname = \n", "s.toml"); });
  EXPECT_EQ(msg.rfind("s.toml:2:", 0), 0u) << msg;
}

TEST(Errors, EmptyString) {
  EXPECT_EQ(input_error_of([] { load_scenario_string("", "e.toml"); }).rfind("e.toml:1:1: empty scenario", 0), 0u);
  EXPECT_EQ(input_error_of([] { load_scenario_string("  \n# c\n\n", "e.toml"); }).rfind("e.toml:1:1: empty scenario", 0), 0u);
}

// Robustness: random byte edits, deletions and truncations of a good file must either load or
// throw InputError; nothing else (no crash, no other exception type).
TEST(Errors, MutatedInputsNeverCrash) {
  const std::string good = read_file(kSmall);
  ASSERT_FALSE(good.empty());
  Rng rng(12345);
  const std::string alphabet = "=[]\"{}.,#\n 0123456789-+eEnaf_xyz\\\t\x01\xff";
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 400; ++iter) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int k = 0; k < edits; ++k) {
      const std::size_t pos = static_cast<std::size_t>(rng.below(s.size()));
      switch (rng.below(4)) {
        case 0: s[pos] = alphabet[static_cast<std::size_t>(rng.below(alphabet.size()))]; break;
        case 1: s.erase(pos, 1 + static_cast<std::size_t>(rng.below(8))); break;
        case 2: s.insert(pos, 1, alphabet[static_cast<std::size_t>(rng.below(alphabet.size()))]); break;
        default: s.resize(pos); break;
      }
      if (s.empty()) break;
    }
    try {
      load_scenario_string(s, "mut.toml", {}, kDir + "/good");
      ++loaded;
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("mut.toml", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-InputError exception: " << e.what() << "\n--- input ---\n" << s;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded + rejected, 0);
}

// ============================================================================================
// Data-driven bad files
// ============================================================================================

namespace {

std::vector<std::string> bad_files() { return testing_support::toml_files_in(fs::path(kDir) / "bad"); }

}  // namespace

class BadScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(BadScenario, IsRejectedWithExpectedMessage) {
  testing_support::expect_rejected_as_marked<InputError>(
      kDir + "/bad/" + GetParam(), [](const std::string& p) { load_scenario_file(p); }, /*needs_line=*/false);
}

INSTANTIATE_TEST_SUITE_P(Files, BadScenario, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<std::string>& tpi) {
                           std::string n = tpi.param.substr(0, tpi.param.size() - 5);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(BadScenarioFiles, AtLeastThirty) { EXPECT_GE(bad_files().size(), 30u); }
