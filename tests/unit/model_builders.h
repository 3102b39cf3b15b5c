// Shared by the model tests: a tiny LLM, a job of a given shape and a one-region topology.
#pragma once

#include "model/job.h"
#include "model/llm.h"
#include "model/topology.h"

namespace geopipe::testutil {

/// 10 layers, h = 1000, V = 5000, s = 100, bf16.
inline LlmSpec tiny() { return LlmSpec{"tiny", 10, 1000, 5000, 100, 2}; }

/// A job of S stages, micro-batch size b, m micro-batches, g GPUs per stage, 10 iterations.
inline Job job(int S, int b, int m, int g) {
  Job j;
  j.stages = S;
  j.micro_batch_size = b;
  j.micro_batches = m;
  j.gpus_per_stage = g;
  j.iterations = 10;
  return j;
}

/// One region of 64 GPUs of one type with `mem` bytes of memory (100 TFLOP/s, 500/100 W).
inline Topology one_region(double mem) {
  Topology t;
  t.gpu_types = {GpuType{"g", 100e12, mem, 500, 100}};
  Region r;
  r.name = "r";
  r.gpu_count = 64;
  r.price = PriceProfile::flat(0.1);
  t.regions = {r};
  t.reset_links();
  return t;
}

}  // namespace geopipe::testutil
