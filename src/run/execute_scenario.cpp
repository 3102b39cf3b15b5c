#include "run/execute_scenario.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "sched/registry.h"
#include "sim/engine.h"

namespace geopipe::sweep {
namespace {

// Fault injection for the tests of /errors and exit codes: GEOPIPE_FAIL_IDS="3,17" makes
// those scenario ids throw. Read once; unset in normal use.
const std::vector<std::int64_t>& injected_failures() {
  static const std::vector<std::int64_t> ids = [] {
    std::vector<std::int64_t> v;
    if (const char* e = std::getenv("GEOPIPE_FAIL_IDS")) {
      std::string s(e);
      size_t pos = 0;
      while (pos < s.size()) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        try {
          v.push_back(std::stoll(s.substr(pos, comma - pos)));
        } catch (const std::exception&) {
        }
        pos = comma + 1;
      }
    }
    return v;
  }();
  return ids;
}

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

ScenarioResult execute_scenario(const PointEvaluator& evaluator, const Plan& plan, std::int64_t id,
                                const ExecuteOptions& opt) {
  ScenarioResult res;
  res.id = id;
  if (opt.null_scenarios) {
    res.ok = true;
    return res;
  }
  try {
    const auto& fail = injected_failures();
    if (std::find(fail.begin(), fail.end(), id) != fail.end())
      throw std::runtime_error("injected failure (GEOPIPE_FAIL_IDS) of scenario " + std::to_string(id));
    const ScenarioKey k = plan.key(static_cast<std::uint64_t>(id));
    evaluator.evaluate(k, opt, res);
    res.ok = true;
  } catch (const std::exception& e) {
    res.ok = false;
    res.error = e.what();
    res.jobs.clear();
  }
  return res;
}

}  // namespace geopipe::sweep
