// `geopipe summarize OUT.h5`: per-scheduler means with 95% confidence intervals over seeds, and
// paired changes against a baseline scheduler (scheduler / baseline - 1, paired by point and
// seed: the mean of the ratios and the ratio of the means, each with its CI), per point (or
// grouped by chosen axes, or pooled), as a table, CSV or JSON. A first look without Python.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace geopipe::sweep {

struct SummarizeOptions {
  std::string file;
  std::vector<std::string> by;        ///< axis parameters to group by (default: per point)
  bool pool = false;                  ///< one group of every point (excludes `by`)
  std::string baseline;               ///< scheduler to compare against (default: the sweep's first)
  std::vector<std::string> metrics;   ///< default: avg_jct_s, total_cost_usd
  bool precision = false;             ///< per-point precision table of a seeds = { ... } sweep (default: one line)
  std::string format = "table";       ///< "table", "csv" (RFC 4180, SI units, one row per group x scheduler x metric) or "json"
  bool plain = false;                 ///< ASCII only ("+-" for "±"): for logs (the CLI sets it when stdout is not a terminal)
  /// Summarize results whose scenarios left jobs unfinished (files of model version 1) instead of
  /// refusing them; they are flagged in every format (docs/analysis.md, "Unfinished jobs").
  bool allow_unfinished = false;
};

/// Prints the summary; throws InputError for an unknown file, axis, scheduler or metric, and
/// for a file where a scenario left jobs unfinished and a requested metric leaves them out
/// (sim/metrics.h metric_leaves_out_unfinished_jobs), unless allow_unfinished. Failed scenarios
/// (/errors rows) are counted in a note.
void summarize(const SummarizeOptions& opt, std::ostream& os);

}  // namespace geopipe::sweep
