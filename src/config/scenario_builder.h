// The scenario loader's builder (config/scenario_loader.cpp, config/cluster_builder.cpp): one
// schema-checked TOML table -> geopipe::Scenario, section by section. Internal to the config
// layer: config/scenario_loader.h is its API.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <sstream>

#include "util/input_error.h"
#include "config/input_file.h"
#include "config/overrides.h"
#include "config/schema.h"
#include "config/schema_check.h"
#include "config/toml_error.h"
#include "config/toml_limits.h"
#include "config/toml_scenario.h"
#include "model/flexible_job.h"
#include "model/gpu.h"
#include "model/job.h"
#include "model/llm.h"
#include "model/trace.h"
#include "config/series_file.h"
#include "util/datetime.h"
#include "util/named_table.h"
#include "model/units.h"
#include "model/workload.h"
#include "sched/feasibility.h"
#include "sched/registry.h"

#include "config/series_file.h"
#include "model/scenario.h"

namespace geopipe::config::builder_detail {

using schema::kMaxGpusPerRegion;
using schema::kMaxGbps;
using schema::kMinGbps;
using schema::kMaxPrice;

inline std::string gb(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / 1e9 << " GB";
  return os.str();
}

inline std::string line_note(const toml::node& n) {
  const int line = location_of(n.source(), "").line;
  return line > 0 ? " at line " + std::to_string(line) : "";
}

class Builder {
 public:
  Builder(const toml::table& root, std::string file, std::string base_dir)
      : root_(root), file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  Scenario build();

 private:
  const toml::table& root_;
  std::string file_;
  std::string base_dir_;

  [[noreturn]] void fail(const toml::source_region& r, const std::string& msg) const { throw error_at(r, file_, msg); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { fail(region_of(n, file_), msg); }

  // ---- readers for schema-checked tables ----
  // read(t, key, out) overwrites `out` only if the key is present: the defaults of absent keys
  // are the initialisers of the model structs (model/*.h), and nowhere else.
  static const toml::node* get(const toml::table& t, std::string_view k) { return t.get(k); }
  /// Reads the string key `k` of `t`, when present, into `out` as one of `choices` (name and
  /// value, in the order an error lists them); any other name fails: "<path>: unknown <what>
  /// 'x' (did you mean ...) (expected one of ...)".
  template <class E>
  void read_choice(const toml::table& t, std::string_view k, const std::string& path, const char* what,
                   const std::vector<std::pair<std::string, E>>& choices, E& out) const {
    const toml::node* n = get(t, k);
    if (!n) return;
    std::string name;
    read(t, k, name);
    std::vector<std::string> names;
    for (const auto& [choice, value] : choices) {
      if (choice == name) {
        out = value;
        return;
      }
      names.push_back(choice);
    }
    fail(*n, path + ": unknown " + what + " '" + name + "'" + util::suggestion_suffix(name, names) +
                 " (expected one of " + util::quoted_list(names) + ")");
  }
  static void read(const toml::table& t, std::string_view k, double& out) {
    if (const toml::node* n = t.get(k)) out = number_of(*n);
  }
  static void read(const toml::table& t, std::string_view k, std::int64_t& out) {
    if (const toml::node* n = t.get(k)) out = n->as_integer()->get();
  }
  static void read(const toml::table& t, std::string_view k, std::uint64_t& out) {
    if (const toml::node* n = t.get(k)) out = static_cast<std::uint64_t>(n->as_integer()->get());
  }
  static void read(const toml::table& t, std::string_view k, int& out) {
    if (const toml::node* n = t.get(k)) out = static_cast<int>(n->as_integer()->get());  // schema bounds keep it inside int
  }
  static void read(const toml::table& t, std::string_view k, std::string& out) {
    if (const toml::node* n = t.get(k)) out = n->as_string()->get();
  }
  /// Value of a key the schema requires (so it is present).
  template <class T>
  static T required(const toml::table& t, std::string_view k) {
    T v{};
    read(t, k, v);
    return v;
  }
  static const toml::table* table(const toml::table& t, std::string_view k) { return t.get_as<toml::table>(k); }
  static std::vector<const toml::table*> entries(const toml::table* t, std::string_view k) {
    std::vector<const toml::table*> out;
    if (!t) return out;
    if (const auto* a = t->get_as<toml::array>(k))
      for (const auto& e : *a) out.push_back(e.as_table());
    return out;
  }

  void require_nonempty(const toml::table& t, std::string_view key, const std::string& path) const {
    const toml::node* n = t.get(key);
    if (n && n->as_string()->get().empty()) fail(*n, path + " must not be empty (expected a name)");
  }

  // ---- sections ----
  void build_gpus(Scenario& sc);
  void build_models(Scenario& sc);
  void build_cluster(Scenario& sc);
  void build_network(Scenario& sc);
  /// network.mesh_*: a link of the mesh's values for every region pair not in `linked` (the
  /// pairs [[network.link]] joins, as (min, max) region indices).
  void build_mesh(const toml::table& network, Scenario& sc, const std::map<std::pair<int, int>, std::size_t>& linked);
  void build_workload(Scenario& sc);
  void build_mix(Scenario& sc, const toml::table& workload);
  void build_scheduler(Scenario& sc);
  void build_faults(Scenario& sc);
  void check_mix_fits(const Scenario& sc);
  void check_iterations(const Scenario& sc, const JobProfile& prof, std::size_t i) const;
  void check_arrival_span(const Scenario& sc, const toml::table& workload) const;
  void load_trace(Scenario& sc);
  void read_series_options(const toml::table& sim);
  /// The series file `n` names (key `key_path`, relative to the scenario's directory), read
  /// with `columns`; its errors are this key's (file:line:col of the key, then of the CSV).
  SeriesTable read_series_file(const toml::node& n, const std::string& key_path, const std::vector<SeriesColumn>& columns) const;
  /// The file a string key names (relative paths against the scenario's directory), read whole
  /// (at most kMaxTraceBytes): its shown path and text; failing at the key, "cannot open
  /// <what> file ...", when it cannot be read.
  void read_named_file(const toml::node& n, const std::string& key_path, const char* what, std::string& shown,
                       std::string& text) const;

  /// The path a string key names: relative paths against the scenario's directory.
  std::string resolved_path(const toml::node& n) const;

  SeriesEnd series_end_ = SeriesEnd::kError;   ///< sim.series_end
  std::optional<double> start_epoch_s_;        ///< sim.start_utc
  /// Series already built, by what was read (the resolved path, and the column and scale for
  /// prices and carbon): a file named by several keys is read once and held once.
  std::map<std::string, std::pair<std::shared_ptr<const StepSeries>, std::shared_ptr<const StepSeries>>> link_series_;
  std::map<std::string, std::shared_ptr<const StepSeries>> region_series_;

  std::string flexible_unfit(const Job& j, const LlmSpec& llm, const Scenario& sc) const;
  std::string unfit_details(const JobProfile& p, const Topology& topo) const;
};

}  // namespace geopipe::config::builder_detail
