// geopipe list presets|models|gpus
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "model/gpu.h"
#include "model/llm.h"
#include "model/units.h"
#include "sched/registry.h"

namespace geopipe::cli {

void add_list_command(CLI::App& app, int& rc) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List built-in scheduler presets, LLMs or GPU types");
  cmd->add_option("what", *what, "presets | models | gpus")->required()->check(CLI::IsMember({"presets", "models", "gpus"}));
  cmd->callback([what, &rc] {
    if (*what == "presets") {
      for (const auto& p : presets()) fmt::print("{:<20} {}\n", p.name, p.description);
    } else if (*what == "models") {
      fmt::print("{:<12} {:>7} {:>7} {:>7} {:>7} {:>9}\n", "model", "layers", "hidden", "vocab", "seq", "params_B");
      for (const auto& m : builtin_llms())
        fmt::print("{:<12} {:>7} {:>7} {:>7} {:>7} {:>9.2f}\n", m.name, m.layers, m.hidden, m.vocab, m.seq_len,
                   m.total_params() / 1e9);
    } else {
      fmt::print("{:<10} {:>8} {:>7} {:>7} {:>7}\n", "gpu", "TFLOP/s", "mem_GB", "busy_W", "idle_W");
      for (const auto& g : builtin_gpus())
        fmt::print("{:<10} {:>8.0f} {:>7.0f} {:>7.0f} {:>7.0f}\n", g.name, g.peak_flops / 1e12, g.memory_bytes / 1e9,
                   g.busy_power_w, g.idle_power_w);
    }
    rc = kExitOk;
  });
}

}  // namespace geopipe::cli
