// `geopipe summarize OUT.h5`: per-scheduler means with 95% confidence intervals over seeds, and
// paired relative differences against a baseline scheduler (paired by point and seed), grouped
// by chosen axes. A first look without Python.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace geopipe::sweep {

struct SummarizeOptions {
  std::string file;
  std::vector<std::string> by;        ///< axis parameters to group by (default: none = pooled)
  std::string baseline;               ///< scheduler to compare against (default: the sweep's first)
  std::vector<std::string> metrics;   ///< default: avg_jct_s, total_cost_usd
  bool precision = false;             ///< per-point precision table of a seeds = { ... } sweep (default: one line)
};

/// Prints the summary; throws InputError for an unknown file, axis, scheduler or metric.
void summarize(const SummarizeOptions& opt, std::ostream& os);

}  // namespace geopipe::sweep
