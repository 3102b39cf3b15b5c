// Failures and checkpoint-restart (docs/model.md, "Failures and checkpoints"): the scenario's
// [faults] knobs and the closed forms the simulator uses and its tests check, in SI units.
//
// A running job fails as a Poisson process of rate λ = Σ over its stages of g / MTBF of the
// stage's region (Region::gpu_mtbf_s), while it trains and while it writes a checkpoint. It
// writes a checkpoint after every τ seconds of training (not after its last segment), each
// blocking for C seconds; at a failure it loses what it did since its last completed
// checkpoint, holds no GPU for restart_s, then waits to be placed again.
#pragma once

#include <limits>
#include <optional>
#include <span>

#include "model/topology.h"

namespace geopipe {

/// Bytes per parameter a checkpoint writes by default: fp32 master weights and Adam's two fp32
/// moments (12 B). With it, MT-NLG's 530 B parameters at 20 Gbit/s take 42.4 min, GEMINI's
/// measured 42 min (docs/model.md, "Failures and checkpoints").
inline constexpr double kDefaultCheckpointBytesPerParam = 12.0;
/// Most failures one attempt of a job may expect before its next checkpoint (or its end),
/// e^{λx} − 1: beyond it the run stops with an InputError naming the job (docs/limits.md). At
/// 10^5 the run would need more than 10^5 restarts of one segment on average.
inline constexpr double kMaxExpectedFailuresPerSegment = 1e5;

/// The scenario's [faults] table (per-region MTBFs live in Region::gpu_mtbf_s).
struct FaultParams {
  /// Seconds a failed job holds no GPU before it waits to be placed again: detection and
  /// restart (`faults.restart_s`; Meta's research clusters: 5–20 min).
  double restart_s = 600.0;
  /// Seconds of training between two checkpoints (`faults.checkpoint_interval_s`): unset =
  /// "auto" (Young/Daly's sqrt(2·C·M) for the attempt's own MTBF M = 1/λ and cost C), +inf =
  /// "none" (never).
  std::optional<double> checkpoint_interval_s;
  /// Blocking seconds per checkpoint (`faults.checkpoint_cost_s`): unset = "auto" (the job's
  /// checkpoint bytes over its regions' storage bandwidth, checkpoint_cost_auto_s).
  std::optional<double> checkpoint_cost_s;
  /// Bytes per parameter a checkpoint writes (`faults.checkpoint_bytes_per_param`).
  double checkpoint_bytes_per_param = kDefaultCheckpointBytesPerParam;
  /// Seconds between a spot preemption's notice and the loss of the GPUs
  /// (`faults.preemption_notice_s`; AWS gives 2 min).
  double preemption_notice_s = 120.0;
  /// Where checkpoints are (`faults.checkpoint_storage`): false = "global" (a restart reads its
  /// checkpoint wherever it runs, as from a multi-region object store: no time over the links,
  /// no egress); true = "regional" (each stage's shard stays in the region that wrote it; a
  /// restart with a stage elsewhere first moves that shard over the link: time and egress).
  bool checkpoint_regional = false;
  /// Seconds a job may stall on a link that is down before it is migrated
  /// (`faults.migrate_after_s`): it writes a checkpoint where it is (storage needs no WAN),
  /// releases its GPUs, restarts after restart_s and is placed again. Unset: it waits for the
  /// link (the behaviour without the key).
  std::optional<double> migrate_after_s;
};

/// λ of a job placed on `stage_region` (D·S entries, g GPUs each): Σ g / gpu_mtbf_s of the
/// entry's region, per s (0 when no region fails).
double failure_rate_per_s(std::span<const int> stage_region, int gpus_per_stage, const Topology& topo);
/// The rate at which spot capacity preempts the job: Σ g / spot_mtbp_s over its entries in spot
/// regions, per s (0 when it uses none).
double preemption_rate_per_s(std::span<const int> stage_region, int gpus_per_stage, const Topology& topo);

/// "auto" checkpoint cost of a job of `stage_params` (S entries) placed on `stage_region` (D·S
/// entries, replica-major): the D replicas of stage i share its bytes params_i ·
/// bytes_per_param (each writes 1/D of them); each region writes its share at its
/// checkpoint_bytes_per_s, all regions at once: C = max over regions of bytes / bandwidth.
double checkpoint_cost_auto_s(std::span<const double> stage_params, std::span<const int> stage_region,
                              double bytes_per_param, const Topology& topo);

/// Regional checkpoints (FaultParams::checkpoint_regional): the stage of the checkpointed
/// attempt (`n_old` entries, replica-major D·S) whose region holds the shard that stage x of the
/// new attempt (`n_new` entries) restores: x itself when the shape is the same, else the old
/// stage at the same relative position, floor(x · n_old / n_new) (a flexible job may restart as
/// another D × S).
int restore_source_stage(int x, int n_old, int n_new);

/// Bytes of the shard stage i of a job of D replicas restores: params_i · bytes_per_param / D
/// (the replicas of a stage share its checkpoint, as they share writing it).
double restore_shard_bytes(double stage_params, double bytes_per_param, int replicas);

/// Young/Daly's interval sqrt(2·C·M) (+inf when M is +inf: nothing fails, nothing to save).
double young_daly_interval_s(double cost_s, double mtbf_s);

/// E[time to complete a segment of x s of work] under failures of rate λ with a restart of R s
/// after each: (e^{λx} − 1)·(1/λ + R); x when λ = 0.
double expected_segment_s(double lambda_per_s, double x_s, double restart_s);

/// E[JCT] of a job alone on its GPUs with W s of failure-free work, a checkpoint of C s after
/// every τ s of work (none after the last segment) and failures of rate λ: Σ_k
/// expected_segment_s(λ, x_k, R) with x_k = τ + C for the ⌈W/τ⌉ − 1 checkpointed segments and
/// the remainder for the last.
double expected_jct_s(double work_s, double interval_s, double cost_s, double lambda_per_s, double restart_s);

}  // namespace geopipe
