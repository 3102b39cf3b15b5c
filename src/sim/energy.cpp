#include "sim/energy.h"

#include <algorithm>

namespace geopipe {

double stage_energy_per_iteration_j(int gpus, double pue, const GpuType& gpu, double busy_s,
                                    double iteration_s) {
  const double busy = std::clamp(busy_s, 0.0, iteration_s);
  return gpus * pue * (gpu.busy_power_w * busy + gpu.idle_power_w * (iteration_s - busy));
}

}  // namespace geopipe
