// The encoder stack: embeddings, positions, self-attention with a padding
// mask, feed-forward blocks.
#pragma once

#include "edgemt/types.h"
#include "layers/blocks.h"

namespace edgemt {

class Encoder {
 public:
  // The operators a layer adds to `to_pack`.
  static constexpr size_t kLinearsPerLayer = SelfAttentionOps::kLinears + FeedForwardOps::kLinears;
  // Configures the layers and adds the linear ones to `to_pack`, which the
  // caller packs (PackLinears) before the first Run.
  Status Configure(const ModelWeights& weights, LinearOpList* to_pack);
  // Whether Run over `rows` rows (count x length) uses the thread pool.
  bool RunsInParallel(size_t rows) const { return AnyRunsInParallel(linears_, rows); }

  // Encodes `count` sources padded to `length` rows each. Writes
  // workspace.memory and workspace.key_mask.
  Status Run(const TokenIds* sources, size_t count, size_t length, Workspace& workspace,
             const RunContext& context) const;

 private:
  struct Layer {
    SelfAttentionOps self_attention;
    LayerNormView self_attention_norm;
    FeedForwardOps feed_forward;
    LayerNormView feed_forward_norm;
  };
  const ModelWeights* weights_ = nullptr;
  FixedArray<Layer> layers_;
  ConstLinearOpList linears_;
};

}  // namespace edgemt
