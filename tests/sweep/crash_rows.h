// Rows written by tests/sweep/h5_crash_writer.cpp and expected by the crash tests in
// test_h5store.cpp: one definition, so writer and checker cannot drift apart. Every value is a
// function of the scenario id; the append order is a fixed shuffle.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "results/result.h"

namespace geopipe::sweep::crash_rows {

/// Ids 0..m-1 in a fixed pseudo-random order (seed 42).
inline std::vector<std::int64_t> order(std::int64_t m) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) v[static_cast<std::size_t>(i)] = i;
  std::mt19937_64 rng(42);
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
  return v;
}

/// Scenario `id` succeeds unless id % 7 == 3.
inline bool ok(std::int64_t id) { return id % 7 != 3; }

/// The row of scenario `id` (an /errors row when !ok(id)); with 3 /jobs rows when `jobs`.
inline ScenarioResult result(std::int64_t id, bool jobs) {
  ScenarioResult r;
  r.id = id;
  r.ok = ok(id);
  if (!r.ok) {
    r.error = "scenario " + std::to_string(id) + " failed";
    return r;
  }
  const double x = static_cast<double>(id);
  r.metrics.jobs_total = static_cast<int>(id % 100);
  r.metrics.avg_jct_s = 1.5 * x;
  r.metrics.total_cost_usd = 0.25 * x + 1.0;
  r.metrics.wall_s = 1e-3;
  if (jobs)
    for (int j = 0; j < 3; ++j) {
      JobRow jr;
      jr.job_id = j;
      jr.model = "llama-7b";
      jr.stages = 4;
      jr.gpus_per_stage = 1;
      jr.regions = "us-east;eu-west";
      jr.cost_usd = x + 0.1 * j;
      r.jobs.push_back(jr);
    }
  return r;
}

}  // namespace geopipe::sweep::crash_rows
