#include "layers/encoder.h"

#include <cstddef>
#include <cstring>

#include "ops/attention.h"
#include "ops/embedding.h"
#include "ops/layer_norm.h"
#include "ops/sequence_attention.h"
#include "ops/profiler.h"
#include "base/thread_pool.h"

namespace edgemt {

Status Encoder::Configure(const ModelWeights& weights, LinearOpList* to_pack) {
  weights_ = &weights;
  const size_t first = to_pack->size();
  if (!layers_.Allocate(weights.encoder_layers.size()) || !linears_.Allocate(kLinearsPerLayer * weights.encoder_layers.size()))
    return Status(StatusCode::kResourceExhausted, "out of memory");
  for (size_t i = 0; i < layers_.size(); ++i) {
    const EncoderLayerView& view = weights.encoder_layers[i];
    if (!layers_[i].self_attention.Configure(view.self_attention, "encoder self-attention", to_pack) ||
        !layers_[i].feed_forward.Configure(view.feed_forward, weights.config.activation, "encoder feed-forward", to_pack))
      return Status(StatusCode::kInternal, "the list of layers to pack is too short");
    layers_[i].self_attention_norm = view.self_attention_norm;
    layers_[i].feed_forward_norm = view.feed_forward_norm;
  }
  for (size_t i = first; i < to_pack->size(); ++i) linears_.push_back((*to_pack)[i]);
  return Status::Ok();
}

namespace {

// Self-attention of `count` sentences of `length` positions each, read from
// the fused projection b.qkv into b.context. Both forms give the same bits;
// each is the faster one at its lengths.
void AttendSentences(const AttentionShape& shape, const StackBuffers& b, const uint8_t* key_mask, size_t count,
                     size_t length, bool parallel, pthreadpool_t pool) {
  const size_t heads = shape.num_heads, d = heads * shape.d_head;
  if (length >= kSequenceAttentionFrom) {
    auto attend = [&](size_t thread, size_t task) {  // head h of sentence s
      const size_t s = task / heads, h = task % heads;
      AttendSequenceHead(shape, h, b.qkv + s * length * 3 * d, d, 2 * d, length, key_mask + s * length,
                         b.scores + thread * b.scores_stride, b.context + s * length * d, d);
    };
    ParallelFor(pool, parallel, count * heads, attend);
    return;
  }
  auto attend = [&](size_t thread, size_t row) {  // query i of sentence s
    const size_t s = row / length, i = row % length;
    const float* sentence = b.qkv + s * length * 3 * d;
    const KeyValueRows kv{sentence + d, sentence + 2 * d, length, key_mask + s * length};
    AttendOneQuery(shape, sentence + i * 3 * d, kv, b.scores + thread * b.scores_stride, b.context + row * d);
  };
  ParallelFor(pool, parallel, count * length, attend);
}

}  // namespace

Status Encoder::Run(const TokenIds* sources, size_t count, size_t length, Workspace& workspace,
                    const RunContext& context) const {
  const ModelConfig& config = weights_->config;
  const size_t d = static_cast<size_t>(config.d_model);
  const size_t rows = count * length;
  // Attention rows go to the pool when the products do (its workers are awake then).
  const bool parallel = RunsInParallel(rows);
  const bool pre_norm = config.norm == NormPlacement::kPreLN;
  const float eps = config.layer_norm_epsilon;
  const StackBuffers& b = workspace.encoder;
  const LinearScratch scratch = ScratchOf(b);

  {
    ScopedTimer timer(context.profile, TimeCategory::kEmbedding);
    const float* positions = weights_->source_positions != nullptr ? weights_->source_positions : workspace.positions;
    for (size_t s = 0; s < count; ++s) {
      for (size_t i = 0; i < length; ++i) {
        const bool real = i < sources[s].size;
        const int32_t id = real ? sources[s].data[i] : config.pad_id;
        // As the reference: the padding after a source never receives
        // attention, its own ids always do (Marian's pad id is its </s>).
        workspace.key_mask[s * length + i] = real ? 1 : 0;
        EmbedToken(weights_->source_embedding, id, config.embedding_scale, positions + i * d, b.x + (s * length + i) * d);
      }
    }
    const LayerNormView& norm = weights_->encoder_embedding_norm;
    if (norm.gamma != nullptr) LayerNorm(b.x, rows, d, norm.gamma, norm.beta, eps, b.x);
  }

  // Keys and values are read in place from the fused [rows, 3d] projection.
  const AttentionShape shape{static_cast<size_t>(config.num_heads), d / static_cast<size_t>(config.num_heads), 3 * d};
  for (const Layer& layer : layers_) {
    // Self-attention sub-block.
    const float* in = b.x;
    if (pre_norm) {
      ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
      LayerNorm(b.x, rows, d, layer.self_attention_norm.gamma, layer.self_attention_norm.beta, eps, b.normed);
      in = b.normed;
    }
    EDGEMT_RETURN_IF_ERROR(
        layer.self_attention.query_key_value.Run(in, rows, b.qkv, scratch, context.pool, context.profile));
    {
      ScopedTimer timer(context.profile, TimeCategory::kAttention);
      AttendSentences(shape, b, workspace.key_mask, count, length, parallel, context.pool);
    }
    EDGEMT_RETURN_IF_ERROR(layer.self_attention.output.Run(b.context, rows, b.projected, scratch, context.pool, context.profile));
    {
      ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
      if (pre_norm) {
        for (size_t i = 0; i < rows * d; ++i) b.x[i] += b.projected[i];
        LayerNorm(b.x, rows, d, layer.feed_forward_norm.gamma, layer.feed_forward_norm.beta, eps, b.normed);
      } else {
        AddLayerNorm(b.x, b.projected, rows, d, layer.self_attention_norm.gamma, layer.self_attention_norm.beta, eps, b.x);
      }
    }
    // Feed-forward sub-block.
    EDGEMT_RETURN_IF_ERROR(layer.feed_forward.Run(pre_norm ? b.normed : b.x, rows, b.projected, b, context));
    {
      ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
      if (pre_norm) {
        for (size_t i = 0; i < rows * d; ++i) b.x[i] += b.projected[i];
      } else {
        AddLayerNorm(b.x, b.projected, rows, d, layer.feed_forward_norm.gamma, layer.feed_forward_norm.beta, eps, b.x);
      }
    }
  }
  ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
  if (pre_norm) {
    LayerNorm(b.x, rows, d, weights_->encoder_final_norm.gamma, weights_->encoder_final_norm.beta, eps, workspace.memory);
  } else {
    std::memcpy(workspace.memory, b.x, rows * d * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace edgemt
