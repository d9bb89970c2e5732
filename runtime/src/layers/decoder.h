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

  // Feeds tokens[i] at position `step` for each of `count` sentences and
  // writes workspace.logits [count, vocab]. Afterwards projection_input()
  // holds the rows the output projection read (for int8 rescoring).
  // With `float_logits` false and an int8 projection, only the int8 logits
  // (workspace.decoder.output8) are written.
  Status Step(const int32_t* tokens, size_t count, size_t step, size_t source_length, bool float_logits,
              Workspace& workspace, const RunContext& context) const;

  // Whether PrepareCrossAttention over `rows` rows (count x source length),
  // or a Step over `count` sentences, uses the thread pool.
  bool CrossAttentionRunsInParallel(size_t rows) const { return AnyRunsInParallel(cross_linears_, rows); }
  bool StepRunsInParallel(size_t count) const { return AnyRunsInParallel(step_linears_, count); }

  const LinearOp& output_projection() const { return output_projection_; }
  // Rows [count, d] the last Step fed to the output projection.
  const float* projection_input(const Workspace& workspace) const;

 private:
  struct Layer {
    AttentionOps self_attention;
    LayerNormView self_attention_norm;
    AttentionOps cross_attention;
    LayerNormView cross_attention_norm;
    FeedForwardOps feed_forward;
    LayerNormView feed_forward_norm;
  };
  const ModelWeights* weights_ = nullptr;
  size_t cache_length_ = 0;
  std::vector<Layer> layers_;
  LinearOp output_projection_;
  std::vector<const LinearOp*> cross_linears_;  // the cross-attention keys and values
  std::vector<const LinearOp*> step_linears_;   // the others
};

}  // namespace edgemt
