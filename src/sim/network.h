// Inter-region link state: the flows on every link direction, their max-min allocations and
// their transfer rates (docs/model.md, "Network sharing").
//
// Capacities start as the topology's (a link with a capacity series: its value at time 0) and
// change with set_capacity(). A flow is one cross-region hop of a running job in one direction, with its stall-free demand
// β = A / min(f_i, f_{i+1}) (model/job.h stall_free_demand_bytes_per_s). Its *allocation* is its
// max-min fair share with demand caps: what the link reserves for it, so the residual (capacity
// − Σ allocations) is what a new flow can count on. Its *rate*, the bandwidth its transfers run
// at, is work-conserving as TCP and NCCL are: its allocation plus an equal share of what the
// allocations leave unused, rate_k = alloc_k + (capacity − Σ alloc) / n (a flow alone on a link
// runs at the link's capacity; on a saturated link rate = allocation). Adding or removing flows
// marks their link dirty; rebalance() re-runs water-filling on dirty links only and reports the
// owner jobs of flows whose rate changed (bitwise), so the engine recomputes T_iter just for those.
#pragma once

#include <cstdint>
#include <vector>

#include "model/topology.h"

namespace geopipe {

class NetworkState {
 public:
  using FlowId = int;

  explicit NetworkState(const Topology& topo);

  /// New flow on direction from -> to (from != to, connected). Its allocation is 0 until the
  /// next rebalance().
  FlowId add_flow(int from, int to, double demand_bytes_per_s, int owner_job);
  void remove_flow(FlowId id);
  /// New capacity of direction from -> to (a time-varying link; 0 = an outage: its flows get
  /// nothing). Takes effect, like flow changes, at the next rebalance().
  void set_capacity(int from, int to, double capacity_bytes_per_s);

  /// Recomputes dirty links; appends the owners of flows whose rate changed to
  /// `changed_owners` (sorted, without duplicates, merged with what it held).
  void rebalance(std::vector<int>& changed_owners);

  double allocation(FlowId id) const { return flows_[static_cast<size_t>(id)].alloc; }
  /// The bandwidth the flow's transfers run at: allocation + the link's unallocated capacity / its flows.
  double rate(FlowId id) const { return flows_[static_cast<size_t>(id)].rate; }
  double capacity(int from, int to) const { return capacity_[index(from, to)]; }
  /// Capacity minus the sum of current allocations on from -> to (>= 0).
  double residual(int from, int to) const { return residual_[index(from, to)]; }
  /// Capacity of every direction, row-major R×R (diagonal: +inf).
  const std::vector<double>& capacities() const { return capacity_; }
  /// Residual of every direction, row-major R×R (diagonal: +inf).
  const std::vector<double>& residuals() const { return residual_; }
  int num_flows() const { return live_flows_; }

 private:
  struct Flow {
    int link = -1;  ///< from * R + to; -1 = free slot
    int owner = -1;
    double demand = 0;
    double alloc = 0;
    double rate = 0;
  };
  size_t index(int from, int to) const { return static_cast<size_t>(from * regions_ + to); }

  int regions_;
  std::vector<double> capacity_;
  std::vector<double> residual_;
  std::vector<std::vector<FlowId>> members_;  ///< flows per link direction
  std::vector<char> dirty_;
  std::vector<int> dirty_list_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_ids_;
  int live_flows_ = 0;
  // scratch
  std::vector<double> demand_buf_, alloc_buf_;
  std::vector<size_t> order_buf_;
};

}  // namespace geopipe
