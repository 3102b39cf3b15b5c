// Exact GPipe iteration time with serialised links (docs/model.md, "Pipeline timing").
//
// Stage i holds forward time f_i and backward time b_i per micro-batch. Hop i joins stage i
// and i+1; forward activations use the hop's forward bandwidth, gradients the backward one.
// A link serialises transfers: a transfer occupies it for A/B, then arrives λ later.
// Infinite bandwidth (std::numeric_limits<double>::infinity()) and zero latency are allowed.
#pragma once

#include <span>
#include <vector>

namespace geopipe {

struct PipelineInput {
  int micro_batches = 1;                    ///< m >= 1
  std::span<const double> fwd_s;            ///< f_i, size S >= 1, seconds per micro-batch
  std::span<const double> bwd_s;            ///< b_i, size S
  std::span<const double> hop_fwd_bytes_per_s;  ///< size S−1: bandwidth i -> i+1 (> 0)
  std::span<const double> hop_bwd_bytes_per_s;  ///< size S−1: bandwidth i+1 -> i (> 0)
  std::span<const double> hop_latency_s;    ///< size S−1: one-way latency of hop i (>= 0), i -> i+1
  std::span<const double> hop_bwd_latency_s;  ///< size S−1, latency i+1 -> i; empty = same as forward
  double activation_bytes = 0;              ///< A, bytes per micro-batch per hop
  double optimizer_step_s = 0;              ///< constant added at the end of the iteration
};

/// Reusable buffers so hot callers do not allocate (one per thread).
struct PipelineScratch {
  std::vector<double> done, arrive, last_fwd;
};

/// Time from the first forward on stage 0 to the last backward on stage 0, plus the optimizer
/// constant. O(S·m) time, O(m + S) memory. Equal stages, infinite bandwidth, zero latency give
/// exactly (m + S − 1)(f + b).
double gpipe_iteration_time(const PipelineInput& in, PipelineScratch& scratch);
double gpipe_iteration_time(const PipelineInput& in);

}  // namespace geopipe
