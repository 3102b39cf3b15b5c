#include "model/data_parallel.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace geopipe {

double ring_hop_bytes(int n, double bytes) { return n <= 1 ? 0.0 : 2.0 * (n - 1) / n * bytes; }

double ring_allreduce_s(int n, double bytes, double bandwidth_bytes_per_s, double latency_s) {
  assert(n >= 1 && bandwidth_bytes_per_s > 0 && latency_s >= 0);
  if (n <= 1) return 0.0;
  return ring_hop_bytes(n, bytes) / bandwidth_bytes_per_s + 2.0 * (n - 1) * latency_s;
}

SyncRing sync_ring(const std::vector<int>& replica_region, AllReduceKind kind) {
  const int D = static_cast<int>(replica_region.size());
  // The distinct regions in order of their first replica, and how many replicas each holds.
  std::vector<int> regions, count;
  for (int r : replica_region) {
    const auto it = std::find(regions.begin(), regions.end(), r);
    if (it == regions.end()) {
      regions.push_back(r);
      count.push_back(1);
    } else {
      ++count[static_cast<size_t>(it - regions.begin())];
    }
  }
  SyncRing ring;
  const int k = static_cast<int>(regions.size());
  if (kind == AllReduceKind::kHierarchical) {
    ring.members = k;
    ring.intra_members = *std::max_element(count.begin(), count.end());
    if (k >= 2)
      for (int i = 0; i < k; ++i) ring.hops.push_back({regions[static_cast<size_t>(i)], regions[static_cast<size_t>((i + 1) % k)]});
    return ring;
  }
  // Members grouped by region (stable: replica order inside a region): the hop between two
  // members is their regions' pair.
  std::vector<int> member_region;
  member_region.reserve(static_cast<size_t>(D));
  for (size_t g = 0; g < regions.size(); ++g)
    for (int c = 0; c < count[g]; ++c) member_region.push_back(regions[g]);
  ring.members = D;
  if (D >= 2)
    for (int i = 0; i < D; ++i)
      ring.hops.push_back({member_region[static_cast<size_t>(i)], member_region[static_cast<size_t>((i + 1) % D)]});
  return ring;
}

std::vector<SyncRing> sync_rings(std::span<const int> stage_region, int stages, AllReduceKind kind) {
  const auto S = static_cast<size_t>(stages);
  const size_t D = stage_region.size() / S;
  std::vector<SyncRing> rings;
  rings.reserve(S);
  std::vector<int> replica_region(D);
  for (size_t i = 0; i < S; ++i) {
    for (size_t k = 0; k < D; ++k) replica_region[k] = stage_region[k * S + i];
    rings.push_back(sync_ring(replica_region, kind));
  }
  return rings;
}

bool sync_rings_connected(std::span<const int> stage_region, int stages, const Topology& topo, AllReduceKind kind) {
  if (stage_region.size() <= static_cast<size_t>(stages)) return true;
  for (const SyncRing& ring : sync_rings(stage_region, stages, kind))
    for (const RingHop& h : ring.hops)
      if (h.from != h.to && !topo.connected(h.from, h.to)) return false;
  return true;
}

double sync_time_s(const SyncRing& ring, double bytes, std::span<const double> hop_bandwidth_bytes_per_s,
                   std::span<const double> hop_latency_s, double intra_bandwidth_bytes_per_s,
                   double intra_latency_s) {
  assert(hop_bandwidth_bytes_per_s.size() == ring.hops.size() && hop_latency_s.size() == ring.hops.size());
  double t = 0;
  if (ring.intra_members > 1) t += ring_allreduce_s(ring.intra_members, bytes, intra_bandwidth_bytes_per_s, intra_latency_s);
  if (ring.members > 1) {
    double bw = std::numeric_limits<double>::infinity(), lat = 0;
    for (size_t h = 0; h < ring.hops.size(); ++h) {
      bw = std::min(bw, hop_bandwidth_bytes_per_s[h]);
      lat = std::max(lat, hop_latency_s[h]);
    }
    t += ring_allreduce_s(ring.members, bytes, bw, lat);
  }
  return t;
}

void DilocoClock::split(double u, double& cycles, double& w) const {
  const double per = static_cast<double>(interval) + 1.0;
  cycles = std::floor(u / per);
  w = u - cycles * per;
  // the division may round across a cycle boundary
  if (w < 0) {
    cycles -= 1;
    w += per;
  } else if (w >= per) {
    cycles += 1;
    w -= per;
  }
}

double DilocoClock::total_units(double iterations) const {
  const double H = static_cast<double>(interval);
  const double cycles = std::floor(iterations / H);
  return cycles * (H + 1.0) + (iterations - cycles * H);
}

double DilocoClock::time_to(double u, double iteration_s, double sync_s) const {
  const double H = static_cast<double>(interval);
  double cycles = 0, w = 0;
  split(u, cycles, w);
  return cycles * (H * iteration_s + sync_s) + std::min(w, H) * iteration_s + std::max(w - H, 0.0) * sync_s;
}

double DilocoClock::advance(double u, double dt_s, double iteration_s, double sync_s) const {
  const double H = static_cast<double>(interval);
  const double target = time_to(u, iteration_s, sync_s) + dt_s;
  const double cycle_s = H * iteration_s + sync_s;
  double cycles = std::floor(target / cycle_s);
  double rest = target - cycles * cycle_s;
  if (rest < 0) {
    cycles -= 1;
    rest += cycle_s;
  }
  const double inner_s = H * iteration_s;
  double w;
  if (rest <= inner_s)
    w = rest / iteration_s;
  else
    w = sync_s > 0 ? H + std::min(1.0, (rest - inner_s) / sync_s) : H;
  return std::max(u, cycles * (H + 1.0) + w);
}

double DilocoClock::iterations_at(double u) const {
  const double H = static_cast<double>(interval);
  double cycles = 0, w = 0;
  split(u, cycles, w);
  return cycles * H + std::min(w, H);
}

double DilocoClock::syncs_at(double u) const {
  const double H = static_cast<double>(interval);
  double cycles = 0, w = 0;
  split(u, cycles, w);
  return cycles + std::max(w - H, 0.0);
}

}  // namespace geopipe
