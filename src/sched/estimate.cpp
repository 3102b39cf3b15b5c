#include "sched/estimate.h"

#include <algorithm>
#include <optional>

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

double estimate_iteration_s(const JobProfile& p_even, const Placement& pl, const ClusterView& view,
                            BandwidthModel bw) {
  std::optional<JobProfile> buf;
  const JobProfile& p = on_placement(p_even, pl, view, buf);
  const Topology& topo = *view.topo;
  double sum = 0, mx = 0;
  for (int i = 0; i < p.stages; ++i) {
    const int r = pl.stage_region[static_cast<size_t>(i)];
    const double u = unit_time(p, i, topo.gpu_of(r), *view.compute);
    sum += u;
    mx = std::max(mx, u);
    if (i + 1 < p.stages) {
      const int s = pl.stage_region[static_cast<size_t>(i + 1)];
      if (s == r) {
        const double c = intra_hop_comm_s(p.activation_bytes, topo);
        sum += c + intra_hop_latency_s(topo);
        mx = std::max(mx, c);
        continue;
      }
      double c = 0;
      if (bw == BandwidthModel::kExpected) {
        const double beta = hop_demand_bytes_per_s(p, i, r, s, topo, *view.compute);
        c = hop_comm_s(p.activation_bytes, view.expected_share(r, s, beta), view.expected_share(s, r, beta));
      }
      sum += c + topo.link(r, s).latency_s + topo.link(s, r).latency_s;  // c_h + 2λ_h, as summed since the first release
      mx = std::max(mx, c);
    }
  }
  return view.compute->schedule().bottleneck_weight(p.micro_batches) * mx + sum + view.compute->optimizer_step_s;
}

double estimate_cost_usd(const JobProfile& p_even, const Placement& pl, double iter_s, const ClusterView& view) {
  std::optional<JobProfile> buf;
  const JobProfile& p = on_placement(p_even, pl, view, buf);
  const Topology& topo = *view.topo;
  const double run_s = p.iterations * iter_s;
  double usd = 0;
  for (int i = 0; i < p.stages; ++i) {
    const int r = pl.stage_region[static_cast<size_t>(i)];
    const Region& reg = topo.regions[static_cast<size_t>(r)];
    const GpuType& gpu = topo.gpu_of(r);
    const double busy = stage_busy_per_iteration_s(p.micro_batches, forward_time(p, i, gpu, *view.compute),
                                                   p.bwd_per_fwd[static_cast<size_t>(i)]);
    const double j_per_iter = stage_energy_per_iteration_j(p.gpus_per_stage, reg.pue, gpu, busy, iter_s);
    usd += energy_cost_usd(p.iterations * j_per_iter, reg.price.mean_usd_per_kwh(view.now_s, view.now_s + run_s));
  }
  for (int i = 0; i + 1 < p.stages; ++i) {
    const int a = pl.stage_region[static_cast<size_t>(i)], b = pl.stage_region[static_cast<size_t>(i + 1)];
    if (a != b) usd += p.iterations * hop_egress_usd_per_iteration(p.micro_batches, p.activation_bytes, topo.link(a, b), topo.link(b, a));
  }
  return usd;
}

}  // namespace geopipe
