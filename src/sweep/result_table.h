// A result file read back as columns: what `geopipe summarize` works on, whatever the output
// format (sweep/output.h read_results).
#pragma once

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

}  // namespace geopipe::sweep
