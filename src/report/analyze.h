// `geopipe analyze sobol|morris|oat OUT.h5`: sensitivity indices of one metric (or of one
// scheduler's paired change against another) over a sampling design's points, from a result
// file alone (its /design table and its results; docs/analysis.md). Reading and aggregation
// are here; the estimators are analysis/sensitivity.h, the printing is the CLI's.
//
// A point's value y is the mean over its seeds of the metric of `scheduler` (or of the paired
// change scheduler / paired_vs - 1, seed by seed). The spread over seeds is reported as the
// seed noise next to the indices, so a reader sees when it swamps them.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/sensitivity.h"

namespace geopipe::sweep {

struct AnalyzeOptions {
  std::string method;                   ///< "sobol", "morris" or "oat"
  std::string file;                     ///< a result file of a sweep of that design
  /// A /metrics column (metric_defs()) of the file's evaluator; "" (default): avg_jct_s, or
  /// `value` for a file of a [test_function]. AnalyzeReport::options holds the one used.
  std::string metric;
  std::string scheduler;                ///< default: the file's first scheduler
  std::string paired_vs;                ///< "" (the metric itself) or a baseline scheduler of the file
  analysis::BootstrapOptions bootstrap; ///< resamples (1000), confidence (0.95), seed (1)
  /// Analyse results whose scenarios left jobs unfinished (files of model version 1) instead of
  /// refusing them; AnalyzeReport::unfinished_scenarios counts them (docs/analysis.md).
  bool allow_unfinished = false;
};

/// How much of y's spread over points is seed noise.
struct SeedNoise {
  std::size_t seeds_min = 0, seeds_max = 0;  ///< seeds averaged per point
  /// Root mean square over points of the standard error of a point's mean over its seeds
  /// (NaN with one seed: not measured), in y's unit.
  double rms_standard_error = 0;
  /// With the same seeds at every point: the standard error of a point's mean without the part
  /// of the seed noise common to all points (residuals of the additive model point + seed), the
  /// noise that blurs the differences between points; NaN otherwise.
  double point_standard_error = 0;
  double variance = 0;  ///< population variance of y over the points, in y's unit squared
  /// The share of Var(y) that seed noise alone would explain: point_standard_error^2 / variance,
  /// or rms_standard_error^2 / variance when the seeds differ between points.
  double share() const {
    const double se = std::isnan(point_standard_error) ? rms_standard_error : point_standard_error;
    return se * se / variance;
  }
};

struct AnalyzeReport {
  AnalyzeOptions options;          ///< with scheduler resolved
  std::string quantity;            ///< what y is, e.g. "avg_jct_s of bace-pipe" or "paired change of avg_jct_s, bace-pipe / delay-first - 1"
  std::string unit;                ///< y's unit ("" for a change or a dimensionless metric)
  std::vector<std::string> factors;
  std::size_t points = 0;
  SeedNoise noise;
  bool second_order = false;       ///< sobol
  analysis::SobolIndices sobol;
  analysis::MorrisIndices morris;
  double base_value = 0;           ///< oat: y at the base point
  /// y is the same at every point (e.g. --metric jobs_total): no factor moves it, and there are
  /// no indices (each would divide by Var(y) = 0). The printers say so instead of printing NaN.
  bool constant = false;
  double constant_value = 0;       ///< that value, when constant
  /// Scenarios of the analysed scheduler(s) that left jobs unfinished, whose metric leaves those
  /// jobs out (0 unless options.allow_unfinished: otherwise such a file is refused).
  std::size_t unfinished_scenarios = 0;
  std::vector<analysis::OatEffect> oat;
};

/// Reads `options.file` and computes the indices. InputError (exit 2) for a file of another
/// design, an unknown metric or scheduler, a point without results (an incomplete file), a
/// non-finite value, a design matrix that is not what the design writes, or (unless
/// allow_unfinished) a scenario that left jobs unfinished where the metric leaves them out.
AnalyzeReport analyze(const AnalyzeOptions& options);

}  // namespace geopipe::sweep
