// A small linear program and its solution by GLPK's simplex method (the kept solver library
// the gavel-maxmin preset solves its allocation with: sched/gavel.h). GLPK stays private to
// linear_program.cpp; nothing else in the core sees it.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace geopipe {

/// maximise c·x subject to lo_r <= a_r·x <= hi_r for each row r and lo_v <= x_v <= hi_v.
/// Bounds may be ±infinity (std::numeric_limits<double>::infinity()). Rows are sparse.
/// Owned by value; solving does not change it.
class LinearProgram {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  /// Adds a variable with objective coefficient `objective` and bounds [lo, hi]; its index.
  int add_variable(double objective, double lo = 0.0, double hi = kInf);
  /// Adds the row lo <= Σ coef·x[var] <= hi (each variable at most once in `coefs`).
  void add_row(std::vector<std::pair<int, double>> coefs, double lo, double hi);
  /// Changes a variable's bounds (e.g. to fix a first stage's optimum before a second one).
  void set_bounds(int var, double lo, double hi);
  /// Changes the objective coefficient of every variable (size = variables()).
  void set_objective(std::vector<double> objective);

  int variables() const { return static_cast<int>(obj_.size()); }
  int rows() const { return static_cast<int>(rows_.size()); }

  struct Solution {
    bool optimal = false;   ///< an optimum was found (else infeasible, unbounded or failed)
    std::string status;     ///< "optimal", "infeasible", "unbounded" or GLPK's failure
    double objective = 0;   ///< c·x at the optimum
    std::vector<double> x;  ///< the variables at the optimum (a basic solution: a vertex)
  };
  /// Maximises with GLPK's primal simplex (presolver on, messages off). Deterministic: the
  /// same program gives the same vertex. Re-entrant: GLPK keeps its state per thread, and the
  /// calling thread's GLPK environment is freed before it returns.
  Solution maximize() const;

 private:
  struct Row {
    std::vector<std::pair<int, double>> coefs;
    double lo, hi;
  };
  std::vector<double> obj_, lo_, hi_;
  std::vector<Row> rows_;
};

}  // namespace geopipe
