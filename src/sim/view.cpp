#include "sim/view.h"

#include "model/data_parallel.h"

#include <algorithm>
#include <limits>

namespace geopipe {

double ClusterView::expected_share(int a, int b, double demand) const {
  const double cap = capacity_bw(a, b);
  const double fair = cap / (flow_count(a, b) + 1);
  return std::min(demand, std::max(residual_bw(a, b), fair));
}

void ClusterView::commit(const JobProfile& p, const Placement& pl) {
  const int R = regions();
  // one replica (a gang's replica being placed: sched/scheduler.h) or all D of them
  const int S = p.stages, D = static_cast<int>(pl.stage_region.size()) / S;
  for (int k = 0; k < D; ++k) {
    const int* replica = pl.stage_region.data() + static_cast<size_t>(k * S);
    for (int i = 0; i < S; ++i) {
      const int r = replica[i];
      free_gpus[static_cast<size_t>(r)] -= p.gpus_per_stage;
      total_free -= p.gpus_per_stage;
      if (i + 1 < S) {
        const int s = replica[i + 1];
        if (s != r) {
          const double beta = hop_demand_bytes_per_s(p, i, r, s, *topo, *compute);
          for (auto [x, y] : {std::pair{r, s}, std::pair{s, r}}) {
            auto& res = residual[static_cast<size_t>(x * R + y)];
            res = std::max(0.0, res - beta);
            ++flows[static_cast<size_t>(x * R + y)];
          }
        }
      }
    }
  }
  if (D == 1) return;
  // Each stage's synchronisation ring: a flow of unbounded demand on every cross-region hop
  // takes what is left of the residual (docs/model.md, "Data parallelism").
  for (const SyncRing& ring : sync_rings(pl.stage_region, S, compute->allreduce))
    for (const RingHop& h : ring.hops) {
      if (h.from == h.to) continue;
      residual[static_cast<size_t>(h.from * R + h.to)] = 0.0;
      ++flows[static_cast<size_t>(h.from * R + h.to)];
    }
}

double hop_demand_bytes_per_s(const JobProfile& p, int i, int a, int b, const Topology& topo,
                              const ComputeOptions& opt) {
  return stall_free_demand_bytes_per_s(p.activation_bytes, forward_time(p, i, topo.gpu_of(a), opt),
                                       forward_time(p, i + 1, topo.gpu_of(b), opt));
}

}  // namespace geopipe

namespace geopipe {
ClusterView idle_view(const Topology& topo, const ComputeOptions& compute, double now_s,
                      const std::vector<double>* capacity) {
  ClusterView v;
  const bool given = capacity != nullptr && !capacity->empty();
  if (given) v.capacity = *capacity;
  v.topo = &topo;
  v.compute = &compute;
  v.now_s = now_s;
  const int R = topo.num_regions();
  v.free_gpus.resize(static_cast<size_t>(R));
  v.residual.assign(static_cast<size_t>(R * R), 0.0);
  v.flows.assign(static_cast<size_t>(R * R), 0);
  for (int a = 0; a < R; ++a) {
    v.free_gpus[static_cast<size_t>(a)] = topo.regions[static_cast<size_t>(a)].gpu_count;
    v.total_free += topo.regions[static_cast<size_t>(a)].gpu_count;
    for (int b = 0; b < R; ++b)
      v.residual[static_cast<size_t>(a * R + b)] =
          a == b ? std::numeric_limits<double>::infinity()
                 : given ? (*capacity)[static_cast<size_t>(a * R + b)]
                         : topo.link(a, b).capacity_bytes_per_s;
  }
  return v;
}
}  // namespace geopipe
