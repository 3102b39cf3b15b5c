// Max-min fair sharing with demand caps (progressive filling / water-filling), docs/model.md,
// "Network sharing".
//
// In geopipe every flow crosses exactly one link direction (a pipeline hop between two
// regions uses their direct link), so the network-wide max-min allocation decomposes into one
// independent water-filling per link direction. This file is that solver; sim/network.h keeps
// the per-link flow sets and re-runs it only on links whose flow set changed.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace geopipe {

/// Allocates `capacity` (>= 0) among flows with demands `demand[k]` (>= 0; +inf = uncapped).
/// Result: every flow gets min(demand, water level), the water level chosen so that the
/// capacity is used up unless every flow is satisfied. Writes alloc[k]; returns the capacity
/// left unallocated (0 when the link is saturated). Deterministic: ties by index, and the
/// result does not depend on the order of equal demands. `order` is scratch (may be empty).
double maxmin_share(double capacity, std::span<const double> demand, std::span<double> alloc,
                    std::vector<std::size_t>& order);
double maxmin_share(double capacity, std::span<const double> demand, std::span<double> alloc);

}  // namespace geopipe
