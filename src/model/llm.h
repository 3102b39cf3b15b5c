// Decoder-only LLM architectures (docs/model.md, "Jobs").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace geopipe {

/// What the last stage computes on top of its layers (`[[model]] head`).
enum class Head {
  kLm,              ///< an LM head: V·h parameters and 2·b·s·h·V forward FLOP per micro-batch (default)
  kClassification,  ///< a classification head of a few classes (DT-FM's benchmarks): taken as no parameters and no FLOP
};

struct LlmSpec {
  std::string name;            ///< catalogue key, e.g. "llama2-7b"
  int layers = 0;              ///< L, transformer blocks
  int hidden = 0;              ///< h, model width
  int vocab = 0;               ///< V, vocabulary size
  int seq_len = 0;             ///< s, training sequence length (tokens)
  int bytes_per_elem = 2;      ///< activation element size (2 = bf16)
  Head head = Head::kLm;       ///< the last stage's head (the input embedding V·h is on the first stage either way)

  /// Parameters of one transformer block: 12·h² (attention 4h², MLP 8h²; biases ignored).
  double params_per_layer() const { return 12.0 * hidden * static_cast<double>(hidden); }
  /// Embedding (input) or LM-head (output) matrix parameters: V·h.
  double embedding_params() const { return static_cast<double>(vocab) * hidden; }
  /// Parameters of the head on the last stage: V·h for an LM head, 0 for a classification head.
  double head_params() const { return head == Head::kLm ? embedding_params() : 0.0; }
  /// Total parameters: L·12h² + V·h (input embedding) + the head's (untied: V·h for an LM head).
  double total_params() const { return layers * params_per_layer() + embedding_params() + head_params(); }
};

/// Built-in catalogue spanning ~1B to ~100B parameters with the published L/h/V/s.
const std::vector<LlmSpec>& builtin_llms();

/// Built-in LLM by name, or nullptr.
const LlmSpec* find_builtin_llm(std::string_view name);

}  // namespace geopipe
