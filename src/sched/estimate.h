// The schedulers' *estimates* of a placement's iteration time and cost. The simulator uses
// the exact recurrence (sim/pipeline.h); schedulers use this closed form, which treats every
// link as one more pipeline stage:
//   T_est = (m−1)·max(max_i u_i, max_h c_h) + Σ_i u_i + Σ_h (c_h + 2λ_h) + optimizer_step
// with u_i = f_i + b_i = 3 f_i and c_h = A/B_fwd + A/B_bwd. It is exact for equal stages
// with free communication, and for stall-free hops (B >= β) c_h never exceeds u.
#pragma once

#include "model/job.h"
#include "model/topology.h"
#include "sim/placement.h"
#include "sim/view.h"

namespace geopipe {

/// How hop bandwidth enters the estimate.
enum class BandwidthModel {
  kBlind,     ///< communication is free except latency (bandwidth-blind policies)
  kExpected,  ///< the share a new flow would get (ClusterView::expected_share)
};

double estimate_iteration_s(const JobProfile& p, const Placement& pl, const ClusterView& view,
                            BandwidthModel bw);

/// Estimated electricity cost (USD) of running the whole job on `pl` at iteration time
/// `iter_s`, starting now: I·Σ_i g·PUE·(P_busy·busy_i + P_idle·(T − busy_i)) × mean price of
/// the stage's region over [now, now + I·T].
double estimate_cost_usd(const JobProfile& p, const Placement& pl, double iter_s, const ClusterView& view);

}  // namespace geopipe
