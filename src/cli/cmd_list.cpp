// geopipe list [presets|models|gpus|params|metrics]
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sim/metrics.h"
#include "config/schema.h"
#include "model/gpu.h"
#include "model/llm.h"
#include "model/units.h"
#include "sched/registry.h"

namespace geopipe::cli {
namespace {

/// Every scenario parameter (the paths --set and sweep axes take) with its type, default, unit,
/// range and meaning, from the schema (config/schema.h).
void print_params() {
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows = {{"parameter", "type", "default", "unit", "range", "meaning"}};
  for (const config::schema::Parameter& p : config::schema::parameters()) {
    const config::schema::Field& f = *p.field;
    std::string range = config::schema::range_phrase(f);
    if (!range.empty() && f.kind == config::schema::Kind::kFloatArray) range += " each";
    rows.push_back({p.path, config::schema::type_name(f),
                    !f.default_text.empty() ? f.default_text : f.required ? "required" : "-", std::string(f.unit), range,
                    std::string(f.doc)});
  }
  std::array<std::size_t, 5> width{};
  for (const Row& r : rows)
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  for (const Row& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < width.size(); ++c) line += fmt::format("{:<{}}  ", r[c], width[c]);
    fmt::print("{}{}\n", line, r[5]);
  }
}

}  // namespace

void add_list_command(CLI::App& app, int& rc) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List built-in scheduler presets, LLMs, GPU types or scenario parameters");
  cmd->add_option("what", *what, "presets | models | gpus | params | metrics (without: the topics)")
      ->check(CLI::IsMember({"presets", "models", "gpus", "params", "metrics"}));
  cmd->callback([what, &rc] {
    if (what->empty()) {
      fmt::print("geopipe list TOPIC, with TOPIC one of:\n"
                 "  presets   the scheduler presets (ordering x placement)\n"
                 "  models    the built-in LLMs\n"
                 "  gpus      the built-in GPU types\n"
                 "  params    every scenario parameter: path, type, default, unit, range\n"
                 "  metrics   every metric of a scenario: name, unit, meaning\n");
    } else if (*what == "metrics") {
      fmt::print("{:<26} {:<6} {}\n", "metric", "unit", "meaning");
      for (const MetricDef& m : metric_defs())
        fmt::print("{:<26} {:<6} {}{}{}\n", m.name, m.unit, m.doc, m.deterministic ? "" : " (wall clock: not deterministic)",
                   m.source == MetricSource::kSimulation ? "" : " (of [test_function] sweeps only)");
    } else if (*what == "presets") {
      for (const auto& p : presets()) fmt::print("{:<20} {}\n", p.name, p.description);
    } else if (*what == "models") {
      fmt::print("{:<12} {:>7} {:>7} {:>7} {:>7} {:>9}\n", "model", "layers", "hidden", "vocab", "seq", "params_B");
      for (const auto& m : builtin_llms())
        fmt::print("{:<12} {:>7} {:>7} {:>7} {:>7} {:>9.2f}\n", m.name, m.layers, m.hidden, m.vocab, m.seq_len,
                   m.total_params() / 1e9);
    } else if (*what == "params") {
      print_params();
    } else {
      // mfu_max and mfu_half_hidden: the calibrated efficiency curve (docs/model.md, "Compute and
      // recomputation"; sim.mfu overrides it).
      // mfu_attn: the attention products' own efficiency ("-": the curve's); mfu@h: what the
      // type runs a job of width h at, sequence 2048 for h = 2048 and 4096 for the wider ones.
      fmt::print("{:<10} {:>8} {:>7} {:>7} {:>7} {:>8} {:>10} {:>9} {:>9} {:>9} {:>9}\n", "gpu", "TFLOP/s", "mem_GB",
                 "busy_W", "idle_W", "mfu_max", "mfu_half_h", "mfu_attn", "mfu@2048", "mfu@4096", "mfu@8192");
      const ComputeOptions calibrated;
      for (const auto& g : builtin_gpus())
        fmt::print("{:<10} {:>8.1f} {:>7.0f} {:>7.0f} {:>7.0f} {:>8.3f} {:>10.0f} {:>9} {:>9.3f} {:>9.3f} {:>9.3f}\n", g.name,
                   g.peak_flops / 1e12, g.memory_bytes / 1e9, g.busy_power_w, g.idle_power_w, g.mfu_max, g.mfu_half_hidden,
                   g.mfu_attention == 0 ? std::string("-") : fmt::format("{:.3f}", g.mfu_attention),
                   gpu_efficiency(g, 2048, 2048, calibrated), gpu_efficiency(g, 4096, 4096, calibrated),
                   gpu_efficiency(g, 8192, 4096, calibrated));
    }
    rc = kExitOk;
  });
}

}  // namespace geopipe::cli
