#include "model/llm.h"

#include "util/named_table.h"

namespace geopipe {

const std::vector<LlmSpec>& builtin_llms() {
  // Published architectures: GPT-3 XL (Brown et al. 2020, table 2.1), Llama 2 7B/13B/70B
  // (Touvron et al. 2023), LLaMA 33B (Touvron et al. 2023a), FLM-101B (Li et al. 2023).
  // Grouped-query attention and SwiGLU widths are approximated by the standard 12·h²
  // block, as the FLOP formula of docs/model.md ("Jobs") does.
  static const std::vector<LlmSpec> llms = {
      {"gpt3-1.3b", 24, 2048, 50257, 2048, 2},
      {"llama2-7b", 32, 4096, 32000, 4096, 2},
      {"llama2-13b", 40, 5120, 32000, 4096, 2},
      {"llama-33b", 60, 6656, 32000, 2048, 2},
      {"llama2-70b", 80, 8192, 32000, 4096, 2},
      {"flm-101b", 80, 10240, 100256, 2048, 2},
  };
  return llms;
}

const LlmSpec* find_builtin_llm(std::string_view name) { return util::find_named(builtin_llms(), name); }

}  // namespace geopipe
