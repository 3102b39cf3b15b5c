// The table of sweep designs (sweepfile/design.h).
#include "sweepfile/design.h"

namespace geopipe::config::sweep_internal {

const std::vector<DesignKind>& designs() {
  static const std::vector<DesignKind> all = {
      {"grid", {"axis", "zip", "point"}, parse_grid_design},
      {"lhs", {"lhs", "factor"}, parse_lhs_design},
      {"oat", {"oat", "factor"}, parse_oat_design},
      {"sobol", {"sobol", "factor"}, parse_sobol_design},
      {"morris", {"morris", "factor"}, parse_morris_design},
      {"points_file", {"points_file"}, parse_points_file_design},
  };
  return all;
}

}  // namespace geopipe::config::sweep_internal
