// Data parallelism (docs/model.md, "Data parallelism"): the synchronisation of a job's D
// replicas, as closed forms the engine evaluates exactly and the tests check by hand.
//
// A job of D replicas runs D copies of its S-stage pipeline; replica k's stage i holds the
// same layers as every other replica's stage i (the even split) and, after its backward
// passes, all-reduces its gradients (params_i × sync_bytes_per_param bytes) with them.
//
// The collective is a ring (nccl-tests' bound for n members, `bytes` each, over a ring whose
// slowest hop has bandwidth B bytes/s and whose largest one-way latency is α):
//   ring_allreduce_s(n, bytes, B, α) = 2(n−1)/n · bytes/B + 2(n−1)·α     (0 for n = 1)
// (a reduce-scatter and an all-gather, each n−1 steps of bytes/n over every hop at once).
//
// Units: seconds, bytes, bytes/s. Pure functions; no state.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/job.h"
#include "model/topology.h"

namespace geopipe {

/// Ring all-reduce time of `bytes` among `n` >= 1 members: 2(n−1)/n · bytes / B + 2(n−1)·α.
/// B > 0 (may be +inf), α >= 0. 0 for n = 1.
double ring_allreduce_s(int n, double bytes, double bandwidth_bytes_per_s, double latency_s);

/// Bytes each hop of a ring of `n` members sends per all-reduce of `bytes`: 2(n−1)/n · bytes.
double ring_hop_bytes(int n, double bytes);

/// One directed hop of a synchronisation ring.
struct RingHop {
  int from = 0, to = 0;  ///< regions; from == to: a hop inside one region (the intra fabric)
};

/// The synchronisation of one stage of a D-replica job, given where its replicas run
/// (`replica_region`, size D, the region of replica k's copy of the stage):
///  * ring (AllReduceKind::kRing): one ring over all D replicas, visiting them grouped by
///    region in order of each region's first replica (ties: replica index), so the ring
///    crosses each region boundary once: `members` = D, `hops` its D hops (the last back to
///    the first member), `intra_members` = 0.
///  * hierarchical: the replicas of each region reduce-scatter inside it, one ring over the k
///    distinct regions (in order of first replica) all-reduces across them, and each region
///    all-gathers inside: ring_allreduce_s(d, bytes, B_intra, α_intra) +
///    ring_allreduce_s(k, bytes, B_cross, α_cross) with d the most replicas in one region
///    (the cross ring carries the whole `bytes` over each WAN hop: the d parallel sub-rings of
///    a region share its one link). `members` = k, `hops` the k cross hops (none for k = 1),
///    `intra_members` = d.
struct SyncRing {
  int members = 1;             ///< n of the ring whose hops are `hops`
  std::vector<RingHop> hops;   ///< size `members` when members >= 2, else empty
  int intra_members = 0;       ///< hierarchical: d, the inside-region ring's members (0 for a ring)
};
SyncRing sync_ring(const std::vector<int>& replica_region, AllReduceKind kind);

/// The ring of every stage (sync_ring of its replicas' regions), stage by stage. `stage_region`
/// lists D replicas' S stages replica by replica (size D·S, D >= 1).
std::vector<SyncRing> sync_rings(std::span<const int> stage_region, int stages, AllReduceKind kind);

/// Do the rings of every stage join only connected regions? `stage_region` lists D replicas'
/// S stages replica by replica (size D·S, D >= 1).
bool sync_rings_connected(std::span<const int> stage_region, int stages, const Topology& topo, AllReduceKind kind);

/// The all-reduce time of one stage's `bytes` over `ring`, its hops (in ring.hops order) at
/// `hop_bandwidth_bytes_per_s` and `hop_latency_s` (intra-region hops at the intra values),
/// and the inside-region part (hierarchical) at the intra values.
double sync_time_s(const SyncRing& ring, double bytes, std::span<const double> hop_bandwidth_bytes_per_s,
                   std::span<const double> hop_latency_s, double intra_bandwidth_bytes_per_s,
                   double intra_latency_s);

/// DiLoCo's clock (sim.dp_sync = "diloco"): a job of I iterations runs H inner iterations of
/// T s each, then a blocking synchronisation of Y s, again and again; synchronisations follow
/// iterations H, 2H, ..., ⌊I/H⌋·H (the last one also when it is the job's last iteration).
/// Progress is a position u in units: H iteration units then one synchronisation unit per
/// cycle (H + 1 units), ⌊I/H⌋·(H+1) + (I mod H) in all. An iteration unit takes T s, a
/// synchronisation unit Y s, and a fraction of a unit the same fraction of its time (fluid
/// progress, as for iterations without DP). All positions and times are >= 0, T > 0, Y >= 0.
struct DilocoClock {
  std::int64_t interval = 1;  ///< H >= 1

  /// Units of a job of `iterations` iterations.
  double total_units(double iterations) const;
  /// Seconds from position 0 to u at these times: cycles·(H·T + Y) + min(w, H)·T + max(w − H, 0)·Y
  /// with cycles = ⌊u/(H+1)⌋, w = u − cycles·(H+1).
  double time_to(double u, double iteration_s, double sync_s) const;
  /// The position `dt_s` seconds after u (inverse of time_to, clamped to >= u).
  double advance(double u, double dt_s, double iteration_s, double sync_s) const;
  /// Iterations completed at position u: cycles·H + min(w, H).
  double iterations_at(double u) const;
  /// Synchronisations completed at u, a fraction for one under way: cycles + max(w − H, 0).
  double syncs_at(double u) const;

 private:
  /// cycles and w of u (0 <= w < H + 1).
  void split(double u, double& cycles, double& w) const;
};

}  // namespace geopipe
