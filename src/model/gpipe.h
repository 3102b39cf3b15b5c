// GPipe (docs/model.md, "Pipeline schedules"): every stage runs the m forwards of an iteration,
// then its m backwards (a flush). Activations of all m micro-batches are stashed.
#pragma once

#include "model/pipeline_schedule.h"

namespace geopipe {

class GPipeSchedule final : public PipelineSchedule {
 public:
  PipelineScheduleKind kind() const override { return PipelineScheduleKind::kGPipe; }
  std::string_view name() const override { return "gpipe"; }
  std::string_view description() const override {
    return "GPipe: all forwards, then all backwards; every stage stashes m micro-batches";
  }
  double iteration_time(const PipelineInput& in, PipelineScratch& scratch) const override;
  /// The closed form (m−1)·(max_i f_i + max_i b_i) + Σ_i u_i (b_i = backward_time(f_i, ρ_i),
  /// u_i = f_i + b_i) plus the optimizer step, which the recurrence reaches exactly without
  /// communication; (m−1)·max_i u_i + Σ_i u_i when every stage has the same ratio ρ.
  double compute_only_time(std::span<const double> fwd_s, std::span<const double> bwd_per_fwd, int micro_batches,
                           double optimizer_step_s, PipelineScratch& scratch) const override;
  int stashed_micro_batches(int, int, int micro_batches) const override { return micro_batches; }
  double bottleneck_weight(int micro_batches) const override { return micro_batches - 1; }
};

/// The GPipe recurrence: O(S·m) time, O(m + S) memory. Evaluated two stages at a time (a
/// wavefront over the micro-batches), with the same operations and so the same numbers as stage
/// by stage. Equal stages, infinite bandwidth, zero latency give exactly (m + S − 1)(f + b).
double gpipe_iteration_time(const PipelineInput& in, PipelineScratch& scratch);
double gpipe_iteration_time(const PipelineInput& in);

}  // namespace geopipe
