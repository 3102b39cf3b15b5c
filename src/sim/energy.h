// Energy and electricity cost (DESIGN.md §2.5).
//
// Per iteration, stage i is busy m·(f_i + b_i) and idle for the rest of T_iter (bubbles and
// stalls). Its energy per iteration is g·PUE·(P_busy·busy + P_idle·(T_iter − busy)); its
// average power over the run is that divided by T_iter. Cost integrates power × price over
// time with the region's (possibly hourly) price profile.
#pragma once

#include "model/gpu.h"
#include "model/topology.h"

namespace geopipe {

/// Joules one stage uses per iteration. busy_s is clamped to [0, T_iter].
double stage_energy_per_iteration_j(int gpus, double pue, const GpuType& gpu, double busy_s,
                                    double iteration_s);

/// Average facility power (W) of one stage while its job runs at iteration time T_iter.
inline double stage_power_w(int gpus, double pue, const GpuType& gpu, double busy_s, double iteration_s) {
  return stage_energy_per_iteration_j(gpus, pue, gpu, busy_s, iteration_s) / iteration_s;
}

/// Electricity cost (USD) of drawing `power_w` in `region` from t0 to t1 (simulation time).
inline double energy_cost_usd(const PriceProfile& price, double power_w, double t0_s, double t1_s) {
  return power_w * (price.integral(t1_s) - price.integral(t0_s)) / 3.6e6;
}

}  // namespace geopipe
