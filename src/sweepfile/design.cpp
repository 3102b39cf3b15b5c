// The table of sweep designs and the reading of a design's own table (sweepfile/design.h).
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

const toml::table* design_table(const SweepFile& file, const toml::table& root, const std::string& name,
                                const std::vector<std::string>& keys, const std::string& needs) {
  const toml::node* n = root.get(name);
  if (!n) {
    if (needs.empty()) return nullptr;
    file.fail(Pos{1, 1}, "design '" + name + "' needs " + needs);
  }
  const toml::table* t = n->as_table();
  if (!t) file.fail(*n, name + ": expected a table, got " + type_of(*n));
  file.check_keys(*t, keys, "in [" + name + "]");
  return t;
}

}  // namespace geopipe::config::sweep_internal
