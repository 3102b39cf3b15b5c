// Sweep files (TOML) -> a validated SweepSpec (format in docs/sweep-format.md; how the parts
// fit in docs/design.md).
//
// A sweep names a base scenario, the schedulers, the seeds and the points to run. The points
// are laid out by the sweep's design ([sweep] design, sweepfile/design.h; the designs are the
// table of sweepfile/design.cpp), each point a list of overrides of the base, held by
// SweepSpec::points in point order (sweepfile/point_source.h). A scenario is
// (point, seed, scheduler); see src/plan/plan.h for its stable integer id.
//
// Every problem (syntax, unknown key, unknown axis parameter, empty values, bad range, zip
// members of different lengths, unknown scheduler, an axis value the scenario schema rejects,
// a point whose scenario is invalid) throws InputError "file:line:col: ..." pointing into the
// sweep file, before any work starts (for a sweep of more than SweepLoadOptions::check_all_up_to
// points: every value, and the points of a covering sample).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/test_functions.h"
#include "sweepfile/point_source.h"
#include "sweepfile/scenario_key.h"
#include "config/scenario_loader.h"
#include "model/scenario.h"
#include "sim/job_row.h"
#include "sim/metrics.h"

namespace geopipe::config {

/// One swept parameter: a column of the HDF5 /scenarios table.
struct SweepColumn {
  std::string param;     ///< scenario path, e.g. "network.bandwidth_scale"
  bool numeric = true;   ///< every value is an integer or float (stored as float64), else text
  std::string canonical_path = {};  ///< the parameter's canonical path (sweepfile/scenario_key.h), e.g. "cluster.region[0].gpus"
  /// The parameter's value at a point that does not set it (base + fixed overrides), as TOML
  /// text; "" if it has none (no default). The /scenarios cell of such a point holds it.
  std::string fixed_text = {};
};

/// One parameter of the resolved base (base + fixed overrides): the /parameters table.
struct SweepParameter {
  std::string path;   ///< canonical path
  std::string value;  ///< canonical value (sweepfile/scenario_key.h); "" if `column` holds it per point
  int column = -1;    ///< index of the SweepColumn that holds its value per point, or -1 (fixed)
};

/// `seeds = { min, max, rel_ci, ... }`: precision-driven replication (docs/sweep-format.md,
/// "Seeds until a precision"). Per point, seeds 1..min first, then more in rounds until the
/// confidence interval of `metric` (or of its paired change against `paired_vs`) is narrow
/// enough for every scheduler, or `max` seeds ran. The rounds are plan/replication.h's.
struct ReplicationRule {
  std::uint64_t min = 5;         ///< seeds of the first round, >= 2
  std::uint64_t max = 0;         ///< most seeds per point (SweepSpec::seeds is 1..max)
  double rel_ci = 0;             ///< stop when the CI half-width <= rel_ci * |mean| (> 0)
  double abs_ci = 0;             ///< or when it is <= abs_ci (0: no absolute target), in the quantity's unit
  double confidence = 0.95;      ///< the CI's level (Student t)
  std::string metric = "avg_jct_s";  ///< a deterministic metric (sim/metrics.h)
  std::string paired_vs;         ///< "" or a scheduler of the sweep: the quantity is scheduler / paired_vs - 1 per seed
};

struct SweepSpec {
  std::string name;                     ///< [sweep].name
  std::string path;                     ///< sweep file as given
  std::string text;                     ///< its full text
  std::string base_path;                ///< base scenario file (resolved against the sweep file's directory)
  std::string base_text;                ///< its full text
  std::string design;                   ///< [sweep] design: "grid", "lhs", "oat", "sobol", "morris", "points_file"
  std::string design_text;              ///< a file the design read (points_file: the CSV), "" if none; part of the hash
  /// [test_function] (docs/sweep-format.md, "Sampling designs", its test functions): the points evaluate this analytic
  /// function of the factor columns x1 .. xD instead of simulating a scenario; there is no base
  /// (base_path and base_text are ""), `schedulers` is the function's name alone (the label of
  /// its rows), and the value is the metric `value` (sim/metrics.h).
  std::optional<analysis::TestFunction> test_function;
  std::vector<std::string> schedulers;  ///< preset names, in file order ("all" expanded)
  std::vector<std::uint64_t> seeds;     ///< seed values; `seeds = N` means 1..N; with `replication`, 1..max
  std::optional<ReplicationRule> replication;  ///< `seeds = { min, max, rel_ci, ... }`
  std::vector<Override> fixed;          ///< [sweep.set] entries then command-line --set: applied to every point first
  std::vector<SweepColumn> columns;     ///< swept parameters in file order
  /// The points (sweepfile/point_source.h): a grid's, then listed ones, then a sampling design's,
  /// whose matrix (points.sample.unit) is the /design table.
  PointSource points;
  std::vector<std::string> trace_paths; ///< every distinct CSV trace the points read (outputs must not be one)
  std::vector<std::string> design_paths; ///< files the design read (a points file; outputs must not be one)
  JobTextBytes job_text;                ///< widest job texts of the checked points (sim/job_row.h): /jobs column widths
  bool checked_all = true;              ///< every point's scenario was built at load time (else a sample, see SweepLoadOptions)
  std::uint64_t points_checked = 0;     ///< how many points were built at load time
  std::vector<ContentDigest> point_digests;  ///< per point: its content (sweepfile/scenario_key.h)
  std::vector<SweepParameter> parameters;    ///< every schema leaf of base + fixed, sorted by path
  std::uint64_t hash = 0;               ///< FNV-1a 64 of text, base_text, the command-line sets (and design_text)

  /// Points of the sweep: points.size().
  std::size_t num_points() const { return static_cast<std::size_t>(points.size()); }
  /// Point `i` < num_points(), with a value per column (by value: a grid or sampled point is
  /// generated).
  SweepPoint point(std::size_t i) const { return points.point(i, columns.size()); }
  /// What produces the points' metrics: the function of a [test_function] sweep, else a
  /// simulation (the result file's StoreMeta::evaluator; run/evaluator.h).
  MetricSource evaluated_by() const { return test_function ? MetricSource::kTestFunction : MetricSource::kSimulation; }
  std::uint64_t num_scenarios() const {
    return static_cast<std::uint64_t>(num_points()) * seeds.size() * schedulers.size();
  }
};

/// Bounds of one load_sweep_file() call.
struct SweepLoadOptions {
  /// Most points (default kMaxPoints = 1,000,000, sweepfile/parse.h). A caller that must
  /// stay fast sets fewer (the fuzz target: 10,000).
  std::uint64_t max_points = 1'000'000;
  /// Loading builds and validates the scenario of every point (~100 µs each) when the sweep has
  /// at most this many points (default 20,000: about two seconds). A larger sweep checks a
  /// covering sample instead (docs/sweep-format.md, "Checking the points"): every listed point,
  /// every value of every axis and zip (each in at least one point), and `sample_points` more
  /// drawn deterministically; a point outside the sample that is invalid fails when it runs (a
  /// row in /errors). SweepSpec::checked_all says which happened.
  std::uint64_t check_all_up_to = 20'000;
  /// Points drawn (without repetition) for the sample of a large sweep.
  std::uint64_t sample_points = 10'000;
  /// Most points of each of the two structured parts of that sample (the diagonal, and each
  /// value of each axis with the others at their first value; sweepfile/validate.h).
  std::uint64_t cover_points = 5'000;
  /// Check every point whatever the size (`geopipe sweep --check-all-points`; needed for
  /// exact /jobs text widths, so the runner sets it with --save-jobs).
  bool check_all_points = false;
  /// The sweep's text, when it is not (yet) a file at the path: a sweep generated from the
  /// command line (sweepfile/quick_sweep.h), validated before anything is written. The path still
  /// names it in messages and is SweepSpec::path.
  std::optional<std::string> text;
};

/// Reads, expands and validates a sweep file. `cli_sets` (geopipe sweep --set) are appended to
/// SweepSpec::fixed and enter the hash. Every point's scenario is built once to validate it, or
/// for a large sweep a covering sample (SweepLoadOptions).
SweepSpec load_sweep_file(const std::string& path, const std::vector<Override>& cli_sets = {},
                          const SweepLoadOptions& options = {});

/// The precision-driven replication rule of a sweep file's text (a result file's sweep_toml),
/// or nullopt if it has fixed seeds (or is not a valid sweep text). `schedulers`: the sweep's.
std::optional<ReplicationRule> replication_rule_of(const std::string& sweep_toml, const std::vector<std::string>& schedulers);

/// Builds the scenario of a point: base text + fixed overrides + the point's overrides,
/// validated. Parses the base text once; make() is const and safe to call from many threads.
/// For a sweep with a base scenario (a [test_function] sweep has none: its points are
/// evaluated by the function, run/evaluator.h).
class ScenarioFactory {
 public:
  explicit ScenarioFactory(const SweepSpec& spec);
  ~ScenarioFactory();
  ScenarioFactory(const ScenarioFactory&) = delete;
  ScenarioFactory& operator=(const ScenarioFactory&) = delete;
  /// Throws InputError if the point's scenario is invalid (load_sweep_file checks all points).
  Scenario make(std::size_t point) const;
  /// A number no other factory of this process has (a cache key that stays valid when a
  /// factory's address is reused by a later one).
  std::uint64_t serial() const { return serial_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint64_t serial_;
};

}  // namespace geopipe::config
