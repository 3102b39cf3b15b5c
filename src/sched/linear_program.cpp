#include "sched/linear_program.h"

#include <glpk.h>

#include <cmath>
#include <stdexcept>

namespace geopipe {
namespace {

/// GLPK's bound type for [lo, hi].
int bound_type(double lo, double hi) {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi) return lo == hi ? GLP_FX : GLP_DB;
  if (has_lo) return GLP_LO;
  if (has_hi) return GLP_UP;
  return GLP_FR;
}
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

}  // namespace

int LinearProgram::add_variable(double objective, double lo, double hi) {
  if (!(lo <= hi)) throw std::invalid_argument("LinearProgram: variable with lo > hi");
  obj_.push_back(objective);
  lo_.push_back(lo);
  hi_.push_back(hi);
  return variables() - 1;
}

void LinearProgram::add_row(std::vector<std::pair<int, double>> coefs, double lo, double hi) {
  if (!(lo <= hi)) throw std::invalid_argument("LinearProgram: row with lo > hi");
  for (const auto& [v, c] : coefs)
    if (v < 0 || v >= variables() || !std::isfinite(c))
      throw std::invalid_argument("LinearProgram: row with a bad variable or coefficient");
  rows_.push_back({std::move(coefs), lo, hi});
}

void LinearProgram::set_bounds(int var, double lo, double hi) {
  if (var < 0 || var >= variables() || !(lo <= hi)) throw std::invalid_argument("LinearProgram::set_bounds");
  lo_[static_cast<size_t>(var)] = lo;
  hi_[static_cast<size_t>(var)] = hi;
}

void LinearProgram::set_objective(std::vector<double> objective) {
  if (objective.size() != obj_.size()) throw std::invalid_argument("LinearProgram::set_objective: size");
  obj_ = std::move(objective);
}

LinearProgram::Solution LinearProgram::maximize() const {
  Solution s;
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MAX);
  const int n = variables(), m = rows();
  if (n > 0) glp_add_cols(lp, n);
  for (int v = 0; v < n; ++v) {
    const auto k = static_cast<size_t>(v);
    glp_set_col_bnds(lp, v + 1, bound_type(lo_[k], hi_[k]), finite_or_zero(lo_[k]), finite_or_zero(hi_[k]));
    glp_set_obj_coef(lp, v + 1, obj_[k]);
  }
  if (m > 0) glp_add_rows(lp, m);
  std::vector<int> idx(1);
  std::vector<double> val(1);
  for (int r = 0; r < m; ++r) {
    const Row& row = rows_[static_cast<size_t>(r)];
    glp_set_row_bnds(lp, r + 1, bound_type(row.lo, row.hi), finite_or_zero(row.lo), finite_or_zero(row.hi));
    idx.resize(1);
    val.resize(1);
    for (const auto& [v, c] : row.coefs) {
      idx.push_back(v + 1);  // GLPK counts from 1; element 0 is unused
      val.push_back(c);
    }
    glp_set_mat_row(lp, r + 1, static_cast<int>(idx.size()) - 1, idx.data(), val.data());
  }
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  const int rc = glp_simplex(lp, &parm);
  if (rc == 0 && glp_get_status(lp) == GLP_OPT) {
    s.optimal = true;
    s.status = "optimal";
    s.objective = glp_get_obj_val(lp);
    s.x.resize(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) s.x[static_cast<size_t>(v)] = glp_get_col_prim(lp, v + 1);
  } else if (rc == GLP_ENOPFS || glp_get_status(lp) == GLP_NOFEAS) {
    s.status = "infeasible";
  } else if (rc == GLP_ENODFS || glp_get_status(lp) == GLP_UNBND) {
    s.status = "unbounded";
  } else {
    s.status = "GLPK simplex failed (code " + std::to_string(rc) + ")";
  }
  glp_delete_prob(lp);
  glp_free_env();  // this thread's GLPK state: nothing of it outlives the call
  return s;
}

}  // namespace geopipe
