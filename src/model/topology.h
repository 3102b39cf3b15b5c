// Regions, inter-region links and electricity prices (docs/model.md, "Topology").
//
// Invariants (established by the config loader, assumed by the core):
//  * region names are unique; every region's gpu_type indexes Topology::gpu_types;
//  * link(a, b) describes direction a -> b; a missing link has capacity 0 and means the two
//    regions cannot be adjacent in a pipeline;
//  * all capacities are bytes/s and latencies seconds (one way).
#pragma once

#include <array>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/gpu.h"
#include "model/step_series.h"
#include "model/units.h"

namespace geopipe {

/// Electricity price of one region: flat, 24 hourly values indexed by the region's local
/// hour, or a measured series (model/step_series.h, in $/kWh over simulation time). Simulation
/// time 0 is 00:00 UTC; local hour = UTC hour + utc_offset_h.
class PriceProfile {
 public:
  PriceProfile() { hourly_usd_per_kwh_.fill(0.0); }
  static PriceProfile flat(double usd_per_kwh);
  /// `local_hourly[k]` is the price during local hour k (k = 0..23).
  static PriceProfile hourly(const std::array<double, 24>& local_hourly, double utc_offset_h);
  /// The series' value ($/kWh) at each simulation time (not null).
  static PriceProfile series(std::shared_ptr<const StepSeries> usd_per_kwh);

  bool is_flat() const { return flat_; }
  /// The series of a series profile, else null.
  const StepSeries* step_series() const { return series_.get(); }
  /// Price ($/kWh) in force at simulation time t_s (>= 0).
  double usd_per_kwh_at(double t_s) const;
  /// ∫_0^t price(τ) dτ in ($/kWh)·s. Exact for the piecewise-constant profile; used to
  /// integrate cost over a job's run (sim/energy.h: cost = P_watts · (Π(t1) − Π(t0)) / 3.6e6).
  double integral(double t_s) const;
  /// Mean price over [t0, t1] ($/kWh); the price at t0 if t1 <= t0.
  double mean_usd_per_kwh(double t0_s, double t1_s) const;
  /// Earliest time > t_s at which the price may change (+inf for a flat profile).
  double next_change_after(double t_s) const;

 private:
  bool flat_ = true;
  double utc_offset_s_ = 0;
  std::array<double, 24> hourly_usd_per_kwh_;  ///< by local hour; all equal when flat
  std::array<double, 25> prefix_{};            ///< prefix_[k] = ∫ over UTC-aligned hours [0,k)
  double day_integral_ = 0;
  std::shared_ptr<const StepSeries> series_;   ///< series profiles only
  void build_prefix();
};

/// Default storage write bandwidth of a region for checkpoints (`[[cluster.region]]
/// checkpoint_gbps`; model/faults.h), Gbit/s.
inline constexpr double kDefaultCheckpointGbps = 100.0;

struct Region {
  std::string name;
  int gpu_type = 0;              ///< index into Topology::gpu_types
  int gpu_count = 0;             ///< GPUs available for training
  PriceProfile price;            ///< electricity price
  double utc_offset_h = 0;       ///< local time offset (informative; already in `price`)
  double pue = 1.0;              ///< power usage effectiveness (>= 1)
  double carbon_g_per_kwh = 0;   ///< optional grid carbon intensity (0 = unknown)
  /// Measured carbon intensity (g/kWh over simulation time) in place of carbon_g_per_kwh;
  /// null = the constant. Shared, immutable.
  std::shared_ptr<const StepSeries> carbon_series;
  /// ∫ of the measured carbon intensity over [t0, t1], (g/kWh)·s, exact for its steps; requires
  /// carbon_series (the engine's carbon of a job, wait-awhile's carbon signal).
  double carbon_series_integral(double t0_s, double t1_s) const {
    return carbon_series->integral(t1_s) - carbon_series->integral(t0_s);
  }
  /// Mean carbon intensity over [t0, t1], g/kWh: the series' (its value at t0 if t1 <= t0), else
  /// the constant carbon_g_per_kwh.
  double mean_carbon_g_per_kwh(double t0_s, double t1_s) const {
    if (!carbon_series) return carbon_g_per_kwh;
    if (!(t1_s > t0_s)) return carbon_series->value_at(t0_s);
    return carbon_series_integral(t0_s, t1_s) / (t1_s - t0_s);
  }
  /// Mean time between job-killing failures of one of its GPUs, s (`gpu_mtbf_h` of the region
  /// or of [faults]; +inf = never; model/faults.h).
  double gpu_mtbf_s = std::numeric_limits<double>::infinity();
  /// Spot capacity (`spot_mtbp_h`; model/faults.h): mean time between preemptions of one of its
  /// GPUs, s; +inf = on-demand capacity, never preempted. Its price already carries the spot
  /// discount (`spot_price_factor`, applied by the config loader).
  double spot_mtbp_s = std::numeric_limits<double>::infinity();
  /// Spot capacity as a measured availability series (`gpus_series`; docs/model.md,
  /// "Failures and checkpoints"): the GPUs it has at each time, whole numbers in [0, gpu_count] (after
  /// cluster.capacity_scale); null = gpu_count always. gpu_count stays what the static uses see
  /// (load-time feasibility, the idle cluster); the engine evicts jobs when the series falls
  /// below what they hold. Shared, immutable.
  std::shared_ptr<const StepSeries> gpus_series;
  /// Spot capacity: preempted at a rate, or by a measured availability series.
  bool spot() const { return spot_mtbp_s < std::numeric_limits<double>::infinity() || gpus_series != nullptr; }
  /// Storage write bandwidth for checkpoints, bytes/s (`checkpoint_gbps`; model/faults.h).
  double checkpoint_bytes_per_s = units::gbps_to_bytes_per_s(kDefaultCheckpointGbps);
};

struct Link {
  double capacity_bytes_per_s = 0;  ///< per direction; 0 = no link
  double latency_s = 0;             ///< one way
  double egress_usd_per_byte = 0;   ///< traffic price billed to this (sending) direction, >= 0
  /// Measured capacity (bytes/s over simulation time; 0 = an outage) in place of the constant;
  /// null = constant. With a series, capacity_bytes_per_s is its maximum: what the static
  /// uses see (connectivity, load-time feasibility, the idle cluster of the relaxations),
  /// while the simulator and the schedulers' views follow the series. Shared, immutable.
  std::shared_ptr<const StepSeries> capacity_series;
};

struct Topology {
  std::vector<GpuType> gpu_types;
  std::vector<Region> regions;
  /// links[a * n + b]: direction a -> b. Diagonal entries unused (see intra_*).
  std::vector<Link> links;
  /// Defaults in the scenario file's units (network.intra_bandwidth_gbps / intra_latency_ms).
  static constexpr double kDefaultIntraBandwidthGbps = 100;
  static constexpr double kDefaultIntraLatencyMs = 0.01;
  /// same-region hops (not contended)
  double intra_bandwidth_bytes_per_s = units::gbps_to_bytes_per_s(kDefaultIntraBandwidthGbps);
  double intra_latency_s = units::ms_to_s(kDefaultIntraLatencyMs);  ///< same-region hops, one way

  int num_regions() const { return static_cast<int>(regions.size()); }
  const Link& link(int from, int to) const { return links[static_cast<size_t>(from * num_regions() + to)]; }
  Link& link(int from, int to) { return links[static_cast<size_t>(from * num_regions() + to)]; }
  bool connected(int a, int b) const {
    return a == b || (link(a, b).capacity_bytes_per_s > 0 && link(b, a).capacity_bytes_per_s > 0);
  }
  const GpuType& gpu_of(int region) const { return gpu_types[static_cast<size_t>(regions[static_cast<size_t>(region)].gpu_type)]; }
  int total_gpus() const;
  int find_region(const std::string& name) const;  ///< index or -1
  /// Resize `links` to n×n zero links (call after filling `regions`).
  void reset_links();
};

}  // namespace geopipe
