#include "sched/run_scheduler.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

namespace geopipe {
namespace {

// Fault injection for the tests of failed runs: a scheduler that never starts a job.
class StrandingScheduler final : public Scheduler {
 public:
  explicit StrandingScheduler(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void schedule(const SchedContext&, const WaitingQueue&, ClusterView&, std::vector<Decision>&) override {}

 private:
  std::string name_;
};

bool strand_injected(const std::string& preset) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    if (const char* e = std::getenv("GEOPIPE_STRAND_PRESETS")) {
      std::string s(e);
      for (size_t pos = 0; pos <= s.size();) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        if (comma > pos) v.push_back(s.substr(pos, comma - pos));
        pos = comma + 1;
      }
    }
    return v;
  }();
  return std::find(names.begin(), names.end(), preset) != names.end();
}

}  // namespace

std::unique_ptr<Scheduler> make_run_scheduler(const std::string& preset, const SchedulerParams& params) {
  if (strand_injected(preset)) return std::make_unique<StrandingScheduler>(preset);
  return make_scheduler(preset, params);
}

}  // namespace geopipe
