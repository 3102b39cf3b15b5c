// Jobs whose data-parallel degree the scheduler chooses (`data_parallel = 0`, docs/model.md,
// "Choosing D"): a flexible job gives its GPU count as `stages` slots of g GPUs, and each of its
// *variants* is one way to run those slots as D replicas of an S-stage pipeline.
#pragma once

#include <span>
#include <vector>

#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"

namespace geopipe {

/// Is `job` flexible (Job::data_parallel == 0: the scheduler chooses D)?
constexpr bool is_flexible(const Job& job) { return job.data_parallel == 0; }

/// Most GPU slots (`stages` of a flexible job): every variant then has at most
/// kMaxDataParallel replicas of at most a model's layers stages, and cells stay bounded.
inline constexpr int kMaxFlexibleSlots = 1 << 20;

/// The variants of flexible job `job` (N = job.stages slots of g GPUs, m = job.micro_batches),
/// in increasing D: for every D with D | N, D | m, D <= kMaxDataParallel and S = N / D <=
/// llm.layers, the job with data_parallel = D, stages = S and micro_batches = m / D (its other
/// fields as `job`'s). Each variant trains the same global batch, D · (m/D) · b = m · b sequences
/// per iteration, on the same N · g GPUs, for the same iterations. Whether a variant's stages fit
/// any GPU is not checked here (flexible_variants_that_fit). Requires is_flexible(job) and
/// job.stages >= 1.
std::vector<Job> data_parallel_variants(const Job& job, const LlmSpec& llm);

/// data_parallel_variants() without the variants of which some stage fits no GPU of `topo`
/// (g GPUs of a region's type, in a region of at least g GPUs) under `compute`: those could
/// never be placed. Whether the rest fit the cluster as a whole is the feasibility check's
/// question (sched/feasibility.h).
std::vector<Job> flexible_variants_that_fit(const Job& job, const LlmSpec& llm, const Topology& topo,
                                            const ComputeOptions& compute);

/// The index of the first of `variants` (the least D) of which every stage fits g GPUs of some
/// region of `topo` (in a region of at least g GPUs) under `compute`, or -1: the one test of
/// flexible_variants_that_fit and reference_variant, and of the trace importer's reference
/// variant (on a region of its reference GPU).
int first_variant_that_fits(std::span<const Job> variants, const LlmSpec& llm, const Topology& topo,
                            const ComputeOptions& compute);

/// The job as one fixed shape for what needs one before the scheduler has chosen: `job` itself
/// when it is not flexible, else its first variant (the least D) that fits, or, if none fits,
/// its first variant. Throws std::logic_error for a flexible job without variants (the trace
/// parser and the config loader refuse those). The generator and
/// the trace importer compute a flexible job's reference iteration time from it (its
/// iterations stay the job's for every variant), and orderings see a waiting flexible job's
/// profile as its (docs/model.md, "Choosing D").
Job reference_variant(const Job& job, const LlmSpec& llm, const Topology& topo, const ComputeOptions& compute);

}  // namespace geopipe
