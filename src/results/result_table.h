// A result file read back, whatever the output format: as columns, what `geopipe summarize`
// works on (results/output.h read_results), and as one metric by scenario with the sampling
// design, what `geopipe analyze` works on (results/output.h read_metric).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace geopipe::sweep {

/// One row per scenario with metrics, sorted by id. Numeric columns: id, point, seed, the
/// numeric axes, every metric; text columns: scheduler and the text axes.
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> numeric;       ///< per numeric column (NaN where absent)
  std::vector<std::string> text_names;
  std::vector<std::vector<std::string>> text;     ///< per text column
};

/// A sampling design's matrix read back (the /design table, docs/hdf5-format.md), with what an
/// analysis needs to know about the file it came from.
struct DesignTable {
  std::string design;                ///< the sweep's design ("sobol", "morris", "oat", "lhs"); the root attribute
  std::string evaluator = "simulation";  ///< what produced the metrics (StoreMeta::evaluator)
  std::vector<std::string> factors;  ///< the /design columns after `point`: parameter paths
  std::vector<double> unit;          ///< row-major, point p's row at p * factors.size(); NaN: not set
  std::vector<std::string> schedulers;
  std::uint64_t total_scenarios = 0; ///< of the sweep
  std::uint64_t num_scenarios = 0;   ///< with a result row in the file
  bool complete = false;
  bool collection = false;
  bool replication = false;          ///< seeds = { min, max, rel_ci }: points have different seed counts by design
  std::string shard;                 ///< "K/N" for one shard of a sweep, else 
};

/// One metric of every scenario with a result, with its design: what `geopipe analyze` reads
/// (report/analyze.h), in one pass over the file and without the columns it does not need.
struct MetricByScenario {
  DesignTable design;
  std::vector<std::int64_t> point;       ///< per scenario with a /metrics row (status ok)
  std::vector<std::uint64_t> seed;
  std::vector<std::uint32_t> scheduler;  ///< index into design.schedulers
  std::vector<double> value;             ///< the metric
  std::vector<std::uint8_t> unfinished;  ///< 1 if the scenario left jobs unfinished (jobs_unfinished > 0)
  /// The failed scenarios (an /errors row), of every scheduler of the file.
  struct Failed {
    std::int64_t point;
    std::uint64_t seed;
    std::uint32_t scheduler;
    std::string message;
  };
  std::vector<Failed> failed;
  std::uint64_t scenario_points = 0;     ///< 1 + the largest point of /scenarios: the sweep's points
};

}  // namespace geopipe::sweep
