// A fully validated scenario: everything one simulation run needs, in SI units.
// Produced by src/config (from TOML, with any trace file already read and parsed) or built
// directly in tests. The core (src/model, src/sim, src/sched) reads no files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"
#include "model/workload.h"

namespace geopipe {

/// Scheduler knobs (scenario [scheduler] table). Plain data; interpreted by src/sched.
struct SchedulerParams {
  std::string preset = "bace-pipe";       ///< default preset for `geopipe run`
  int max_region_switches = 3;            ///< pathfinder: at most this many cross-region hops
  double epsilon = 0.1;                   ///< cost-min: accept est. iteration time <= (1+ε)·best
  double priority_runtime_weight = 1.0;   ///< dynamic priority: weight of estimated run time
  double priority_network_weight = 1.0;   ///< dynamic priority: weight of network pressure
  double priority_aging = 1.0;            ///< dynamic priority: seconds of score removed per second waited
  double view_staleness_s = 0.0;          ///< scheduler's bandwidth view refreshed every this many s (0 = live)
  double view_noise_sigma = 0.0;          ///< relative Gaussian noise on the viewed residual bandwidth
};

struct Scenario {
  std::string name;                 ///< [scenario].name
  std::string source_path;          ///< file it came from ("" if built in code)
  std::uint64_t seed = 1;           ///< default seed of `geopipe run`
  Topology topology;                ///< capacities already scaled by the knobs below
  double bandwidth_scale = 1.0;     ///< network.bandwidth_scale (applied to inter-region links)
  double capacity_scale = 1.0;      ///< cluster.capacity_scale (applied to GPU counts, rounded)
  std::vector<LlmSpec> llms;        ///< catalogue: built-ins + [[model]] entries
  ComputeOptions compute;
  WorkloadOptions workload;
  std::vector<Job> trace_jobs;      ///< non-empty: replay these instead of generating
  std::string trace_path;           ///< the CSV file trace_jobs were read from, as resolved ("" if none)
  SchedulerParams scheduler;

  /// The job list for a seed: the trace if one is given, else the generator's output.
  std::vector<Job> jobs_for_seed(std::uint64_t seed) const;
  /// Index of the workload's reference GPU type (in topology.gpu_types) or -1.
  int reference_gpu_index() const;
};

}  // namespace geopipe
