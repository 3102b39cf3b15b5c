// GPU types: the compute, memory and power figures the model needs.
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
};

/// The built-in GPU catalogue (the table of gpu.cpp, from vendor datasheets; `geopipe list gpus`).
const std::vector<GpuType>& builtin_gpus();

/// Built-in GPU by name (case-sensitive), or nullptr.
const GpuType* find_builtin_gpu(std::string_view name);

}  // namespace geopipe
