// The schedulers' *estimates* of a placement's iteration time and cost. The simulator uses
// the exact timing of the pipeline schedule (model/pipeline_schedule.h); schedulers use this
// closed form, which treats every link as one more pipeline stage:
//   T_est = w(m)·max(max_i u_i, max_h c_h) + Σ_i u_i + Σ_h (c_h + 2λ_h) + optimizer_step
// with w(m) the schedule's bottleneck_weight (m − 1 for GPipe and 1F1B), u_i = f_i + b_i = compute_time(f_i, ρ_i) and c_h = A/B_fwd + A/B_bwd. It is exact for equal
// stages with free communication, and for stall-free hops (B >= β) c_h never exceeds u.
// The hop terms below are shared with the pathfinder, which evaluates the same estimate
// incrementally (sched/pathfinder.h).
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

/// c_h of a same-region hop (both directions over the uncontended intra-region bandwidth).
inline double intra_hop_comm_s(double activation_bytes, const Topology& topo) {
  return 2.0 * activation_bytes / topo.intra_bandwidth_bytes_per_s;
}
/// 2λ of a same-region hop.
inline double intra_hop_latency_s(const Topology& topo) { return 2.0 * topo.intra_latency_s; }
/// c_h of a hop whose directions get bandwidths `fwd_bytes_per_s` and `bwd_bytes_per_s`.
inline double hop_comm_s(double activation_bytes, double fwd_bytes_per_s, double bwd_bytes_per_s) {
  return activation_bytes / fwd_bytes_per_s + activation_bytes / bwd_bytes_per_s;
}
/// Round-trip latency λ(a→b) + λ(b→a) of a cross-region hop.
inline double hop_round_trip_s(const Topology& topo, int a, int b) {
  return topo.link(a, b).latency_s + topo.link(b, a).latency_s;
}

/// T_est of the job (profile `p`, its even split) on `pl`, with the layer split it would run
/// with there (sim.layer_partition: the balanced split of the placement's GPU types).
double estimate_iteration_s(const JobProfile& p, const Placement& pl, const ClusterView& view,
                            BandwidthModel bw);

/// Estimated cost (USD) of running the whole job on `pl` at iteration time `iter_s`, starting
/// now: electricity, I·Σ_i stage_energy_per_iteration_j(g, PUE, busy_i, T) × the mean price of
/// the stage's region over [now, now + I·T], plus egress, I·Σ_h hop_egress_usd_per_iteration
/// over the cross-region hops (sim/energy.h).
double estimate_cost_usd(const JobProfile& p, const Placement& pl, double iter_s, const ClusterView& view);

// Gangs: a job of D > 1 replicas (docs/model.md, "Data parallelism"). `pl` lists
// the D replicas' S stages replica by replica (D·S regions); the replicas run the even split.
//
//   T_gang = max_k T_pipe(k) + Y          (sim.dp_sync = "allreduce")
//   T_gang = max_k T_pipe(k) + Y / H      (sim.dp_sync = "diloco", H = sim.diloco_interval)
//
// T_pipe(k) is T_est above of replica k with the even split, each cross-region hop at the share a
// new flow would get when n of the gang's hops use that direction (n = 1: expected_share):
// min(β, max(residual / n, capacity / (flows + n))). Y = max_i AR_i, AR_i stage i's all-reduce
// over its ring (model/data_parallel.h sync_ring, sync_time_s), each cross-region ring hop at
// max(residual' / n_s, capacity / (flows + n_p + n_s)) with n_s the gang's ring hops and n_p its
// pipeline hops on that direction, residual' what the pipeline hops' β leave of the residual
// (kBlind: unbounded, so only latency counts), hops inside a region at the intra-region values.
// The sum max + Y is an upper bound of the engine's max_i (E_i + AR_i): it does not credit a
// stage's all-reduce with the backward passes of the stages before it that are still running.
// For D = 1 it is estimate_iteration_s under the even split, bit for bit.
double estimate_gang_iteration_s(const JobProfile& p, const Placement& pl, const ClusterView& view,
                                 BandwidthModel bw);

/// Estimated cost (USD) of the whole gang at iteration time `iter_s`, starting now: each
/// replica's estimate_cost_usd (the even split) plus the synchronisations' egress, N_sync ×
/// Σ_i Σ_{cross-region ring hops h} ring_hop_bytes(n_i, bytes_i) × egress price of h's direction,
/// with N_sync = I (allreduce) or ⌊I/H⌋ (diloco), as the engine bills it.
double estimate_gang_cost_usd(const JobProfile& p, const Placement& pl, double iter_s, const ClusterView& view);

}  // namespace geopipe
