// Every point of a sweep checked at load time (config/sweep_validate.h).
//
// Each point is first built on a copy of the pre-parsed base (fast). That copy has lost the
// source regions of the base file's own nodes (toml++ does not copy them), so when it fails the
// point is rebuilt on a freshly parsed base, and that error is reported with exact locations.
#include "config/sweep_validate.h"

#include <memory>
#include <set>
#include <string>

#include "config/sweep_scenario.h"

namespace geopipe::config::sweep_internal {
namespace {

class PointCheck {
 public:
  PointCheck(const SweepSpec& spec, const SweepFile& file, Pos base_pos, const SweepDesign& design)
      : spec_(spec), file_(file), base_pos_(base_pos), design_(design) {}

  PointFacts run() const;

 private:
  const SweepSpec& spec_;
  const SweepFile& file_;
  Pos base_pos_;
  const SweepDesign& design_;

  [[noreturn]] void report(std::size_t i, const InputError& e) const;
  /// True if the base with the fixed overrides alone fails with exactly error `e`.
  bool base_itself_fails(std::size_t i, const InputError& e) const;
};

PointFacts PointCheck::run() const {
  PointFacts facts;
  std::set<std::string> seen;
  auto note = [&](const Scenario& sc) {
    if (!sc.trace_path.empty() && seen.insert(sc.trace_path).second) facts.trace_paths.push_back(sc.trace_path);
    facts.job_text = facts.job_text.max_with(job_text_bytes(sc));
  };
  // The pre-parsed document is only used when every fixed override applies cleanly; otherwise
  // the exact (fresh) path below reports the problem.
  std::unique_ptr<PreparedBase> prep;
  try {
    prep = std::make_unique<PreparedBase>(spec_.base_text, spec_.base_path, spec_.fixed);
  } catch (const InputError&) {
    prep.reset();
  }
  for (std::size_t i = 0; i < spec_.num_points(); ++i) {
    const SweepPoint point = spec_.point(i);
    const std::vector<Override>& ov = point.overrides;
    if (prep) {
      try {
        note(prep->make(ov));
        continue;
      } catch (const InputError&) {
      }
    }
    try {
      note(make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, ov));
    } catch (const InputError& e) {
      report(i, e);
    }
    // The fast path failed but the exact one did not (should not happen): report the fast one.
    try {
      if (prep) (void)prep->make(ov);
    } catch (const InputError& e) {
      report(i, e);
    }
  }
  return facts;
}

bool PointCheck::base_itself_fails(std::size_t i, const InputError& e) const {
  if (spec_.point(i).overrides.empty()) return true;
  try {
    (void)make_fresh(spec_.base_text, spec_.base_path, spec_.fixed, {});
  } catch (const InputError& b) {
    return std::string(b.what()) == e.what();
  }
  return false;
}

void PointCheck::report(std::size_t i, const InputError& e) const {
  if (e.file() == file_.path()) {  // a value of the sweep file
    const std::string hint = design_.hint_for(e);
    if (!hint.empty()) throw InputError(file_.path(), e.line(), e.column(), e.message() + hint);
    throw e;
  }
  if (e.file() != spec_.base_path) throw e;  // --set on the command line
  // The error is in the base file: is the base (with the fixed overrides) invalid on its own?
  if (base_itself_fails(i, e)) {
    const std::string with = spec_.fixed.empty() ? "" : " (with the fixed overrides)";
    file_.fail(base_pos_, "base scenario" + with + " is invalid: " + e.what());
  }
  std::string desc;
  Pos at = base_pos_;
  bool located = false;
  const SweepPoint point = spec_.point(i);
  for (const Override& o : point.overrides) {
    desc += (desc.empty() ? "" : ", ") + o.path + " = " + o.value;
    if (!located && o.line > 0) {
      at = Pos{o.line, o.column};
      located = true;
    }
  }
  file_.fail(at, "sweep point " + std::to_string(i) + " (" + desc + ") gives an invalid scenario: " + e.what());
}

}  // namespace

PointFacts validate_points(const SweepSpec& spec, const SweepFile& file, Pos base_pos,
                                         const SweepDesign& design) {
  return PointCheck(spec, file, base_pos, design).run();
}

}  // namespace geopipe::config::sweep_internal
