#include "layers/decoder.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "ops/attention.h"
#include "ops/embedding.h"
#include "ops/layer_norm.h"
#include "ops/profiler.h"
#include "ops/ssru_cell.h"
#include "shortlist/unlisted_mass.h"
#include "base/thread_pool.h"

namespace edgemt {

Status Decoder::Configure(const ModelWeights& weights, size_t history_length, LinearOpList* to_pack) {
  weights_ = &weights;
  ssru_ = weights.config.decoder_block == DecoderBlock::kSSRU;
  history_length_ = history_length;
  const size_t first = to_pack->size();
  const size_t count = weights.decoder_layers.size();
  if (!layers_.Allocate(count) || !cross_linears_.Allocate(count) || !step_linears_.Allocate((kLinearsPerLayer - 1) * count + 1))
    return Status(StatusCode::kResourceExhausted, "out of memory");
  auto full = [] { return Status(StatusCode::kInternal, "the list of layers to pack is too short"); };
  for (size_t i = 0; i < layers_.size(); ++i) {
    const DecoderLayerView& view = weights.decoder_layers[i];
    Layer& layer = layers_[i];
    const bool first_block = ssru_ ? layer.ssru.Configure(view.ssru, "decoder SSRU", to_pack)
                                   : layer.self_attention.Configure(view.self_attention, "decoder self-attention", to_pack);
    if (!first_block || !layer.cross_attention.Configure(view.cross_attention, "decoder cross-attention", to_pack) ||
        !layer.feed_forward.Configure(view.feed_forward, weights.config.activation, "decoder feed-forward", to_pack))
      return full();
    layer.self_attention_norm = view.self_attention_norm;
    layer.cross_attention_norm = view.cross_attention_norm;
    layer.feed_forward_norm = view.feed_forward_norm;
  }
  output_projection_.Configure(weights.output_projection, false, "output projection");
  shortlisted_projection_.Configure(weights.output_projection);
  if (!to_pack->push_back(&output_projection_)) return full();
  // The cross-attention keys and values run once per source; every other
  // layer runs in each step.
  for (const Layer& layer : layers_) cross_linears_.push_back(&layer.cross_attention.key_value);
  for (size_t i = first; i < to_pack->size(); ++i) {
    const LinearOp* linear = (*to_pack)[i];
    if (std::find(cross_linears_.begin(), cross_linears_.end(), linear) == cross_linears_.end())
      step_linears_.push_back(linear);
  }
  return Status::Ok();
}

Status Decoder::PrepareShortlist() { return shortlisted_projection_.Create(); }

Status Decoder::PrepareCrossAttention(size_t count, size_t source_length, Workspace& workspace,
                                      const RunContext& context) const {
  const size_t rows = count * source_length;
  const LinearScratch scratch = ScratchOf(workspace.encoder);
  for (size_t i = 0; i < layers_.size(); ++i) {
    EDGEMT_RETURN_IF_ERROR(layers_[i].cross_attention.key_value.Run(workspace.memory, rows, workspace.cross_kv[i],
                                                                     scratch, context.pool, context.profile));
  }
  return Status::Ok();
}

Status Decoder::Step(const int32_t* tokens, const int32_t* slots, size_t count, size_t per_source, size_t step,
                     size_t source_length, Workspace& workspace, const RunContext& context,
                     const AlignmentRequest* alignment, const ShortlistRows* shortlists) const {
  const ModelConfig& config = weights_->config;
  const size_t d = static_cast<size_t>(config.d_model);
  const bool pre_norm = config.norm == NormPlacement::kPreLN;
  const float eps = config.layer_norm_epsilon;
  const StackBuffers& b = workspace.decoder;
  const LinearScratch scratch = ScratchOf(b);
  // Attention rows go to the pool when the step's products do (its workers are awake then).
  const bool parallel = StepRunsInParallel(count);

  Embed(tokens, count, step, workspace, context);

  // Runs one attention sub-block's input side: pre-LN normalisation.
  auto sub_block_input = [&](const LayerNormView& norm) -> const float* {
    if (!pre_norm) return b.x;
    ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
    LayerNorm(b.x, count, d, norm.gamma, norm.beta, eps, b.normed);
    return b.normed;
  };
  // And its output side: residual sum, post-LN normalisation.
  auto sub_block_output = [&](const LayerNormView& norm) {
    ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
    if (pre_norm) {
      for (size_t i = 0; i < count * d; ++i) b.x[i] += b.projected[i];
    } else {
      AddLayerNorm(b.x, b.projected, count, d, norm.gamma, norm.beta, eps, b.x);
    }
  };

  for (size_t r = 0; !ssru_ && r < count; ++r) {  // each row's key and value at `step` go to its own slot's row
    const size_t own_row = static_cast<size_t>(slots[r]) * history_length_ + step;
    workspace.self_history[own_row] = static_cast<int32_t>(own_row);
  }
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];

    const float* in = sub_block_input(layer.self_attention_norm);
    if (ssru_) {
      EDGEMT_RETURN_IF_ERROR(RunSSRU(l, in, slots, count, step, workspace, context));
    } else {
      EDGEMT_RETURN_IF_ERROR(
          layer.self_attention.query_key_value.Run(in, count, b.qkv, scratch, context.pool, context.profile));
      AttendSelf(l, slots, count, step, parallel, workspace, context);
      EDGEMT_RETURN_IF_ERROR(
          layer.self_attention.output.Run(b.context, count, b.projected, scratch, context.pool, context.profile));
    }
    sub_block_output(layer.self_attention_norm);

    in = sub_block_input(layer.cross_attention_norm);
    EDGEMT_RETURN_IF_ERROR(layer.cross_attention.query.Run(in, count, b.q, scratch, context.pool, context.profile));
    AttendCross(l, slots, count, per_source, source_length, parallel, workspace, context,
                alignment != nullptr && alignment->layer == l ? alignment->positions : nullptr);
    EDGEMT_RETURN_IF_ERROR(layer.cross_attention.output.Run(b.context, count, b.projected, scratch, context.pool, context.profile));
    sub_block_output(layer.cross_attention_norm);

    in = sub_block_input(layer.feed_forward_norm);
    EDGEMT_RETURN_IF_ERROR(layer.feed_forward.Run(in, count, b.projected, b, context));
    sub_block_output(layer.feed_forward_norm);
  }

  if (pre_norm) {
    ScopedTimer timer(context.profile, TimeCategory::kLayerNorm);
    LayerNorm(b.x, count, d, weights_->decoder_final_norm.gamma, weights_->decoder_final_norm.beta, eps, b.normed);
  }
  const float* last = pre_norm ? b.normed : b.x;
  if (shortlists == nullptr) return output_projection_.Run(last, count, workspace.logits, scratch, context.pool, context.profile);
  for (size_t r = 0; r < count; ++r) workspace.row_lists[r] = shortlists[static_cast<size_t>(slots[r]) / per_source];
  const ShortlistScratch shortlist_scratch{scratch, workspace.shortlist_centered, workspace.shortlist_groups};
  const size_t vocab = static_cast<size_t>(config.target_vocab_size);
  EDGEMT_RETURN_IF_ERROR(shortlisted_projection_.Run(last, count, workspace.row_lists, workspace.logits, vocab,
                                                     shortlist_scratch, context.pool, context.profile));
  EstimateUnlistedMass(last, count, workspace);
  return Status::Ok();
}

void Decoder::EstimateUnlistedMass(const float* last, size_t count, Workspace& workspace) const {
  const ShortlistView& shortlist = weights_->shortlist;
  const size_t d = static_cast<size_t>(weights_->config.d_model);
  const size_t vocab = static_cast<size_t>(weights_->config.target_vocab_size);
  for (size_t r = 0; r < count; ++r) {
    workspace.unlisted_log_mass[r] =
        UnlistedLogMass(last + r * d, d, shortlist.output_row_sum, shortlist.output_bias_sum,
                        workspace.logits + r * vocab, workspace.row_lists[r].count, vocab);
  }
}

namespace {

// From this many keys on, a row's heads are split between threads (see
// HeadGroups): below it the split costs more than it saves
// (tests/bench/ANALYSIS.md, "Thresholds in the code").
constexpr size_t kSplitHeadsFrom = 48;

// The groups of heads each row's attention is split into, each group a task
// of its own: more than one only when the rows are fewer than the pool's
// threads and the keys many enough (kSplitHeadsFrom) that a core's share of
// reading them pays for the split. A head's result does not depend on the
// others', so the split keeps every bit.
size_t HeadGroups(pthreadpool_t pool, bool parallel, size_t rows, size_t keys, size_t heads) {
  if (!parallel || pool == nullptr || keys < kSplitHeadsFrom) return 1;
  const size_t threads = pthreadpool_get_threads_count(pool);
  if (rows >= threads) return 1;
  size_t groups = std::min(heads, (threads + rows - 1) / rows);  // a task for every thread
  while (heads % groups != 0) --groups;
  return groups;
}

// The position of the largest weight among a source's real keys (mask 1),
// its first (when it is <s>) and last (</s>) left out unless nothing else is.
int32_t AlignedPosition(const float* weights, const uint8_t* mask, size_t length, bool first_is_bos) {
  size_t end = length;
  while (end > 0 && mask[end - 1] == 0) --end;  // padding comes last
  size_t lo = first_is_bos ? 1 : 0, hi = end > 0 ? end - 1 : 0;
  if (lo >= hi) {
    lo = 0;
    hi = end;
  }
  size_t best = lo;
  for (size_t j = lo + 1; j < hi; ++j) {
    if (weights[j] > weights[best]) best = j;
  }
  return static_cast<int32_t>(best);
}

}  // namespace

void Decoder::AttendSelf(size_t l, const int32_t* slots, size_t count, size_t step, bool parallel,
                         Workspace& workspace, const RunContext& context) const {
  ScopedTimer timer(context.profile, TimeCategory::kAttention);
  const size_t d = static_cast<size_t>(weights_->config.d_model);
  const size_t heads = static_cast<size_t>(weights_->config.num_heads);
  const size_t stride = SelfHistoryStride(d);
  const size_t groups = HeadGroups(context.pool, parallel, count, step + 1, heads);
  const size_t width = d / groups;  // a group's columns
  const AttentionShape shape{heads / groups, d / heads, stride};  // the history's rows
  const StackBuffers& b = workspace.decoder;
  float* history_keys = workspace.self_keys[l];
  float* history_values = workspace.self_values[l];
  auto attend = [&](size_t thread, size_t task) {  // head group g of row s
    const size_t s = task / groups, at = task % groups * width;
    const float* qkv = b.qkv + s * 3 * d;
    const size_t first_row = static_cast<size_t>(slots[s]) * history_length_;
    // A group stores, then reads, only its own columns of the history.
    std::memcpy(history_keys + (first_row + step) * stride + at, qkv + d + at, width * sizeof(float));
    std::memcpy(history_values + (first_row + step) * stride + at, qkv + 2 * d + at, width * sizeof(float));
    // Causal by construction: the history lists positions 0..step only.
    const KeyValueRows kv{history_keys + at, history_values + at, step + 1, nullptr, workspace.self_history + first_row};
    AttendOneQuery(shape, qkv + at, kv, b.scores + thread * b.scores_stride, b.context + s * d + at);
  };
  ParallelFor(context.pool, parallel, count * groups, attend);
}

void Decoder::Embed(const int32_t* tokens, size_t count, size_t step, Workspace& workspace,
                    const RunContext& context) const {
  ScopedTimer timer(context.profile, TimeCategory::kEmbedding);
  const ModelConfig& config = weights_->config;
  const size_t d = static_cast<size_t>(config.d_model);
  float* x = workspace.decoder.x;
  const float* positions = weights_->target_positions != nullptr ? weights_->target_positions : workspace.positions;
  if (step == 0 && config.decoder_starts_from_zero) {
    for (size_t s = 0; s < count; ++s) std::memcpy(x + s * d, positions, d * sizeof(float));  // 0 * scale + P[0]
  } else {
    for (size_t s = 0; s < count; ++s)
      EmbedToken(weights_->target_embedding, tokens[s], config.embedding_scale, positions + step * d, x + s * d);
  }
  const LayerNormView& norm = weights_->decoder_embedding_norm;
  if (norm.gamma != nullptr) LayerNorm(x, count, d, norm.gamma, norm.beta, config.layer_norm_epsilon, x);
}

Status Decoder::RunSSRU(size_t l, const float* in, const int32_t* slots, size_t count, size_t step,
                        Workspace& workspace, const RunContext& context) const {
  const StackBuffers& b = workspace.decoder;
  const size_t d = static_cast<size_t>(weights_->config.d_model);
  EDGEMT_RETURN_IF_ERROR(layers_[l].ssru.transform_forget.Run(in, count, b.qkv, ScratchOf(b), context.pool, context.profile));
  ScopedTimer timer(context.profile, TimeCategory::kOther);
  for (size_t r = 0; r < count; ++r) {
    float* cell = workspace.ssru_cells[l] + static_cast<size_t>(slots[r]) * d;
    if (step == 0) std::memset(cell, 0, d * sizeof(float));  // c before the first step
    SSRUCellStep(b.qkv + r * 2 * d, d, cell, b.projected + r * d);
  }
  return Status::Ok();
}

void Decoder::AttendCross(size_t l, const int32_t* slots, size_t count, size_t per_source, size_t source_length,
                          bool parallel, Workspace& workspace, const RunContext& context, int32_t* alignments) const {
  ScopedTimer timer(context.profile, TimeCategory::kAttention);
  const size_t d = static_cast<size_t>(weights_->config.d_model);
  const size_t heads = static_cast<size_t>(weights_->config.num_heads);
  const size_t stride = CrossKeyValueStride(d);
  // Alignments average the weights over all heads: one task a row then.
  const size_t groups = alignments != nullptr ? 1 : HeadGroups(context.pool, parallel, count, source_length, heads);
  const size_t width = d / groups;  // a group's columns
  const AttentionShape shape{heads / groups, d / heads, stride};  // the fused key/value rows
  const StackBuffers& b = workspace.decoder;
  auto attend = [&](size_t thread, size_t task) {  // head group g of row s
    const size_t s = task / groups, at = task % groups * width;
    const size_t first = (static_cast<size_t>(slots[s]) / per_source) * source_length;
    const float* kv = workspace.cross_kv[l] + first * stride + at;
    float* mean = alignments != nullptr ? b.mean_weights + thread * b.scores_stride : nullptr;
    const KeyValueRows keys_values{kv, kv + d, source_length, workspace.key_mask + first};
    AttendOneQuery(shape, b.q + s * d + at, keys_values, b.scores + thread * b.scores_stride, b.context + s * d + at,
                   mean);
    if (mean != nullptr)
      alignments[s] = AlignedPosition(mean, workspace.key_mask + first, source_length, weights_->config.source_bos);
  };
  ParallelFor(context.pool, parallel, count * groups, attend);
}

void Decoder::CopyHistory(size_t from, size_t to, size_t positions, Workspace& workspace) const {
  if (ssru_) {
    const size_t d = static_cast<size_t>(weights_->config.d_model);
    for (size_t l = 0; l < layers_.size(); ++l)
      std::memcpy(workspace.ssru_cells[l] + to * d, workspace.ssru_cells[l] + from * d, d * sizeof(float));
    return;
  }
  const int32_t* source = workspace.self_history + from * history_length_;
  std::memcpy(workspace.self_history + to * history_length_, source, positions * sizeof(int32_t));
}

}  // namespace edgemt
