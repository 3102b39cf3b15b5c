#include "model/gpu.h"

#include "model/units.h"
#include "util/named_table.h"

namespace geopipe {

const std::vector<GpuType>& builtin_gpus() {
  using units::gb_to_bytes;
  using units::tflops_to_flops;
  // Peak dense tensor throughput (bf16; fp16 for V100, which has no bf16) and TDP from the
  // NVIDIA datasheets (A100 80GB SXM: 312 TFLOPS, 400 W; H100 SXM5: 989 TFLOPS, 700 W;
  // V100 SXM2 32GB: 125 TFLOPS, 300 W; L40S: 362 TFLOPS, 350 W). Idle power is the
  // typical reading of nvidia-smi on an idle, clocked-up board.
  static const std::vector<GpuType> gpus = {
      {"A100-80GB", tflops_to_flops(312), gb_to_bytes(80), 400, 60},
      {"H100-SXM", tflops_to_flops(989), gb_to_bytes(80), 700, 100},
      {"V100-32GB", tflops_to_flops(125), gb_to_bytes(32), 300, 50},
      {"L40S", tflops_to_flops(362), gb_to_bytes(48), 350, 40},
  };
  return gpus;
}

const GpuType* find_builtin_gpu(std::string_view name) { return util::find_named(builtin_gpus(), name); }

}  // namespace geopipe
