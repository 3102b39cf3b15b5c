#include "model/faults.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace geopipe {

namespace {
/// Σ g / (the region's mean time between events, `field`) over the placement's entries, per s.
double rate_per_s(std::span<const int> stage_region, int gpus_per_stage, const Topology& topo, double Region::*field) {
  double rate = 0;
  for (int r : stage_region) {
    const double m = topo.regions[static_cast<size_t>(r)].*field;
    if (std::isfinite(m)) rate += gpus_per_stage / m;
  }
  return rate;
}
}  // namespace

double failure_rate_per_s(std::span<const int> stage_region, int gpus_per_stage, const Topology& topo) {
  return rate_per_s(stage_region, gpus_per_stage, topo, &Region::gpu_mtbf_s);
}

double preemption_rate_per_s(std::span<const int> stage_region, int gpus_per_stage, const Topology& topo) {
  return rate_per_s(stage_region, gpus_per_stage, topo, &Region::spot_mtbp_s);
}

double checkpoint_cost_auto_s(std::span<const double> stage_params, std::span<const int> stage_region,
                              double bytes_per_param, const Topology& topo) {
  const size_t S = stage_params.size();
  const size_t D = stage_region.size() / S;
  std::vector<double> bytes(topo.regions.size(), 0.0);
  for (size_t x = 0; x < stage_region.size(); ++x)
    bytes[static_cast<size_t>(stage_region[x])] += stage_params[x % S] * bytes_per_param / static_cast<double>(D);
  double c = 0;
  for (size_t r = 0; r < bytes.size(); ++r)
    if (bytes[r] > 0) c = std::max(c, bytes[r] / topo.regions[r].checkpoint_bytes_per_s);
  return c;
}

double young_daly_interval_s(double cost_s, double mtbf_s) {
  if (std::isinf(mtbf_s)) return std::numeric_limits<double>::infinity();
  return std::sqrt(2.0 * cost_s * mtbf_s);
}

double expected_segment_s(double lambda_per_s, double x_s, double restart_s) {
  if (lambda_per_s <= 0) return x_s;
  return std::expm1(lambda_per_s * x_s) * (1.0 / lambda_per_s + restart_s);
}

double expected_jct_s(double work_s, double interval_s, double cost_s, double lambda_per_s, double restart_s) {
  if (!(interval_s < work_s)) return expected_segment_s(lambda_per_s, work_s, restart_s);
  const double n = std::ceil(work_s / interval_s) - 1;  // checkpointed segments
  const double last = work_s - n * interval_s;
  return n * expected_segment_s(lambda_per_s, interval_s + cost_s, restart_s) +
         expected_segment_s(lambda_per_s, last, restart_s);
}

int restore_source_stage(int x, int n_old, int n_new) {
  if (n_old == n_new) return x;
  return static_cast<int>(static_cast<long long>(x) * n_old / n_new);
}

double restore_shard_bytes(double stage_params, double bytes_per_param, int replicas) {
  return stage_params * bytes_per_param / replicas;
}

}  // namespace geopipe
