// Pipeline schedules: the order in which each stage runs the forward and backward passes of an
// iteration's micro-batches, and everything that order decides (docs/model.md, "Pipeline
// schedules"). The one seam through which the engine, the schedulers' estimates, the
// pathfinder's bounds, the memory check and the generator's stage count see a schedule.
//
// Timing model shared by every schedule: stage i holds forward time f_i and backward time b_i
// per micro-batch and runs one operation at a time, in its schedule's order, each as soon as
// the stage is free and its input has arrived (a forward needs the activation from stage i−1,
// stage 0 has all its inputs at t = 0; a backward needs the gradient from stage i+1, the last
// stage its own forward). Hop i joins stages i and i+1; activations cross it in the forward
// direction, gradients in the backward one. A link direction serialises transfers: a transfer
// occupies it for A/B, then arrives λ later. The iteration time runs from t = 0 to the end of
// the last backward on stage 0, plus the optimizer constant. Infinite bandwidth
// (std::numeric_limits<double>::infinity()) and zero latency are allowed.
//
// Adding a schedule (interleaved, zero-bubble, ...): one class implementing PipelineSchedule,
// one entry in the table of model/pipeline_schedule.cpp, and its tests against the
// discrete-event reference of tests/unit/test_pipeline_schedules.cpp (docs/design.md,
// "Extension points").
//
// Thread safety: schedules are immutable singletons; iteration_time() uses only the caller's
// scratch, so one schedule serves every thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace geopipe {

/// The inputs of one iteration's exact timing. Spans are borrowed for the call only.
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
  /// Output, optional: when not empty (size S), iteration_time() writes into it when each
  /// stage's last backward ends (from t = 0, without the optimizer step): where a
  /// data-parallel job's all-reduce of that stage's gradients starts (model/data_parallel.h).
  /// Empty (the default): nothing is written.
  std::span<double> stage_end_s;
};

/// Reusable buffers so hot callers do not allocate (one per thread; any schedule may use it).
struct PipelineScratch {
  std::vector<double> done, arrive, last_fwd;
  std::vector<double> stage_free, fwd_link_free, bwd_link_free;
  std::vector<int> next_op, fwd_arrived, bwd_arrived, worklist;
  std::vector<unsigned char> blocked;
};

/// The schedules geopipe knows, in the order of the registry (model/pipeline_schedule.cpp).
enum class PipelineScheduleKind : std::uint8_t {
  kGPipe,     ///< "gpipe": all forwards, then all backwards (the default)
  kOneFOneB,  ///< "1f1b": PipeDream-flush / Megatron's default
};

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;

  virtual PipelineScheduleKind kind() const = 0;
  /// The scenario key's value (`sim.pipeline_schedule`), e.g. "gpipe".
  virtual std::string_view name() const = 0;
  /// One line for `geopipe list` and the docs.
  virtual std::string_view description() const = 0;

  /// Exact iteration time (the timing model above), seconds. O(S·m) time.
  virtual double iteration_time(const PipelineInput& in, PipelineScratch& scratch) const = 0;

  /// Compute-only iteration time (infinite bandwidth, zero latency) of stages with forward
  /// times `fwd_s` and backward times backward_time(f_i, bwd_per_fwd[i]) (model/job.h; both
  /// spans of size S), plus `optimizer_step_s`. Used for the generator's run lengths and the
  /// dynamic priority's R̂.
  virtual double compute_only_time(std::span<const double> fwd_s, std::span<const double> bwd_per_fwd,
                                   int micro_batches, double optimizer_step_s, PipelineScratch& scratch) const = 0;

  /// Micro-batches whose activations stage `stage` (0-based) of `stages` holds at its peak:
  /// the activation term of the memory check (model/job.h, JobProfile::memory_bytes). In 1..m.
  virtual int stashed_micro_batches(int stage, int stages, int micro_batches) const = 0;

  /// The schedulers' closed-form estimate (sched/estimate.h) weighs the bottleneck term
  /// max(max_i u_i, max_h c_h) by this factor and adds the fill term Σ u_i + Σ (c_h + 2λ_h):
  ///   T_est = bottleneck_weight(m)·bottleneck + fill + optimizer_step.
  /// The pathfinder's bounds are admissible for any weight >= 0 (the estimate is then
  /// non-decreasing in both terms). GPipe and 1F1B: m − 1 (the same bubble).
  virtual double bottleneck_weight(int micro_batches) const = 0;
};

/// The schedule of a kind (a static singleton).
const PipelineSchedule& pipeline_schedule(PipelineScheduleKind kind);
/// The schedule named `name` (exact match), or nullptr.
const PipelineSchedule* find_pipeline_schedule(std::string_view name);
/// Every schedule's name, in registry order.
std::vector<std::string> pipeline_schedule_names();

}  // namespace geopipe
