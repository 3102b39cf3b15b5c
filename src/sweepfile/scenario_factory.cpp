// A sweep point's scenario (sweepfile/point_scenario.h) and ScenarioFactory (sweepfile/loader.h).
#include <atomic>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <utility>

#include "config/overrides.h"
#include "sweepfile/loader.h"
#include "sweepfile/point_scenario.h"
#include "config/toml_error.h"
#include "config/toml_scenario.h"

namespace geopipe::config {
namespace sweep_internal {
namespace {

std::string dir_of(const std::string& file) {
  std::string d = std::filesystem::path(file).parent_path().string();
  return d.empty() ? std::string(".") : d;
}

}  // namespace

PreparedBase::PreparedBase(const std::string& base_text, std::string path, const std::vector<Override>& fixed)
    : base_path(std::move(path)), base_dir(dir_of(base_path)) {
  pre = parse_toml(base_text, base_path);
  apply_overrides(pre, fixed);
}

Scenario PreparedBase::make(const std::vector<Override>& point) const {
  toml::table doc = pre;
  apply_overrides(doc, point);
  return build_scenario(doc, base_path, base_dir);
}

Scenario make_fresh(const std::string& base_text, const std::string& base_path, const std::vector<Override>& fixed,
                    const std::vector<Override>& point) {
  toml::table doc = parse_scenario_toml(base_text, base_path);
  apply_overrides(doc, fixed);
  apply_overrides(doc, point);
  return build_scenario(doc, base_path, dir_of(base_path));
}

}  // namespace sweep_internal

struct ScenarioFactory::Impl {
  sweep_internal::PreparedBase prepared;
  std::vector<SweepColumn> columns;  ///< the sweep's
  PointSource points;                ///< the sweep's

  explicit Impl(const SweepSpec& spec)
      : prepared(spec.base_text, spec.base_path, spec.fixed), columns(spec.columns), points(spec.points) {}
};

ScenarioFactory::ScenarioFactory(const SweepSpec& spec) : impl_(std::make_unique<Impl>(spec)) {
  static std::atomic<std::uint64_t> next_serial{1};
  serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
}
ScenarioFactory::~ScenarioFactory() = default;

Scenario ScenarioFactory::make(std::size_t point) const {
  if (point >= impl_->points.size())
    throw std::out_of_range("ScenarioFactory::make: point " + std::to_string(point) + " out of range (" +
                            std::to_string(impl_->points.size()) + " points)");
  return impl_->prepared.make(impl_->points.point(point, impl_->columns.size()).overrides);
}

}  // namespace geopipe::config
