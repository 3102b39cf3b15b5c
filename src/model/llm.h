// Decoder-only LLM architectures (docs/model.md, "Jobs").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace geopipe {

struct LlmSpec {
  std::string name;            ///< catalogue key, e.g. "llama2-7b"
  int layers = 0;              ///< L, transformer blocks
  int hidden = 0;              ///< h, model width
  int vocab = 0;               ///< V, vocabulary size
  int seq_len = 0;             ///< s, training sequence length (tokens)
  int bytes_per_elem = 2;      ///< activation element size (2 = bf16)

  /// Parameters of one transformer block: 12·h² (attention 4h², MLP 8h²; biases ignored).
  double params_per_layer() const { return 12.0 * hidden * static_cast<double>(hidden); }
  /// Embedding (input) or LM-head (output) matrix parameters: V·h.
  double embedding_params() const { return static_cast<double>(vocab) * hidden; }
  /// Total parameters: L·12h² + 2·V·h (untied input embedding and LM head).
  double total_params() const { return layers * params_per_layer() + 2.0 * embedding_params(); }
};

/// Built-in catalogue spanning ~1B to ~100B parameters with the published L/h/V/s.
const std::vector<LlmSpec>& builtin_llms();

/// Built-in LLM by name, or nullptr.
const LlmSpec* find_builtin_llm(std::string_view name);

}  // namespace geopipe
