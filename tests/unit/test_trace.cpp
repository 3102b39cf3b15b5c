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
