#include "model/pipeline_schedule.h"

#include <array>

#include "model/gpipe.h"
#include "model/one_f_one_b.h"

namespace geopipe {

namespace {

const GPipeSchedule kGPipe;
const OneFOneBSchedule kOneFOneB;

/// The registry, indexed by PipelineScheduleKind.
constexpr std::array<const PipelineSchedule*, 2> kSchedules{&kGPipe, &kOneFOneB};

}  // namespace

const PipelineSchedule& pipeline_schedule(PipelineScheduleKind kind) { return *kSchedules[static_cast<size_t>(kind)]; }

const PipelineSchedule* find_pipeline_schedule(std::string_view name) {
  for (const PipelineSchedule* s : kSchedules)
    if (s->name() == name) return s;
  return nullptr;
}

std::vector<std::string> pipeline_schedule_names() {
  std::vector<std::string> names;
  for (const PipelineSchedule* s : kSchedules) names.emplace_back(s->name());
  return names;
}

}  // namespace geopipe
