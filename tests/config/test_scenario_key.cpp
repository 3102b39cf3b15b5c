// Content keys (sweepfile/scenario_key.h): what must not change a key (formatting, comments, key
// order, override order and spelling, defaults written out, where a trace lives) and what must
// (any value, a trace's content, the seed, the scheduler, the model version).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "sweepfile/scenario_key.h"
#include "config/schema.h"
#include "sim/model_version.h"

namespace fs = std::filesystem;
using namespace geopipe;
using namespace geopipe::config;

namespace {

const std::string kBase = R"(# a small base
[scenario]
name = "two"

[network]
bandwidth_scale = 1.0

[[network.link]]
regions = ["a", "b"]
bandwidth_gbps = 10
latency_ms = 20

[[cluster.region]]
name = "a"
gpu = "A100-80GB"
gpus = 8
price_usd_per_kwh = 0.1

[[cluster.region]]
name = "b"
gpu = "H100-SXM"
gpus = 8
price_usd_per_kwh = 0.2

[workload]
num_jobs = 20

[[workload.mix]]
model = "gpt3-1.3b"
micro_batches = 4
)";

// The same document: other formatting, comments, key order, dotted keys, integer floats,
// and a default written out.
const std::string kSameBase = R"([workload]
num_jobs = 20
[[workload.mix]]
micro_batches = 4     # four
model = 'gpt3-1.3b'

[[cluster.region]]
price_usd_per_kwh = 1e-1
gpus = 8
gpu = "A100-80GB"
name = "a"
[[cluster.region]]
name = "b"
gpus = 8
gpu = "H100-SXM"
price_usd_per_kwh = 0.20

[scenario]
name = "two"

[network]
bandwidth_scale = 1
link = [{ regions = ["a", "b"], latency_ms = 20.0, bandwidth_gbps = 10 }]
)";

ContentDigest digest_of(const std::string& base, const std::vector<Override>& points = {},
                        const std::vector<Override>& fixed = {}, const std::string& path = "base.toml") {
  PointKeyer k(base, path, fixed);
  return k.digest(points);
}

Override ov(const std::string& path, const std::string& value) {
  Override o;
  o.path = path;
  o.value = value;
  return o;
}

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("geopipe_key_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

}  // namespace

TEST(ScenarioKey, FormattingCommentsKeyOrderAndWrittenDefaultsDoNotMatter) {
  EXPECT_EQ(digest_of(kBase), digest_of(kSameBase));
  // A default written out is the same scenario as the default left out.
  const schema::Field* tp = schema::scenario_root().find("sim")->table->find("tp_efficiency");
  ASSERT_NE(tp, nullptr);
  ASSERT_FALSE(tp->default_text.empty());
  EXPECT_EQ(digest_of(kBase), digest_of(kBase + "\n[sim]\ntp_efficiency = " + tp->default_text + "\n"));
  // ... and so is a canonical form with the same entries.
  PointKeyer a(kBase, "base.toml", {}), b(kSameBase, "other/base.toml", {});
  EXPECT_EQ(a.canonical({}), b.canonical({}));
  const auto lines = a.canonical({});
  EXPECT_NE(std::find(lines.begin(), lines.end(), "cluster.region[1].price_usd_per_kwh = 0.2"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "sim.tp_efficiency = " + tp->default_text), lines.end());
  // a default that is a description, not a value (sim.mfu: the GPU types' own efficiency)
  EXPECT_NE(std::find(lines.begin(), lines.end(), "sim.mfu = default \"none (each GPU type's calibrated efficiency)\""),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "network.link[0].latency_ms = 20"), lines.end());
}

TEST(ScenarioKey, OverridesAreTheValueTheyGiveWhateverTheirOrderOrSpelling) {
  const ContentDigest edited = digest_of(kBase + "\n[sim]\nmfu = 0.25\n");
  // A point's value, a fixed override or the base file itself: one scenario.
  EXPECT_EQ(digest_of(kBase, {ov("sim.mfu", "0.25")}), edited);
  EXPECT_EQ(digest_of(kBase, {}, {ov("sim.mfu", "0.25")}), edited);
  EXPECT_EQ(digest_of(kBase, {ov("sim.mfu", "2.5e-1")}), edited);
  // An entry by name or by index.
  const ContentDigest by_name = digest_of(kBase, {ov("cluster.region.b.gpus", "4"), ov("sim.mfu", "0.25")});
  EXPECT_EQ(digest_of(kBase, {ov("sim.mfu", "0.25"), ov("cluster.region[1].gpus", "4")}), by_name);
  // The last override of a parameter wins, as when the scenario is built.
  EXPECT_EQ(digest_of(kBase, {ov("sim.mfu", "0.9"), ov("sim.mfu", "0.25")}), edited);
  // Setting a value to what it already is changes nothing.
  EXPECT_EQ(digest_of(kBase, {ov("workload.num_jobs", "20")}), digest_of(kBase));
  EXPECT_EQ(digest_of(kBase, {ov("network.bandwidth_scale", "1")}), digest_of(kBase));
}

TEST(ScenarioKey, AnyValueChangesIt) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  auto distinct = [&](const ContentDigest& d) { return seen.insert({d.a, d.b}).second; };
  EXPECT_TRUE(distinct(digest_of(kBase)));
  for (const Override& o : {ov("sim.mfu", "0.25"), ov("cluster.region.a.gpus", "9"), ov("cluster.region.b.gpus", "9"),
                            ov("network.link[0].bandwidth_gbps", "10.000000001"), ov("scenario.name", "\"three\""),
                            ov("cluster.region.a.gpu", "\"H100-SXM\""), ov("workload.mix[0].micro_batches", "5"),
                            ov("network.bandwidth_scale", "2")})
    EXPECT_TRUE(distinct(digest_of(kBase, {o}))) << o.path << " = " << o.value;
  // Two changes that swap values between entries are not the unchanged scenario.
  EXPECT_TRUE(distinct(digest_of(kBase, {ov("cluster.region.a.price_usd_per_kwh", "0.2"),
                                         ov("cluster.region.b.price_usd_per_kwh", "0.1")})));
  // The order of array entries is part of the scenario.
  std::string swapped = kBase;
  const auto a = swapped.find("[[cluster.region]]\nname = \"a\"");
  const auto b = swapped.find("[[cluster.region]]\nname = \"b\"");
  const auto end = swapped.find("[workload]");
  swapped = swapped.substr(0, a) + swapped.substr(b, end - b) + "\n" + swapped.substr(a, b - a) + swapped.substr(end);
  EXPECT_TRUE(distinct(digest_of(swapped)));
}

// Parameters added to the schema after format 4 (schema::Field::keyed_only_when_set) enter a
// key only at a value other than their default, so files written before they existed are
// still extended (docs/hdf5-format.md, "Scenario keys").
TEST(ScenarioKey, ParametersAddedLaterAreKeyedOnlyWhenNotTheirDefault) {
  const ContentDigest base = digest_of(kBase);
  // Pinned when sim.pipeline_schedule was added: adding it left this digest as it was (the
  // keys of a sweep written by the build before it were compared with this build's). Pinned
  // again at model version 4, whose sim.mfu default became a description (each GPU type's
  // calibrated efficiency) instead of 0.4; sim.recompute, network.link_efficiency and the
  // [[gpu]] efficiency keys, added then, left it as it was at their defaults (below).
  EXPECT_EQ(base.hex(), "a351e5dacd1c666a9e7a2174533c54ba");
  EXPECT_EQ(digest_of(kBase + "\n[sim]\nrecompute = \"full\"\n"), base);
  EXPECT_EQ(digest_of(kBase, {ov("network.link_efficiency", "0.92")}), base);
  EXPECT_NE(digest_of(kBase, {ov("network.link_efficiency", "1")}), base);
  EXPECT_NE(digest_of(kBase, {ov("sim.recompute", "\"none\"")}), base);
  const std::string gpipe = "\"gpipe\"", ofob = "\"1f1b\"";
  EXPECT_EQ(digest_of(kBase + "\n[sim]\npipeline_schedule = " + gpipe + "\n"), base);
  EXPECT_EQ(digest_of(kBase, {ov("sim.pipeline_schedule", gpipe)}), base);
  EXPECT_EQ(digest_of(kBase, {}, {ov("sim.pipeline_schedule", gpipe)}), base);
  const ContentDigest other = digest_of(kBase + "\n[sim]\npipeline_schedule = " + ofob + "\n");
  EXPECT_NE(other, base);
  EXPECT_EQ(digest_of(kBase, {ov("sim.pipeline_schedule", ofob)}), other);
  EXPECT_EQ(digest_of(kBase + "\n[sim]\npipeline_schedule = " + ofob + "\n", {ov("sim.pipeline_schedule", gpipe)}), base);
  PointKeyer k(kBase, "base.toml", {});
  auto has = [](const std::vector<std::string>& lines, const std::string& l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  EXPECT_FALSE(has(k.canonical({}), "sim.pipeline_schedule = " + gpipe));
  EXPECT_TRUE(has(k.canonical({ov("sim.pipeline_schedule", ofob)}), "sim.pipeline_schedule = " + ofob));
  // The resolved parameters (the /parameters table) still list it.
  bool listed = false;
  for (const PointKeyer::Entry& e : k.fixed_entries()) listed = listed || e.path == "sim.pipeline_schedule";
  EXPECT_TRUE(listed);
}

TEST(ScenarioKey, ATraceCountsByItsContentNotItsPath) {
  TempDir tmp;
  const std::string header = "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n";
  tmp.write("t1.csv", header + "0,gpt3-1.3b,0,1,1,4,10\n");
  fs::create_directories(tmp.dir / "sub");
  tmp.write("sub/t2.csv", header + "0,gpt3-1.3b,0,1,1,4,10\n");
  tmp.write("t3.csv", header + "0,gpt3-1.3b,0,1,1,4,11\n");
  const std::string base = tmp.write("base.toml", kBase);
  const ContentDigest t1 = digest_of(kBase, {ov("workload.trace", "\"t1.csv\"")}, {}, base);
  EXPECT_EQ(digest_of(kBase, {ov("workload.trace", "\"sub/t2.csv\"")}, {}, base), t1);
  EXPECT_EQ(digest_of(kBase, {ov("workload.trace", "\"" + (tmp.dir / "t1.csv").string() + "\"")}, {}, base), t1);
  EXPECT_NE(digest_of(kBase, {ov("workload.trace", "\"t3.csv\"")}, {}, base), t1);
  EXPECT_NE(digest_of(kBase, {}, {}, base), t1);
}

TEST(ScenarioKey, ASeriesFileCountsByItsContentNotItsPath) {
  TempDir tmp;
  tmp.write("a.csv", "time_s,usd_per_kwh\n0,0.1\n3600,0.2\n");
  tmp.write("b.csv", "time_s,usd_per_kwh\n0,0.1\n3600,0.2\n");
  tmp.write("c.csv", "time_s,usd_per_kwh\n0,0.1\n3600,0.3\n");
  const std::string base = tmp.write("base.toml", kBase);
  const ContentDigest a = digest_of(kBase, {ov("cluster.region[0].price_series", "\"a.csv\"")}, {}, base);
  EXPECT_EQ(digest_of(kBase, {ov("cluster.region[0].price_series", "\"b.csv\"")}, {}, base), a);
  EXPECT_NE(digest_of(kBase, {ov("cluster.region[0].price_series", "\"c.csv\"")}, {}, base), a);
}

TEST(ScenarioKey, SeedSchedulerAndModelVersionAreInTheKey) {
  const ContentDigest d = digest_of(kBase);
  const ContentKey k = scenario_key(d, 1, "bace-pipe", kModelVersion);
  EXPECT_EQ(k.hex().size(), 32u);
  EXPECT_EQ(k, scenario_key(digest_of(kSameBase), 1, "bace-pipe", kModelVersion));
  EXPECT_NE(k, scenario_key(d, 2, "bace-pipe", kModelVersion));
  EXPECT_NE(k, scenario_key(d, 1, "delay-first", kModelVersion));
  EXPECT_NE(k, scenario_key(d, 1, "bace-pipe", kModelVersion + 1));
  EXPECT_NE(k, scenario_key(digest_of(kBase, {ov("sim.mfu", "0.25")}), 1, "bace-pipe", kModelVersion));
  // Pinned: the key of a scenario must not change between builds, compilers or platforms
  // (files written by one build are extended by another). Changing the canonical form or the
  // hash is a format change: see docs/hdf5-format.md, "Scenario keys".
  EXPECT_EQ(scenario_key(ContentDigest{1, 2}, 3, "bace-pipe", 1).hex(), "10f3813b77d95368420f0f1ba3dd250f");
}
