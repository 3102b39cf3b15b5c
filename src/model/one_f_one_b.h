// 1F1B, "one forward, one backward" (PipeDream-flush; Megatron-LM's default; docs/model.md,
// "Pipeline schedules"). Stage i (0-based) of S runs w_i = min(S−1−i, m) warm-up forwards, then
// alternates one forward and one backward until its m forwards are done, then drains its
// remaining w_i backwards:
//   F_0 .. F_{w−1},  F_w B_0,  F_{w+1} B_1,  ...,  F_{m−1} B_{m−1−w},  B_{m−w} .. B_{m−1}.
// It has GPipe's bubble but stashes at most min(m, S − i) micro-batches' activations on stage i.
#pragma once

#include "model/pipeline_schedule.h"

namespace geopipe {

class OneFOneBSchedule final : public PipelineSchedule {
 public:
  PipelineScheduleKind kind() const override { return PipelineScheduleKind::kOneFOneB; }
  std::string_view name() const override { return "1f1b"; }
  std::string_view description() const override {
    return "1F1B (PipeDream-flush): warm-up forwards, one forward one backward, drain; stage i stashes min(m, S - i)";
  }
  double iteration_time(const PipelineInput& in, PipelineScratch& scratch) const override;
  /// iteration_time() with infinite bandwidth and zero latency.
  double compute_only_time(std::span<const double> fwd_s, std::span<const double> bwd_per_fwd, int micro_batches,
                           double optimizer_step_s, PipelineScratch& scratch) const override;
  int stashed_micro_batches(int stage, int stages, int micro_batches) const override;
  double bottleneck_weight(int micro_batches) const override { return micro_batches - 1; }
};

/// The 1F1B timing, computed operation by operation in dependency order (each of the 2·S·m
/// operations once, a stage resumed when the input it waits for arrives): O(S·m) time,
/// O(S·min(m, S)) memory (the activations and gradients in flight towards each stage).
double one_f_one_b_iteration_time(const PipelineInput& in, PipelineScratch& scratch);

}  // namespace geopipe
