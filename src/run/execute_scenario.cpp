#include "run/execute_scenario.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

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

}  // namespace

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
