// GPU types: the compute, memory, power and efficiency figures the model needs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace geopipe {

struct GpuType {
  std::string name;           ///< e.g. "A100-80GB"
  double peak_flops = 0;      ///< peak dense bf16/fp16 tensor FLOP/s
  double memory_bytes = 0;    ///< HBM capacity, bytes
  double busy_power_w = 0;    ///< board power while computing, W
  double idle_power_w = 0;    ///< board power while idle (bubbles, stalls), W
  /// Compute efficiency (docs/model.md, "Compute and recomputation"): the GPU executes the matrix
  /// products of a job of hidden size h at mfu(h) = mfu_max · h / (h + mfu_half_hidden) of its
  /// peak and its attention products at mfu_attention, unless the scenario sets sim.mfu. Built-in types carry values calibrated on published measurements
  /// (docs/validation.md); a [[gpu]] of a scenario defaults to the constant 0.4 below, the
  /// efficiency every GPU had before model version 4.
  double mfu_max = 0.4;        ///< efficiency of layers much wider than mfu_half_hidden, in (0, 1]
  double mfu_half_hidden = 0;  ///< hidden size at which the efficiency is mfu_max / 2 (>= 0; 0: constant mfu_max)
  /// Efficiency of the attention products (4·b·s²·h FLOP per layer forward), in (0, 1]; 0 (the
  /// default): the width curve's, like the rest of the layer. A job of width h and sequence s
  /// then runs at the FLOP-weighted harmonic mean (6h + s) / (6h / mfu(h) + s / mfu_attention).
  double mfu_attention = 0;
};

/// The built-in GPU catalogue (the table of gpu.cpp, from vendor datasheets and the calibration
/// of docs/validation.md; `geopipe list gpus`).
const std::vector<GpuType>& builtin_gpus();

/// Built-in GPU by name (case-sensitive), or nullptr.
const GpuType* find_builtin_gpu(std::string_view name);

}  // namespace geopipe
