// Small value types that the translator, the text layer and the runtime's
// insides all use: the bottom of EdgeMT's headers (it includes no other),
// so that the layers and ops below the translator need not include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace edgemt {

// A sequence of token ids that the caller (or the translator) owns.
struct TokenIds {
  const int32_t* data = nullptr;
  size_t size = 0;
};

// Where time went, summed over calls since the last ResetProfile().
struct TranslationProfile {
  double encoder_ms = 0;      // embedding, encoder layers, cross-attention keys/values
  double decoder_ms = 0;      // all decoder steps
  long decoder_steps = 0;     // steps run (a batch step counts once)
  long decoder_rows = 0;      // hypotheses computed, summed over steps (finished ones are not)
  double xnnpack_ms = 0;      // inside XNNPACK operators (linear layers)
  double attention_ms = 0;    // score and value products, softmax
  double layer_norm_ms = 0;   // LayerNorm and residual sums
  double embedding_ms = 0;    // token lookup and positions
  double other_ms = 0;        // activation quantization, activations, argmax
  long parallel_products = 0; // linear layers run on the thread pool
  double cache_reorder_ms = 0;  // beam search: history slots copied for branching hypotheses (part of other_ms)
};

// Receives each new piece of a streamed translation; returning false stops it.
using PieceCallback = std::function<bool(std::string_view piece)>;

}  // namespace edgemt
