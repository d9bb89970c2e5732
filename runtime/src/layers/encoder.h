// The encoder stack: embeddings, positions, self-attention with a padding
// mask, feed-forward blocks.
#pragma once

#include <vector>

#include "edgemt/translator.h"
#include "layers/blocks.h"

namespace edgemt {

class Encoder {
 public:
  Status Create(const ModelWeights& weights);
  // Encodes `count` sources padded to `length` rows each. Writes
  // workspace.memory and workspace.key_mask.
  Status Run(const TokenIds* sources, size_t count, size_t length, Workspace& workspace,
             const RunContext& context) const;

 private:
  struct Layer {
    AttentionOps self_attention;
    LayerNormView self_attention_norm;
    FeedForwardOps feed_forward;
    LayerNormView feed_forward_norm;
  };
  const ModelWeights* weights_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace edgemt
