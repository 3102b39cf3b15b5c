// Sensitivity indices of a model output over a sampling design, with bootstrap confidence
// intervals: variance-based Sobol' indices (Saltelli design), Morris elementary effects and
// one-at-a-time ranges. The estimators are SALib's (sobol.analyze, morris.analyze), so a result
// can be checked against SALib on the same numbers; only the bootstrap draws differ (they come
// from geopipe::Rng, model/rng.h, so they are the same on every platform and standard library).
//
// Inputs are the model outputs y in the design's point order; nothing is kept after a call
// returns (results are plain values). Deterministic: the same inputs and seed give bit-identical
// results. Thread-safe: functions of their arguments only.
//
// Errors: a malformed input (wrong size, a non-finite output, a Morris step that changes no or
// two factors, ...) throws std::invalid_argument whose message names the function and where
// (point, sample, trajectory, step); indices are 0-based.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace geopipe::analysis {

/// Bootstrap confidence intervals (all three estimators below).
struct BootstrapOptions {
  std::size_t resamples = 1000;  ///< bootstrap resamples (0: no CIs, every *_conf = NaN; with 1,
                                 ///< the sd of one value is NaN too)
  double confidence = 0.95;      ///< the CI level, in (0, 1) (else std::invalid_argument);
                                 ///< conf = z_{(1+confidence)/2} * sd of the bootstrap estimates
                                 ///< (ddof = 1), as SALib reports it: the interval is est +- conf
  std::uint64_t seed = 1;        ///< the resampling stream is Rng(derive_seed(seed, "bootstrap"))
};

// --- Sobol' indices -------------------------------------------------------------------------
//
// Saltelli layout of the design (how the sweep's design numbers its points; SALib's
// saltelli.sample order; written once as SaltelliLayout, analysis/saltelli_layout.h). Two independent N x D sample matrices A and B over the factors; with
// D factors and N samples, each sample i contributes k consecutive points,
//     k = D + 2      (first and total order only), or
//     k = 2D + 2     (with second order);
// point p belongs to sample i = p / k, block b = p % k:
//     b = 0            A_i
//     b = 1 .. D       AB_j, j = b - 1: row A_i with column j taken from B_i
//     b = D+1 .. 2D    (second order only) BA_j, j = b - D - 1: row B_i with column j from A_i
//     b = k - 1        B_i
//
// Estimators, exactly SALib's sobol.analyze: y is first centred by its mean over all N*k points
// (SALib standardises it, (y - mean)/sd; the scale cancels in every index, the centring does
// not: it makes the S1 and S2 estimators invariant to a constant offset of the output). Then,
// with means over the N samples and V the population variance of the 2N values [f(A); f(B)]:
//     S1_j = mean(f_B (f_ABj - f_A)) / V                        (Saltelli et al. 2010)
//     ST_j = mean((f_A - f_ABj)^2) / (2 V)                      (Jansen 1999)
//     V_jk = mean(f_BAj f_ABk - f_A f_B) / V,  S2_jk = V_jk - S1_j - S1_k    (Saltelli 2002)
// A constant output (V = 0) gives 0 for every index (SALib warns and would divide by 0).
// Estimates are not clipped: S1 may be slightly negative, S1 > ST may happen at small N.
//
// Bootstrap: each resample draws N sample indices with replacement (N calls of rng.below(N),
// resample after resample, on one Rng(derive_seed(seed, "bootstrap")); one draw per resample,
// shared by every factor and index), recomputes V and every index from the resampled samples;
// conf = z * sd over the resamples. A resample is evaluated as counts (sample i weighted by how
// often it was drawn), which is the same sum up to rounding. Cost: O(resamples * N * (D + D^2/2
// with second order)), no allocation per resample; N = 100,000, D = 8, 1000 resamples takes
// about 0.6 s on one core for first and total order, 1.8 s with second order
// (tests/bench/bench_sensitivity.cpp).

struct SobolIndices {
  std::size_t factors = 0, samples = 0;   ///< D and N
  double variance = 0;                    ///< V: population variance of [f(A); f(B)], in y's unit^2
  std::vector<double> S1, S1_conf;        ///< D values each
  std::vector<double> ST, ST_conf;        ///< D values each
  std::vector<double> S2, S2_conf;        ///< D*D row-major, S2[j*D+k] for j < k, NaN elsewhere;
                                          ///< empty without second order
};

/// y in point order, size N*k (k above). Throws std::invalid_argument for factors == 0, a size
/// that is not a multiple of k, N < 2, a non-finite y (naming the point, sample and block), or
/// a confidence outside (0, 1).
SobolIndices sobol_indices(const std::vector<double>& y, std::size_t factors, bool second_order,
                           const BootstrapOptions& opt = {});

// --- Morris elementary effects --------------------------------------------------------------
//
// The design is r trajectories of D + 1 consecutive points each; point t*(D+1) + s + 1 differs
// from point t*(D+1) + s (step s of trajectory t, s = 0 .. D-1) in exactly one factor, and each
// factor changes at exactly one step of each trajectory. The elementary effect of that step is
//     EE = (y_next - y_prev) / (u_next - u_prev)
// in unit-hypercube coordinates u of the changed factor (so the sign of the step is accounted
// for, as in SALib's morris.analyze). Per factor, over its r effects:
//     mu = mean EE, mu_star = mean |EE|, sigma = sd of EE (ddof = 1; NaN with one trajectory),
//     mu_star_conf = z * sd of the bootstrap mu_star: each resample draws r trajectory indices
//     with replacement (the same draw for every factor, as SALib reseeds per factor); NaN with
//     one trajectory (SALib would report 0: every resample is that trajectory).

struct MorrisIndices {
  std::size_t factors = 0, trajectories = 0;    ///< D and r
  std::vector<double> mu, mu_star, sigma, mu_star_conf;  ///< D values each, in y's unit per unit u
};

/// unit: row-major points x factors (unit-hypercube coordinates, size r*(D+1)*D), y: one value
/// per point (size r*(D+1), r >= 1). Throws std::invalid_argument for factors == 0, a size
/// mismatch, a non-finite y or coordinate (naming the point), or a step that changes no factor,
/// more than one, or a factor already changed in its trajectory (naming trajectory and step).
MorrisIndices morris_indices(const std::vector<double>& unit, const std::vector<double>& y,
                             std::size_t factors, const BootstrapOptions& opt = {});

// --- One-at-a-time ranges -------------------------------------------------------------------

struct OatEffect {
  std::size_t levels = 0;  ///< points that move this factor (the base not counted)
  double y_min = 0, y_max = 0, range = 0;  ///< over those points and the base; range = max - min
};

/// unit: row-major points x factors (size P*D, P = y.size() >= 1); point 0 is the base (every
/// coordinate NaN: all factors at the base's values), every other point has exactly one
/// non-NaN, finite coordinate: the factor it moves (its unit value is not used). Returns one
/// OatEffect per factor; a factor without a point has levels 0 and y_min = y_max = y[0].
/// Throws std::invalid_argument for factors == 0, a size mismatch, a non-finite y, a base with
/// a coordinate, or a point that moves no factor or several (naming the point).
std::vector<OatEffect> oat_effects(const std::vector<double>& unit, const std::vector<double>& y,
                                   std::size_t factors);

}  // namespace geopipe::analysis
