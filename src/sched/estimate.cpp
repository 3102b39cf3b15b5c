#include "sched/estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "model/data_parallel.h"

#include "sim/energy.h"

namespace geopipe {

namespace {

/// The profile the job would run with on `pl` (sim.layer_partition): `p` itself for the even
/// split, else its balanced split for the placement's GPU types, held in `buf`.
const JobProfile& on_placement(const JobProfile& p, const Placement& pl, const ClusterView& view,
                               std::optional<JobProfile>& buf) {
  if (view.compute->layer_partition == LayerPartition::kEven) return p;
  buf = placed_profile(p, pl.stage_region, *view.topo, *view.compute);
  return *buf;
}

}  // namespace

namespace {

/// T_est of one pipeline (profile `p` as given, stages on `regions`), each cross-region hop a → b
/// at share(a, b, β) in each direction.
template <class Share>
double pipeline_estimate_s(const JobProfile& p, std::span<const int> regions, const ClusterView& view,
                           BandwidthModel bw, Share share) {
  const Topology& topo = *view.topo;
  double sum = 0, mx = 0;
  for (int i = 0; i < p.stages; ++i) {
    const int r = regions[static_cast<size_t>(i)];
    const double u = unit_time(p, i, topo.gpu_of(r), *view.compute);
    sum += u;
    mx = std::max(mx, u);
    if (i + 1 < p.stages) {
      const int s = regions[static_cast<size_t>(i + 1)];
      if (s == r) {
        const double c = intra_hop_comm_s(p.activation_bytes, topo);
        sum += c + intra_hop_latency_s(topo);
        mx = std::max(mx, c);
        continue;
      }
      double c = 0;
      if (bw == BandwidthModel::kExpected) {
        const double beta = hop_demand_bytes_per_s(p, i, r, s, topo, *view.compute);
        c = hop_comm_s(p.activation_bytes, share(r, s, beta), share(s, r, beta));
      }
      sum += c + topo.link(r, s).latency_s + topo.link(s, r).latency_s;  // c_h + 2λ_h, as summed since the first release
      mx = std::max(mx, c);
    }
  }
  return view.compute->schedule().bottleneck_weight(p.micro_batches) * mx + sum + view.compute->optimizer_step_s;
}

/// Electricity and hop egress of one pipeline (profile `p` as given) over its run at `iter_s`.
double pipeline_cost_usd(const JobProfile& p, std::span<const int> regions, double iter_s, const ClusterView& view) {
  const Topology& topo = *view.topo;
  const double run_s = p.iterations * iter_s;
  double usd = 0;
  for (int i = 0; i < p.stages; ++i) {
    const int r = regions[static_cast<size_t>(i)];
    const Region& reg = topo.regions[static_cast<size_t>(r)];
    const GpuType& gpu = topo.gpu_of(r);
    const double busy = stage_busy_per_iteration_s(p.micro_batches, forward_time(p, i, gpu, *view.compute),
                                                   p.bwd_per_fwd[static_cast<size_t>(i)]);
    const double j_per_iter = stage_energy_per_iteration_j(p.gpus_per_stage, reg.pue, gpu, busy, iter_s);
    usd += energy_cost_usd(p.iterations * j_per_iter, reg.price.mean_usd_per_kwh(view.now_s, view.now_s + run_s));
  }
  for (int i = 0; i + 1 < p.stages; ++i) {
    const int a = regions[static_cast<size_t>(i)], b = regions[static_cast<size_t>(i + 1)];
    if (a != b) usd += p.iterations * hop_egress_usd_per_iteration(p.micro_batches, p.activation_bytes, topo.link(a, b), topo.link(b, a));
  }
  return usd;
}

/// The directions a gang's flows use, for the shares of its estimate: a sorted list of
/// (direction a·R + b, β) of its cross-region pipeline hops (both directions of each), and one
/// of its rings' cross-region hops.
struct GangLinks {
  std::vector<SyncRing> rings;               ///< stage i's ring
  std::vector<std::pair<int, double>> pipe;  ///< (direction, β), sorted by direction
  std::vector<int> sync;                     ///< directions, sorted

  GangLinks(const JobProfile& p, const Placement& pl, const ClusterView& view)
      : rings(sync_rings(pl.stage_region, p.stages, view.compute->allreduce)) {
    const int S = p.stages, D = static_cast<int>(pl.stage_region.size()) / S, R = view.regions();
    for (int k = 0; k < D; ++k)
      for (int i = 0; i + 1 < S; ++i) {
        const int a = pl.stage_region[static_cast<size_t>(k * S + i)], b = pl.stage_region[static_cast<size_t>(k * S + i + 1)];
        if (a == b) continue;
        const double beta = hop_demand_bytes_per_s(p, i, a, b, *view.topo, *view.compute);
        pipe.emplace_back(a * R + b, beta);
        pipe.emplace_back(b * R + a, beta);
      }
    std::sort(pipe.begin(), pipe.end());
    for (const SyncRing& ring : rings)
      for (const RingHop& h : ring.hops)
        if (h.from != h.to) sync.push_back(h.from * R + h.to);
    std::sort(sync.begin(), sync.end());
  }
  /// The gang's pipeline flows on direction d and the sum of their β.
  std::pair<int, double> pipe_on(int d) const {
    const auto lo = std::lower_bound(pipe.begin(), pipe.end(), std::pair{d, -kInf});
    int n = 0;
    double beta = 0;
    for (auto it = lo; it != pipe.end() && it->first == d; ++it, ++n) beta += it->second;
    return {n, beta};
  }
  int sync_on(int d) const {
    const auto [lo, hi] = std::equal_range(sync.begin(), sync.end(), d);
    return static_cast<int>(hi - lo);
  }
  static constexpr double kInf = std::numeric_limits<double>::infinity();
};

}  // namespace

double estimate_iteration_s(const JobProfile& p_even, const Placement& pl, const ClusterView& view,
                            BandwidthModel bw) {
  std::optional<JobProfile> buf;
  const JobProfile& p = on_placement(p_even, pl, view, buf);
  return pipeline_estimate_s(p, pl.stage_region, view, bw,
                             [&](int a, int b, double beta) { return view.expected_share(a, b, beta); });
}

double estimate_cost_usd(const JobProfile& p_even, const Placement& pl, double iter_s, const ClusterView& view) {
  std::optional<JobProfile> buf;
  const JobProfile& p = on_placement(p_even, pl, view, buf);
  return pipeline_cost_usd(p, pl.stage_region, iter_s, view);
}

double estimate_gang_iteration_s(const JobProfile& p, const Placement& pl, const ClusterView& view, BandwidthModel bw) {
  const int S = p.stages, D = static_cast<int>(pl.stage_region.size()) / S, R = view.regions();
  const Topology& topo = *view.topo;
  const GangLinks links(p, pl, view);
  auto share = [&](int a, int b, double beta) {
    const int n = links.pipe_on(a * R + b).first;
    return std::min(beta, std::max(view.residual_bw(a, b) / n, view.capacity_bw(a, b) / (view.flow_count(a, b) + n)));
  };
  const std::span<const int> all(pl.stage_region);
  double pipe_s = 0;
  for (int k = 0; k < D; ++k)
    pipe_s = std::max(pipe_s, pipeline_estimate_s(p, all.subspan(static_cast<size_t>(k * S), static_cast<size_t>(S)), view, bw, share));
  if (D == 1) return pipe_s;
  double y = 0;
  std::vector<double> hop_bw, hop_lat;
  for (int i = 0; i < S; ++i) {
    const SyncRing& ring = links.rings[static_cast<size_t>(i)];
    hop_bw.clear();
    hop_lat.clear();
    for (const RingHop& h : ring.hops) {
      if (h.from == h.to) {
        hop_bw.push_back(topo.intra_bandwidth_bytes_per_s);
        hop_lat.push_back(topo.intra_latency_s);
        continue;
      }
      hop_lat.push_back(topo.link(h.from, h.to).latency_s);
      if (bw == BandwidthModel::kBlind) {
        hop_bw.push_back(GangLinks::kInf);
        continue;
      }
      const int d = h.from * R + h.to;
      const auto [n_p, beta] = links.pipe_on(d);
      const int n_s = links.sync_on(d);
      const double left = std::max(0.0, view.residual_bw(h.from, h.to) - beta);
      const double b = std::max(left / n_s, view.capacity_bw(h.from, h.to) / (view.flow_count(h.from, h.to) + n_p + n_s));
      if (!(b > 0)) return GangLinks::kInf;  // a link that is down
      hop_bw.push_back(b);
    }
    const double bytes = p.params[static_cast<size_t>(i)] * view.compute->sync_bytes_per_param;
    y = std::max(y, sync_time_s(ring, bytes, hop_bw, hop_lat, topo.intra_bandwidth_bytes_per_s, topo.intra_latency_s));
  }
  if (view.compute->dp_sync == DpSync::kDiLoCo) return pipe_s + y / static_cast<double>(view.compute->diloco_interval);
  return pipe_s + y;
}

double estimate_gang_cost_usd(const JobProfile& p, const Placement& pl, double iter_s, const ClusterView& view) {
  const int S = p.stages, D = static_cast<int>(pl.stage_region.size()) / S;
  const Topology& topo = *view.topo;
  const std::span<const int> all(pl.stage_region);
  double usd = 0;
  for (int k = 0; k < D; ++k)
    usd += pipeline_cost_usd(p, all.subspan(static_cast<size_t>(k * S), static_cast<size_t>(S)), iter_s, view);
  if (D == 1) return usd;
  double per_sync = 0;
  const std::vector<SyncRing> rings = sync_rings(pl.stage_region, S, view.compute->allreduce);
  for (int i = 0; i < S; ++i) {
    const SyncRing& ring = rings[static_cast<size_t>(i)];
    const double hop_bytes = ring_hop_bytes(ring.members, p.params[static_cast<size_t>(i)] * view.compute->sync_bytes_per_param);
    for (const RingHop& h : ring.hops)
      if (h.from != h.to) per_sync += hop_bytes * topo.link(h.from, h.to).egress_usd_per_byte;
  }
  const double syncs = view.compute->dp_sync == DpSync::kDiLoCo
                           ? std::floor(p.iterations / static_cast<double>(view.compute->diloco_interval))
                           : p.iterations;
  return usd + syncs * per_sync;
}

}  // namespace geopipe
