// Energy and electricity cost (docs/model.md, "Energy and cost"): the one definition of a
// stage's busy time, energy and power per iteration and of the cost of energy, used by the
// simulator (exact accounting) and by the schedulers' estimates (sched/estimate.h, the
// pathfinder's cost coefficients).
//
// Per iteration, stage i is busy m·(f_i + b_i) and idle for the rest of T_iter (bubbles and
// stalls). Its energy per iteration is g·PUE·(P_busy·busy + P_idle·(T_iter − busy)), busy
// clamped to [0, T_iter]; its average power over the run is that divided by T_iter. Cost
// integrates power × price over time with the region's (possibly hourly) price profile.
//
// Egress: a cross-region hop a -> b sends m activations (A bytes each) over direction a -> b and
// m gradients over b -> a per iteration; each direction bills its bytes at its own price.
#pragma once

#include "model/gpu.h"
#include "model/job.h"
#include "model/topology.h"
#include "model/units.h"

namespace geopipe {

/// Seconds stage i computes per iteration: m·(f_i + b_i) = m·compute_time(f_i, ρ_i), ρ_i =
/// JobProfile::bwd_per_fwd[i].
constexpr double stage_busy_per_iteration_s(int micro_batches, double fwd_s, double bwd_per_fwd) {
  return micro_batches * compute_time(fwd_s, bwd_per_fwd);
}

/// Joules one stage uses per iteration. busy_s is clamped to [0, T_iter].
double stage_energy_per_iteration_j(int gpus, double pue, const GpuType& gpu, double busy_s,
                                    double iteration_s);

/// Average facility power (W) of one stage while its job runs at iteration time T_iter.
inline double stage_power_w(int gpus, double pue, const GpuType& gpu, double busy_s, double iteration_s) {
  return stage_energy_per_iteration_j(gpus, pue, gpu, busy_s, iteration_s) / iteration_s;
}

/// Cost (USD) of `energy_j` joules at `usd_per_kwh`.
constexpr double energy_cost_usd(double energy_j, double usd_per_kwh) {
  return units::joules_to_kwh(energy_j) * usd_per_kwh;
}

/// Electricity cost (USD) of drawing `power_w` under `price` from t0 to t1 (simulation time):
/// P·(Π(t1) − Π(t0)) / 3.6e6 with Π the price integral of PriceProfile.
inline double energy_cost_usd(const PriceProfile& price, double power_w, double t0_s, double t1_s) {
  return units::joules_to_kwh(power_w * (price.integral(t1_s) - price.integral(t0_s)));
}

/// Egress cost (USD) one cross-region hop a -> b incurs per iteration: m·A bytes each way, billed
/// to the sending direction: m·A·(e(a→b) + e(b→a)). 0 for links without a price.
constexpr double hop_egress_usd_per_iteration(int micro_batches, double activation_bytes, const Link& a_to_b,
                                              const Link& b_to_a) {
  return micro_batches * activation_bytes * (a_to_b.egress_usd_per_byte + b_to_a.egress_usd_per_byte);
}

}  // namespace geopipe
