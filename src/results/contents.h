// What a result file says about itself, whatever its format: the metadata of the sweep whose
// results it holds and the ids it has a result for. The runner writes a StoreMeta into a new
// output; results/output.h read_contents() reads both back (for `geopipe summarize`, resume
// and merge). The HDF5 file keeps them as its root attributes and rows (results/hdf5/store.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace geopipe::sweep {

struct StoreMeta {
  int format_version = 10;        ///< what the file says: the version of its format (HDF5: results/hdf5/file.h kFormatVersion)
  std::string geopipe_version;
  std::string created_utc;        ///< ISO 8601
  std::string sweep_name;
  std::string sweep_toml;
  std::string base_toml;
  std::string sweep_hash;         ///< util::hex16(SweepSpec::hash)
  std::string layout;             ///< "ranks=R threads=T"
  std::uint64_t num_scenarios = 0;
  std::uint64_t total_scenarios = 0;
  std::string shard;              ///< "K/N" or ""
  std::vector<std::string> schedulers;
  std::vector<std::string> axes;
  bool complete = false;
  int model_version = 0;          ///< sim/model_version.h of the results (0: format < 3, unknown)
  /// true for the output of a merge of different sweeps (format 4): ids are 0..n-1 in the order
  /// of the inputs and no longer encode (point, seed, scheduler); points are numbered by content.
  bool collection = false;
  std::string design;             ///< the sweep's design ("grid", "lhs", ...; "" in a collection or before format 4)
  /// What produced the rows' metrics (format 6; sim/metrics.h metric_source_name): "simulation"
  /// or "test_function". A file of format 3-5 is read as "test_function" when every scheduler
  /// of it names a test function (then its values, stored as avg_jct_s, are read as `value`).
  std::string evaluator = "simulation";
};

/// What an existing file holds (for --resume, merge and summarize).
struct StoreContents {
  StoreMeta meta;
  /// ids with a result, successful or failed (HDF5: a valid /metrics or /errors row), sorted, unique
  std::vector<std::int64_t> done_ids;
};

}  // namespace geopipe::sweep
