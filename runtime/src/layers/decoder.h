// The decoder stack, one step at a time: masked self-attention over a
// key/value cache, cross-attention over keys and values computed once per
// batch, feed-forward blocks and the output projection.
#pragma once

#include <vector>

#include "layers/blocks.h"

namespace edgemt {

class Decoder {
 public:
  // `cache_length` is the number of steps the self-attention cache holds.
  // Adds the linear layers to `to_pack`, as Encoder::Configure.
  void Configure(const ModelWeights& weights, size_t cache_length, std::vector<LinearOp*>* to_pack);

  // Projects workspace.memory ([count * source_length, d]) to every layer's
  // cross-attention keys and values. Uses the encoder's scratch buffers.
  Status PrepareCrossAttention(size_t count, size_t source_length, Workspace& workspace,
                               const RunContext& context) const;

  // Feeds tokens[r] at position `step` for each of `count` rows and writes
  // workspace.logits [count, vocab]. Row r continues the hypothesis in
  // self-attention cache slot slots[r], which translates source
  // slots[r] / per_source (beam search: a source's beams share its
  // cross-attention). Only the unfinished hypotheses need rows: the slots
  // say whose caches they are, so nothing moves when one finishes.
  Status Step(const int32_t* tokens, const int32_t* slots, size_t count, size_t per_source, size_t step,
              size_t source_length, Workspace& workspace, const RunContext& context) const;

  // Whether PrepareCrossAttention over `rows` rows (count x source length),
  // or a Step over `count` sentences, uses the thread pool.
  bool CrossAttentionRunsInParallel(size_t rows) const { return AnyRunsInParallel(cross_linears_, rows); }
  bool StepRunsInParallel(size_t count) const { return AnyRunsInParallel(step_linears_, count); }

 private:
  struct Layer {
    SelfAttentionOps self_attention;
    LayerNormView self_attention_norm;
    CrossAttentionOps cross_attention;
    LayerNormView cross_attention_norm;
    FeedForwardOps feed_forward;
    LayerNormView feed_forward_norm;
  };
  const ModelWeights* weights_ = nullptr;
  size_t cache_length_ = 0;
  std::vector<Layer> layers_;
  LinearOp output_projection_;
  std::vector<const LinearOp*> cross_linears_;  // the cross-attention keys and values (fused)
  std::vector<const LinearOp*> step_linears_;   // the others
};

}  // namespace edgemt
