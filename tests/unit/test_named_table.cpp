// Lookup by name (util/named_table.h) and the tables that use it: the first exact match, the
// entry's own address, -1/nullptr when absent, names in table order.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "model/gpu.h"
#include "model/llm.h"
#include "model/topology.h"
#include "sched/registry.h"
#include "sim/metrics.h"
#include "util/named_table.h"

using namespace geopipe;

namespace {

struct Owned {
  std::string name;
  int value;
};
struct Viewed {
  std::string_view name;
  int value;
};
struct Literal {
  const char* name;
  int value;
};
struct Keyed {
  std::string key;
  int value;
};

}  // namespace

TEST(NamedTable, FindsTheFirstExactMatchAndPointsIntoTheTable) {
  const std::vector<Owned> t = {{"a", 1}, {"bb", 2}, {"a", 3}, {"B", 4}};
  EXPECT_EQ(util::find_named(t, "a"), &t[0]);  // the first of two
  EXPECT_EQ(util::find_named(t, "bb"), &t[1]);
  EXPECT_EQ(util::find_named(t, "B"), &t[3]);
  EXPECT_EQ(util::find_named(t, "b"), nullptr);   // case-sensitive
  EXPECT_EQ(util::find_named(t, "bb "), nullptr);  // exact: no prefix, no trimming
  EXPECT_EQ(util::find_named(t, ""), nullptr);
  EXPECT_EQ(util::find_named(std::vector<Owned>{}, "a"), nullptr);
  EXPECT_EQ(util::index_of_named(t, "a"), 0);
  EXPECT_EQ(util::index_of_named(t, "B"), 3);
  EXPECT_EQ(util::index_of_named(t, "b"), -1);
  EXPECT_EQ(util::index_of_named(std::vector<Owned>{}, ""), -1);
}

TEST(NamedTable, NameMayBeAStringAViewOrALiteralAndAnyProjection) {
  const std::array<Viewed, 2> v = {{{"x", 1}, {"y", 2}}};
  const std::vector<Literal> l = {{"x", 1}, {"y", 2}};
  EXPECT_EQ(util::find_named(v, "y"), &v[1]);
  EXPECT_EQ(util::find_named(l, std::string("y")), &l[1]);
  EXPECT_EQ(util::find_named(l, "z"), nullptr);
  const std::vector<Keyed> k = {{"p", 1}, {"q", 2}};
  EXPECT_EQ(util::find_named(k, "q", &Keyed::key), &k[1]);
  EXPECT_EQ(util::index_of_named(k, "q", [](const Keyed& e) { return e.key; }), 1);
  const std::vector<std::string> plain = {"s", "t"};
  const auto self = [](const std::string& s) -> const std::string& { return s; };
  EXPECT_EQ(util::find_named(plain, "t", self), &plain[1]);
}

TEST(NamedTable, NamesInTableOrder) {
  const std::vector<Literal> l = {{"first-fit", 1}, {"bace-pipe", 2}, {"cost-first", 3}};
  EXPECT_EQ(util::names_of(l), (std::vector<std::string>{"first-fit", "bace-pipe", "cost-first"}));
  EXPECT_EQ(util::joined_names(l), "first-fit, bace-pipe, cost-first");
  EXPECT_EQ(util::joined_names(l, "|"), "first-fit|bace-pipe|cost-first");
  EXPECT_EQ(util::joined_names(std::vector<Literal>{{"one", 1}}), "one");
  EXPECT_TRUE(util::names_of(std::vector<Owned>{}).empty());
  EXPECT_EQ(util::joined_names(std::vector<Owned>{}), "");
  const std::vector<Keyed> k = {{"p", 1}, {"q", 2}};
  EXPECT_EQ(util::joined_names(k, " or ", &Keyed::key), "p or q");
}

// The catalogues' lookups return each entry's own address, nullptr for anything else.
TEST(NamedTable, EveryCatalogueFindsEachEntryByItsName) {
  for (const GpuType& g : builtin_gpus()) EXPECT_EQ(find_builtin_gpu(g.name), &g) << g.name;
  for (const LlmSpec& m : builtin_llms()) EXPECT_EQ(find_builtin_llm(m.name), &m) << m.name;
  for (const PresetInfo& p : presets()) EXPECT_EQ(find_preset(p.name), &p) << p.name;
  for (const MetricDef& d : metric_defs()) EXPECT_EQ(find_metric(d.name), &d) << d.name;
  EXPECT_EQ(find_builtin_gpu("a100-80gb"), nullptr);
  EXPECT_EQ(find_builtin_llm("llama2"), nullptr);
  EXPECT_EQ(find_preset(""), nullptr);
  EXPECT_EQ(preset_names(), util::names_of(presets()));
  EXPECT_EQ(preset_names().front(), "bace-pipe");

  Topology topo;
  topo.regions.resize(3);
  topo.regions[0].name = "us";
  topo.regions[1].name = "eu";
  topo.regions[2].name = "asia";
  EXPECT_EQ(topo.find_region("eu"), 1);
  EXPECT_EQ(topo.find_region("EU"), -1);
}
