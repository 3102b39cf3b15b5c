// CSV trace replay: parsing, sorting, located errors (docs/model.md, "Jobs").
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "model/trace.h"
#include "scenario_builders.h"
#include "util/input_error.h"

namespace geopipe {
namespace {

using testutil::job;
using testutil::one_region;
using testutil::tiny;

TEST(Trace, ParsesAndReportsErrorsWithLocation) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  const auto jobs = parse_trace_csv(
      "# comment\nmodel,arrival_s,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n"
      "tiny,100,2,1,1,4,50\ntiny, 5 ,0,1,1,4,7\n",
      "t.csv", llms, topo, ComputeOptions{});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].arrival_s, 5.0);  // sorted by arrival, ids renumbered
  EXPECT_EQ(jobs[0].id, 0);
  EXPECT_EQ(jobs[0].stages, 1);       // 0 = smallest feasible
  EXPECT_EQ(jobs[1].iterations, 50);
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,tiny,2,1,x,4,5\n",
                    "t.csv", llms, topo, ComputeOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2:12: micro_batch_size: 'x' is not a number (expected decimal digits, e.g. 12, 0.5 or 1e3)");
  }
  // an integer column takes what a TOML integer key takes: 1e3 and 4.0 are refused, +4 is not
  for (const auto& [cells, want] : {std::pair<std::string, std::string>{"0,tiny,2,1,1,4,1e3",
                                                                         "t.csv:2:16: iterations: '1e3' is not written as an "
                                                                         "integer (expected decimal digits without a point or an "
                                                                         "exponent, e.g. 1000, as an integer key of TOML)"},
                                    {"0,tiny,2,1,1,4.0,5", "t.csv:2:14: micro_batches: '4.0' is not written as an integer "
                                                           "(expected decimal digits without a point or an exponent, e.g. "
                                                           "4, as an integer key of TOML)"}}) {
    try {
      parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n" + cells + "\n",
                      "t.csv", llms, topo, ComputeOptions{});
      ADD_FAILURE() << "expected InputError for " << cells;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
  EXPECT_EQ(parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n1e1,tiny,2,1,1,+4,5\n",
                            "t.csv", llms, topo, ComputeOptions{})[0].micro_batches,
            4);
  EXPECT_THROW(parse_trace_csv("arrival_s,model\n", "t.csv", llms, topo, ComputeOptions{}), InputError);
  EXPECT_THROW(parse_trace_csv("", "t.csv", llms, topo, ComputeOptions{}), InputError);
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,huge,2,1,1,4,5\n",
                    "t.csv", llms, topo, ComputeOptions{});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2:3: unknown model 'huge'");
  }
}

// The optional data_parallel column (docs/model.md, "Data parallelism"): absent = 1 replica.
TEST(Trace, DataParallelColumnIsOptional) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  const auto jobs = parse_trace_csv(
      "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n"
      "0,tiny,2,1,1,4,50,3\n1,tiny,2,1,1,4,50,1\n",
      "t.csv", llms, topo, ComputeOptions{});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].data_parallel, 3);
  EXPECT_EQ(jobs[0].total_gpus(), 6);
  EXPECT_EQ(jobs[1].data_parallel, 1);
  const auto without = parse_trace_csv(
      "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,tiny,2,1,1,4,50\n", "t.csv",
      llms, topo, ComputeOptions{});
  EXPECT_EQ(without[0].data_parallel, 1);
  for (const auto& [cell, want] : {std::pair<std::string, std::string>{"-1", "t.csv:2:19: data_parallel = -1 is out of range (expected 0 .. 4096)"},
                                   {"2.5", "t.csv:2:19: data_parallel: '2.5' is not an integer"},
                                   {"", "t.csv:2:1: expected 8 fields, found 7"}}) {
    try {
      parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n"
                      "0,tiny,2,1,1,4,50" + (cell.empty() ? std::string() : "," + cell) + "\n",
                      "t.csv", llms, topo, ComputeOptions{});
      ADD_FAILURE() << "expected InputError for '" << cell << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
}

// The optional slack_s column (wait-awhile's deferral, docs/model.md "Literature baselines"):
// absent = 0; a number of seconds in [0, kMaxSlackS].
TEST(Trace, SlackColumnIsOptional) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  const auto jobs = parse_trace_csv(
      "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,slack_s\n"
      "0,tiny,2,1,1,4,50,28800\n1,tiny,2,1,1,4,50,0.5\n",
      "t.csv", llms, topo, ComputeOptions{});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].slack_s, 28800.0);
  EXPECT_EQ(jobs[1].slack_s, 0.5);
  EXPECT_EQ(jobs[0].data_parallel, 1);
  const auto without = parse_trace_csv(
      "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n0,tiny,2,1,1,4,50\n", "t.csv",
      llms, topo, ComputeOptions{});
  EXPECT_EQ(without[0].slack_s, 0.0);
  // with data_parallel too, in any order
  const auto both = parse_trace_csv(
      "slack_s,arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n"
      "60,0,tiny,2,1,1,4,50,2\n",
      "t.csv", llms, topo, ComputeOptions{});
  EXPECT_EQ(both[0].slack_s, 60.0);
  EXPECT_EQ(both[0].data_parallel, 2);
  for (const auto& [cell, want] : {std::pair<std::string, std::string>{"-1", "t.csv:2:19: slack_s = -1 is out of range (expected 0 .. 1000000)"},
                                   {"1e7", "t.csv:2:19: slack_s = 1e7 is out of range (expected 0 .. 1000000)"},
                                   {"soon", "t.csv:2:19: slack_s: 'soon' is not a number (expected decimal digits, e.g. 12, 0.5 or 1e3)"},
                                   {"", "t.csv:2:1: expected 8 fields, found 7"}}) {
    try {
      parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,slack_s\n"
                      "0,tiny,2,1,1,4,50" + (cell.empty() ? std::string() : "," + cell) + "\n",
                      "t.csv", llms, topo, ComputeOptions{});
      ADD_FAILURE() << "expected InputError for '" << cell << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
}

// data_parallel = 0 (docs/model.md, "Choosing D"): `stages` counts GPU slots, which may exceed
// the layers (tiny has 10); a row whose slots and micro-batches have no split is refused where
// it says so.
TEST(Trace, AFlexibleJobCountsSlotsAndNeedsASplit) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  const std::string head = "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,data_parallel\n";
  const auto jobs = parse_trace_csv(head + "0,tiny,16,2,1,8,50,0\n", "t.csv", llms, topo, ComputeOptions{});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].data_parallel, 0);
  EXPECT_EQ(jobs[0].stages, 16);
  EXPECT_EQ(jobs[0].total_gpus(), 32);
  // 12 slots, 4 micro-batches: D = 1 (S = 12 > 10), 3 (does not divide 4), 6 and 12 (> 4) fail;
  // D = 2 (S = 6, m = 2) and D = 4 (S = 3, m = 1) are the splits.
  const auto ok = parse_trace_csv(head + "0,tiny,12,1,1,4,50,0\n", "t.csv", llms, topo, ComputeOptions{});
  EXPECT_EQ(ok[0].stages, 12);
  try {
    parse_trace_csv(head + "0,tiny,11,1,1,4,50,0\n", "t.csv", llms, topo, ComputeOptions{});
    ADD_FAILURE() << "expected InputError: 11 slots have no split";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:2:20: data_parallel = 0: no split of 11 stages (GPU slots) into D replicas"),
              std::string::npos)
        << e.what();
  }
  // A fixed job's stages stay at most the layers.
  try {
    parse_trace_csv(head + "0,tiny,12,1,1,4,50,1\n", "t.csv", llms, topo, ComputeOptions{});
    ADD_FAILURE() << "expected InputError: 12 stages of a 10-layer model";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "t.csv:2:8: stages = 12 is out of range (expected 0 .. 10)");
  }
}

TEST(Trace, DuplicateColumnAndBoundsAreNamed) {
  const std::vector<LlmSpec> llms = {tiny()};
  const Topology topo = one_region(80e9);
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations,stages\n"
                    "0,tiny,1,1,1,4,5,1\n",
                    "t.csv", llms, topo, ComputeOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:1:81: duplicate column 'stages' (column 8, already column 3; expected each column once)");
  }
  try {
    parse_trace_csv("arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n"
                    "0,tiny,1,1,1,4,1000000000000001\n",
                    "t.csv", llms, topo, ComputeOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2:16: iterations = 1000000000000001 is out of range (expected 1 .. 1e+15)");
  }
  const auto jobs = parse_trace_csv(
      "arrival_s,model,stages,gpus_per_stage,micro_batch_size,micro_batches,iterations\n1e12,tiny,1,1,1,4,1000000000000000\n",
      "t.csv", llms, topo, ComputeOptions{});
  EXPECT_EQ(jobs.at(0).iterations, 1000000000000000);
}

}  // namespace
}  // namespace geopipe
