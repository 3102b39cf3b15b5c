// Training jobs, their placement-independent profile and per-stage compute times
// (docs/model.md, "Jobs").
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/gpu.h"
#include "model/llm.h"
#include "model/pipeline_schedule.h"
#include "model/topology.h"

namespace geopipe {

/// How a job's layers are split into its stages' contiguous blocks (`sim.layer_partition`).
enum class LayerPartition : std::uint8_t {
  kEven,      ///< "even": as evenly as possible, earlier stages take the remainder (the default)
  kBalanced,  ///< "balanced": per placement, least bottleneck stage time within memory (balanced_layers)
};

/// Activation recomputation (`sim.recompute`, docs/model.md, "Compute and recomputation"):
/// what a stage's backward pass runs again, and so what a stashed micro-batch keeps.
enum class Recompute : std::uint8_t {
  kFull,  ///< "full" (the default): every layer's forward runs again in the backward pass; a
          ///< stashed micro-batch keeps each layer's input, b·s·h elements per layer
  kNone,  ///< "none": nothing runs again; a stashed micro-batch keeps 17·b·s·h elements per layer
};

/// Elements a stashed micro-batch keeps per layer, in units of b·s·h (Korthikanti et al. 2022):
/// the layer's input under full recomputation; without it every activation a layer's backward
/// reads, 34·s·b·h bytes at 2 bytes per element (no attention-score term: fused attention
/// kernels keep O(s) statistics, not the s² scores).
inline constexpr double kStashedElementsFull = 1.0;
inline constexpr double kStashedElementsNone = 17.0;

/// How the D data-parallel replicas of a job synchronise (`sim.dp_sync`, docs/model.md,
/// "Data parallelism").
enum class DpSync : std::uint8_t {
  kAllReduce,  ///< "allreduce" (the default): every iteration, each stage's gradients among its replicas
  kDiLoCo,     ///< "diloco": every diloco_interval inner steps, the whole model's pseudo-gradient (blocking)
};

/// The collective of a synchronisation (`sim.allreduce`, docs/model.md, "Data parallelism").
enum class AllReduceKind : std::uint8_t {
  kRing,          ///< "ring" (the default): one ring over the replicas, grouped by region
  kHierarchical,  ///< "hierarchical": reduce inside each region, ring across regions, broadcast inside
};

/// How fast the hardware runs the model (scenario keys under [sim]).
struct ComputeOptions {
  /// Fraction of peak at which every GPU type executes every job's FLOPs (`sim.mfu`), in
  /// (0, 1], overriding each GPU type's calibrated efficiency (GpuType::mfu_max,
  /// mfu_half_hidden). Unset (the default): each GPU type's own efficiency for the job's width.
  std::optional<double> mfu;
  double tp_efficiency = 0.9;     ///< speed factor of a g-GPU tensor-parallel stage when g > 1
  double optimizer_step_s = 0.0;  ///< constant added to every iteration (optimizer step), s
  /// What the backward pass recomputes (`sim.recompute`): compute time and activation memory.
  Recompute recompute = Recompute::kFull;
  /// Order of each stage's forwards and backwards (`sim.pipeline_schedule`): timing, memory,
  /// estimates (model/pipeline_schedule.h).
  PipelineScheduleKind pipeline_schedule = PipelineScheduleKind::kGPipe;
  /// Layer split of every job (`sim.layer_partition`).
  LayerPartition layer_partition = LayerPartition::kEven;
  /// Data parallelism (docs/model.md, "Data parallelism"); no effect on a job of one replica.
  DpSync dp_sync = DpSync::kAllReduce;             ///< `sim.dp_sync`
  AllReduceKind allreduce = AllReduceKind::kRing;  ///< `sim.allreduce`
  /// Bytes synchronised per parameter (`sim.sync_bytes_per_param`, > 0): 2 for bf16/fp16
  /// gradients (the default), 1 for int8 pseudo-gradients (INTELLECT-1), 4 for fp32.
  double sync_bytes_per_param = 2.0;
  /// H, inner steps between two DiLoCo synchronisations (`sim.diloco_interval`, >= 1; the
  /// default 100 is INTELLECT-1's).
  std::int64_t diloco_interval = 100;

  const PipelineSchedule& schedule() const { return geopipe::pipeline_schedule(pipeline_schedule); }
};

/// Most iterations a job may have (a trace's `iterations`, the generator's longest job): keeps a
/// job's work, energy and cost finite and I exact in its integer (docs/limits.md).
inline constexpr double kMaxJobIterations = 1e15;
/// Most data-parallel replicas of one job (a trace's `data_parallel`, a mix entry's).
inline constexpr int kMaxDataParallel = 4096;
/// Latest arrival of a job (a trace's `arrival_s`; the span of generated arrivals), s.
inline constexpr double kMaxArrivalSpanS = 1e12;
/// Longest slack of a job (a trace's `slack_s`, a mix entry's), s: the config's bound of every
/// duration key (kMaxSeconds of config/schema.cpp, 1e6 s ≈ 11.6 days).
inline constexpr double kMaxSlackS = 1e6;
/// Most pipeline cells D·S·m of one job (replicas × stages × micro-batches): the exact iteration time
/// (model/pipeline_schedule.h) costs about 6 ns per cell and is evaluated at every start and every change
/// of the job's bandwidth, so a job beyond this would make a run take minutes per event
/// (docs/limits.md). The config loader refuses larger jobs.
inline constexpr std::int64_t kMaxPipelineCells = std::int64_t{1} << 22;

/// One pipeline-parallel training job. Immutable once generated.
struct Job {
  int id = 0;                   ///< 0..n-1, index in the scenario's job list (ties broken by id)
  double arrival_s = 0;         ///< submission time
  int model = 0;                ///< index into the scenario's LLM catalogue
  int stages = 1;               ///< S, pipeline stages (each on g GPUs of one region)
  int micro_batch_size = 1;     ///< b, sequences per micro-batch
  int micro_batches = 8;        ///< m, micro-batches per iteration
  std::int64_t iterations = 1;  ///< I, training iterations to run
  int gpus_per_stage = 1;       ///< g, tensor-parallel width of a stage (inside one region)
  /// D, data-parallel replicas of the pipeline, each S stages of g GPUs (docs/model.md,
  /// "Data parallelism"): an iteration trains D·m·b sequences. 1 = one pipeline (models 1-4).
  /// 0 = flexible: the scheduler chooses D (model/flexible_job.h); `stages` is then the job's
  /// GPU count in slots of g GPUs and `micro_batches` its global batch in micro-batches.
  int data_parallel = 1;
  /// How long the job may be deferred past its arrival, s (>= 0, at most kMaxSlackS; default 0:
  /// start as soon as possible). Only the wait-awhile preset reads it (sched/wait_awhile.h): it
  /// may hold the job until arrival_s + slack_s for a cheaper or cleaner start.
  double slack_s = 0;

  int total_gpus() const { return std::max(data_parallel, 1) * stages * gpus_per_stage; }
};

/// Placement-independent quantities of a job. Per-stage compute *times* depend on the GPU
/// type of the region a stage lands in: f_i(r) = fwd_flops[i] / stage_speed(gpu_r).
struct JobProfile {
  int stages = 0;                    ///< S of one replica
  int data_parallel = 1;             ///< D (Job::data_parallel): the placement has D·S stages
  int micro_batches = 0;
  int gpus_per_stage = 1;
  double iterations = 0;
  std::vector<int> layers;           ///< l_i, layers split as evenly as possible (earlier stages get the extra)
  std::vector<double> fwd_flops;     ///< forward FLOP per micro-batch on stage i (LM head on the last)
  /// b_i / f_i of stage i: 2 (activation and weight gradients), plus, under full
  /// recomputation, its layers' share of its forward FLOP (the LM head is not recomputed):
  /// 3 on a stage without the head. Its backward time is this times its forward time.
  std::vector<double> bwd_per_fwd;
  std::vector<double> params;        ///< parameters held by stage i (embedding on first, the head's on last)
  std::vector<double> memory_bytes;  ///< 16·params_i + k_i·e·b·s·h·l_i·bytes (whole stage, all g GPUs), k_i = the schedule's stashed micro-batches, e = stashed_elements
  double activation_bytes = 0;       ///< A = b·s·h·bytes, per micro-batch per hop, each direction

  // What re-splitting the layers needs (with_layers, balanced_layers):
  int total_layers = 0;              ///< L
  double layer_flops = 0;            ///< forward FLOP of one layer per micro-batch
  double head_flops = 0;             ///< forward FLOP of the LM head (last stage; 0 for a classification head)
  double layer_params = 0;           ///< parameters of one layer
  double embedding_params = 0;       ///< input embedding (first stage)
  double head_params = 0;            ///< LM head (last stage; = embedding_params, or 0 for a classification head)
  /// b, s, h and bytes per element: a stashed micro-batch holds b·s·h·bytes per layer (kept
  /// apart so that the memory is multiplied in make_profile's order, bit for bit)
  double micro_batch_size = 0, seq_len = 0, hidden = 0, bytes_per_elem = 0;
  std::vector<int> stashed;          ///< micro-batches stage i stashes (the pipeline schedule's)
  double stashed_elements = kStashedElementsFull;  ///< e: elements per b·s·h a stashed micro-batch keeps per layer
  bool recompute = true;             ///< full recomputation (ComputeOptions::recompute)

  /// Does stage i fit on g GPUs of this type?
  bool stage_fits(int i, const GpuType& gpu) const {
    return memory_bytes[static_cast<size_t>(i)] <= gpus_per_stage * gpu.memory_bytes;
  }
};

/// Shape index of every job: jobs of equal (model, stages, micro_batch_size, micro_batches,
/// gpus_per_stage, data_parallel) share one index (0, 1, ... in order of first appearance), and their profiles
/// differ only in `iterations`. Writes the number of shapes to `count`.
std::vector<int> job_shapes(const std::vector<Job>& jobs, int& count);

/// Builds the profile with the even layer split (whatever opt.layer_partition says: it is the
/// placement-independent profile); memory follows `opt`'s pipeline schedule. Requires
/// 1 <= job.stages <= llm.layers.
JobProfile make_profile(const Job& job, const LlmSpec& llm, const ComputeOptions& opt);

/// `p` with its layers split as `layers` (size S, each >= 1, sum L): per-stage FLOP, parameters
/// and memory recomputed exactly as make_profile does for its split.
JobProfile with_layers(const JobProfile& p, const std::vector<int>& layers);
/// with_layers() in place.
void set_layers(JobProfile& p, std::vector<int> layers);

/// The balanced split for stages on these GPU types (stage i on *stage_gpu[i], size S): every
/// stage gets >= 1 layer and fits g GPUs of its type, and the largest stage time
/// u_i = compute_time(forward FLOP_i / stage_speed) is the least possible. Built greedily: one
/// layer per stage, then each further layer to the stage whose time with it would be smallest
/// among those it fits (ties: the lowest stage index), which is optimal for a bottleneck of
/// nondecreasing per-stage times (docs/model.md, "Layer partitions"). Empty if no split fits.
std::vector<int> balanced_layers(const JobProfile& p, std::span<const GpuType* const> stage_gpu,
                                 const ComputeOptions& opt);

/// The profile a job runs with on stages of these GPU types under opt.layer_partition: `p`
/// itself for the even split; with_layers(p, balanced_layers(...)) for the balanced one, or `p`
/// when no balanced split fits (then the even one does not either, or it is returned as is).
JobProfile placed_profile(const JobProfile& p, std::span<const GpuType* const> stage_gpu, const ComputeOptions& opt);
/// placed_profile() for stage i in region stage_region[i] of `topo` (indices valid).
JobProfile placed_profile(const JobProfile& p, const std::vector<int>& stage_region, const Topology& topo,
                          const ComputeOptions& opt);

/// Fraction of its peak at which `gpu` executes the FLOPs of a job of hidden size `hidden` and
/// sequence length `seq_len` (docs/model.md, "Compute and recomputation"): opt.mfu when the
/// scenario sets it; else the width curve m = mfu_max · h / (h + mfu_half_hidden) (mfu_max itself
/// when mfu_half_hidden is 0) when the type has no attention efficiency of its own; else the
/// FLOP-weighted harmonic mean of m for a layer's 24·h² matrix-product FLOP per token and
/// mfu_attention for its 4·s·h attention FLOP: (6h + s) / (6h / m + s / mfu_attention).
double gpu_efficiency(const GpuType& gpu, double hidden, double seq_len, const ComputeOptions& opt);

/// Achieved FLOP/s of one stage of `p` on g = p.gpus_per_stage GPUs of this type:
/// g · peak · gpu_efficiency(gpu, p.hidden, p.seq_len) · (g > 1 ? tp_efficiency : 1).
double stage_speed(const JobProfile& p, const GpuType& gpu, const ComputeOptions& opt);

/// Backward time b of a stage whose forward time is `fwd_s` and whose backward runs
/// `bwd_per_fwd` times its forward FLOP (JobProfile::bwd_per_fwd), seconds per micro-batch.
constexpr double backward_time(double fwd_s, double bwd_per_fwd) { return bwd_per_fwd * fwd_s; }
/// Forward plus backward time u = f + b of one micro-batch on a stage: fwd_s + backward_time(...),
/// the one expression every part of geopipe uses (the simulator, estimates, pathfinder, energy).
constexpr double compute_time(double fwd_s, double bwd_per_fwd) { return fwd_s + backward_time(fwd_s, bwd_per_fwd); }

/// Forward time of `flops` at `flops_per_s` (a stage_speed()), seconds per micro-batch.
constexpr double forward_time(double flops, double flops_per_s) { return flops / flops_per_s; }
/// Forward compute time of stage i on this GPU type, seconds per micro-batch.
inline double forward_time(const JobProfile& p, int i, const GpuType& gpu, const ComputeOptions& opt) {
  return forward_time(p.fwd_flops[static_cast<size_t>(i)], stage_speed(p, gpu, opt));
}
/// Forward plus backward time of stage i on this GPU type, seconds per micro-batch.
inline double unit_time(const JobProfile& p, int i, const GpuType& gpu, const ComputeOptions& opt) {
  return compute_time(forward_time(p, i, gpu, opt), p.bwd_per_fwd[static_cast<size_t>(i)]);
}

/// Stall-free demand β of the hop between two consecutive stages with forward times f_a and
/// f_b: the bandwidth at which one activation (A bytes) crosses within the faster stage's
/// forward time, so transfers never make the pipeline wait: β = A / min(f_a, f_b), bytes/s.
constexpr double stall_free_demand_bytes_per_s(double activation_bytes, double fwd_a_s, double fwd_b_s) {
  return activation_bytes / std::min(fwd_a_s, fwd_b_s);
}

/// Smallest S (1..L) such that every stage fits in g GPUs of `memory_bytes` each under `opt`'s
/// pipeline schedule, or 0 if none does.
int min_feasible_stages(const LlmSpec& llm, int micro_batch_size, int micro_batches,
                        int gpus_per_stage, double gpu_memory_bytes, const ComputeOptions& opt);

/// Compute-only iteration time (infinite bandwidth, zero latency) with every stage on the same
/// GPU type, under `opt`'s pipeline schedule (PipelineSchedule::compute_only_time; for GPipe
/// the closed form (m−1)·max_i u_i + Σ_i u_i with u_i = compute_time(f_i, ρ_i)), plus the
/// optimizer step.
double ideal_iteration_time(const JobProfile& p, const GpuType& gpu, const ComputeOptions& opt);

/// The compute-only ideal iteration time of `p` (ideal_iteration_time, model/job.h) on the
/// fastest GPU type present (regions with GPUs), and the first region of that type: the
/// per-iteration figure of the dynamic priority's R̂, of the oracle job sizes of sjf and srtf
/// and of the isolated JCT of the fairness metrics (docs/model.md, "Dynamic priority",
/// "Literature baselines", "Fairness").
struct FastestIdeal {
  double iteration_s = 0;
  int region = 0;
};
FastestIdeal fastest_ideal_iteration(const JobProfile& p, const Topology& topo, const ComputeOptions& opt);

}  // namespace geopipe
