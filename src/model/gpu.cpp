#include "model/gpu.h"

#include "model/units.h"
#include "util/named_table.h"

namespace geopipe {

const std::vector<GpuType>& builtin_gpus() {
  using units::gb_to_bytes;
  using units::tflops_to_flops;
  // Peak dense tensor throughput (bf16; fp16 for V100, which has no bf16), memory and TDP from
  // the NVIDIA datasheets: V100 SXM2 16/32 GB 125 TFLOPS, 300 W; A100 SXM4 40/80 GB 312 TFLOPS,
  // 400 W; H100 SXM5 989 TFLOPS, 700 W; A40 149.7 TFLOPS, 48 GB, 300 W; L40S 362 TFLOPS, 48 GB,
  // 350 W. Idle power is the typical reading of nvidia-smi on an idle, clocked-up board.
  // mfu_max and mfu_half_hidden: the efficiency curve of docs/model.md, "Compute and
  // recomputation", calibrated on published measured runs (docs/validation.md: V100 on
  // DT-FM's, A100 on Zero Bubble PP's and MosaicML's, H100 on MosaicML's, whose long sequences
  // also give H100's attention efficiency, mfu_attention, the last figure); the types without
  // a measurement of their own take their architecture sibling's mfu_max and scale its
  // mfu_half_hidden by the ratio of peak FLOP/s to memory bandwidth (the roofline reading of
  // the curve): V100-32GB = V100-16GB; A100-40GB from A100-80GB (1555 vs 2039 GB/s); A40
  // (696 GB/s) and L40S (864 GB/s) from A100-80GB.
  static const std::vector<GpuType> gpus = {
      {"A100-80GB", tflops_to_flops(312), gb_to_bytes(80), 400, 60, 0.678, 407},
      {"H100-SXM", tflops_to_flops(989), gb_to_bytes(80), 700, 100, 0.616, 786, 0.302},
      {"V100-32GB", tflops_to_flops(125), gb_to_bytes(32), 300, 50, 0.621, 2251},
      {"L40S", tflops_to_flops(362), gb_to_bytes(48), 350, 40, 0.678, 1115},
      {"V100-16GB", tflops_to_flops(125), gb_to_bytes(16), 300, 50, 0.621, 2251},
      {"A100-40GB", tflops_to_flops(312), gb_to_bytes(40), 400, 60, 0.678, 534},
      {"A40", tflops_to_flops(149.7), gb_to_bytes(48), 300, 30, 0.678, 572},
  };
  return gpus;
}

const GpuType* find_builtin_gpu(std::string_view name) { return util::find_named(builtin_gpus(), name); }

}  // namespace geopipe
