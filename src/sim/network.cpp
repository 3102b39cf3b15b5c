#include "sim/network.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "sim/maxmin.h"

namespace geopipe {

NetworkState::NetworkState(const Topology& topo) : regions_(topo.num_regions()) {
  const auto n = static_cast<size_t>(regions_ * regions_);
  capacity_.assign(n, 0.0);
  residual_.assign(n, 0.0);
  members_.resize(n);
  dirty_.assign(n, 0);
  for (int a = 0; a < regions_; ++a)
    for (int b = 0; b < regions_; ++b) {
      // A link with a capacity series starts at the series' value at time 0.
      const Link& ln = topo.link(a, b);
      const double c = a == b                ? std::numeric_limits<double>::infinity()
                       : ln.capacity_series ? ln.capacity_series->value_at(0.0)
                                            : ln.capacity_bytes_per_s;
      capacity_[index(a, b)] = c;
      residual_[index(a, b)] = c;
    }
}

NetworkState::FlowId NetworkState::add_flow(int from, int to, double demand, int owner) {
  assert(from != to);
  FlowId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  const auto l = static_cast<int>(index(from, to));
  flows_[static_cast<size_t>(id)] = Flow{l, owner, demand, 0.0, 0.0};
  members_[static_cast<size_t>(l)].push_back(id);
  if (!dirty_[static_cast<size_t>(l)]) {
    dirty_[static_cast<size_t>(l)] = 1;
    dirty_list_.push_back(l);
  }
  ++live_flows_;
  return id;
}

void NetworkState::remove_flow(FlowId id) {
  Flow& f = flows_[static_cast<size_t>(id)];
  assert(f.link >= 0);
  auto& mem = members_[static_cast<size_t>(f.link)];
  auto it = std::find(mem.begin(), mem.end(), id);
  assert(it != mem.end());
  *it = mem.back();
  mem.pop_back();
  if (!dirty_[static_cast<size_t>(f.link)]) {
    dirty_[static_cast<size_t>(f.link)] = 1;
    dirty_list_.push_back(f.link);
  }
  f.link = -1;
  f.owner = -1;
  free_ids_.push_back(id);
  --live_flows_;
}

void NetworkState::set_capacity(int from, int to, double capacity_bytes_per_s) {
  assert(from != to && capacity_bytes_per_s >= 0);
  const size_t l = index(from, to);
  capacity_[l] = capacity_bytes_per_s;
  if (!dirty_[l]) {
    dirty_[l] = 1;
    dirty_list_.push_back(static_cast<int>(l));
  }
}

void NetworkState::rebalance(std::vector<int>& changed) {
  // Process dirty links in index order so results never depend on the order of changes.
  std::sort(dirty_list_.begin(), dirty_list_.end());
  for (int l : dirty_list_) {
    const auto li = static_cast<size_t>(l);
    dirty_[li] = 0;
    auto& mem = members_[li];
    // Canonical member order (by flow id) keeps the sum below bit-identical across histories.
    std::sort(mem.begin(), mem.end());
    demand_buf_.resize(mem.size());
    alloc_buf_.resize(mem.size());
    for (size_t k = 0; k < mem.size(); ++k) demand_buf_[k] = flows_[static_cast<size_t>(mem[k])].demand;
    maxmin_share(capacity_[li], demand_buf_, alloc_buf_, order_buf_);
    double used = 0;
    for (size_t k = 0; k < mem.size(); ++k) used += alloc_buf_[k];
    residual_[li] = std::max(0.0, capacity_[li] - used);
    // Work-conserving rates: the unallocated capacity split equally among the link's flows.
    const double spare = mem.empty() ? 0.0 : residual_[li] / static_cast<double>(mem.size());
    for (size_t k = 0; k < mem.size(); ++k) {
      Flow& f = flows_[static_cast<size_t>(mem[k])];
      f.alloc = alloc_buf_[k];
      const double rate = alloc_buf_[k] + spare;
      if (f.rate != rate) {
        f.rate = rate;
        changed.push_back(f.owner);
      }
    }
  }
  dirty_list_.clear();
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
}

}  // namespace geopipe
