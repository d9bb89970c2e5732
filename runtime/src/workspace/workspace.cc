#include "workspace/workspace.h"

#include <algorithm>

#include "ops/quantization_params.h"
#include "ops/sequence_attention.h"

namespace edgemt {
namespace {

// `cross_attention`: the stack has cross-attention (the decoder), whose
// query needs a buffer of its own.
void PlanStack(size_t rows, size_t d, size_t d_ff, size_t heads, size_t longest_keys, size_t threads,
               bool cross_attention, bool int8, StackBuffers* buffers, ArenaLayout* layout) {
  layout->Add(&buffers->x, rows * d);
  layout->Add(&buffers->normed, rows * d);
  layout->Add(&buffers->qkv, rows * 3 * d);
  if (cross_attention) layout->Add(&buffers->q, rows * d);
  layout->Add(&buffers->context, rows * d);
  layout->Add(&buffers->projected, rows * d);
  layout->Add(&buffers->hidden, rows * d_ff);
  const size_t line = ArenaLayout::kAlignment / sizeof(float);
  // One query's scores of all heads (AttendOneQuery); the encoder attends
  // long sentences a head at a time instead (AttendSequenceHead).
  size_t scores = heads * longest_keys;
  if (!cross_attention && longest_keys >= kSequenceAttentionFrom)
    scores = std::max(scores, SequenceAttentionScratch(d / heads, longest_keys));
  buffers->scores_stride = (scores + line - 1) / line * line;
  layout->Add(&buffers->scores, threads * buffers->scores_stride);
  if (cross_attention) layout->Add(&buffers->mean_weights, threads * buffers->scores_stride);
  if (int8) {
    // XNNPACK's kernels may read XNN_EXTRA_BYTES past their input.
    layout->Add(&buffers->input8, rows * std::max(d, d_ff) + XNN_EXTRA_BYTES);
    layout->Add(&buffers->input8_params, rows + kQuantizationParamsPadding);
  }
}

}  // namespace

void Workspace::Plan(const ModelConfig& config, bool int8, const Limits& limits, ArenaLayout* layout) {
  const size_t d = static_cast<size_t>(config.d_model);
  const size_t d_ff = static_cast<size_t>(config.d_ff);
  const size_t heads = static_cast<size_t>(config.num_heads);
  const size_t vocab = static_cast<size_t>(config.target_vocab_size);
  const size_t layers = static_cast<size_t>(config.decoder_layers);
  const size_t source_rows = limits.batch * limits.source;
  const size_t rows = limits.batch * limits.beam;  // hypotheses
  const bool ssru = config.decoder_block == DecoderBlock::kSSRU;
  const size_t history_rows = ssru ? 0 : rows * limits.target;

  layout->Add(&memory, source_rows * d);
  layout->Add(&cross_kv, layers);
  if (ssru) {
    layout->Add(&ssru_cells, layers);
  } else {
    layout->Add(&self_keys, layers);
    layout->Add(&self_values, layers);
  }
  // Measuring, the tables do not exist yet: their entries are measured in a scratch slot.
  float* measured = nullptr;
  for (size_t i = 0; i < layers; ++i) {
    layout->Add(layout->bound() ? &cross_kv[i] : &measured, source_rows * CrossKeyValueStride(d));
    if (ssru) {
      layout->Add(layout->bound() ? &ssru_cells[i] : &measured, rows * d);
    } else {
      layout->Add(layout->bound() ? &self_keys[i] : &measured, history_rows * SelfHistoryStride(d));
      layout->Add(layout->bound() ? &self_values[i] : &measured, history_rows * SelfHistoryStride(d));
    }
  }
  if (!ssru) layout->Add(&self_history, history_rows);
  layout->Add(&key_mask, source_rows);
  if (config.position_encoding != PositionEncoding::kLearned)
    layout->Add(&positions, std::max(limits.source, limits.target) * d);
  layout->Add(&logits, rows * vocab);
  decoding.Plan(limits.batch, rows, vocab, layout);
  greedy.Plan(limits.batch, limits.target, layout);
  alternatives.Plan(limits.batch, limits.target, layout);
  if (limits.shortlist > 0) {
    layout->Add(&shortlist_ids, limits.batch * limits.shortlist);
    layout->Add(&source_columns, limits.batch);
    layout->Add(&source_lists, limits.batch);
    layout->Add(&row_lists, rows);
    if (limits.gathered_shortlist > 0) layout->Add(&gathered_rows, limits.gathered_shortlist);
    layout->Add(&shortlist_seen, vocab);
    layout->Add(&shortlist_centered, rows * d);
    layout->Add(&shortlist_groups, rows + 1);
    layout->Add(&unlisted_log_mass, rows);
  }
  if (limits.beam > 1) {
    beams.Plan(limits.batch, limits.beam, limits.target, layout);
  }

  layout->BeginPhase();
  PlanStack(source_rows, d, d_ff, heads, limits.source, limits.threads, /*cross_attention=*/false, int8, &encoder,
            layout);
  layout->BeginPhase();
  PlanStack(rows, d, d_ff, heads, std::max(limits.source, limits.target), limits.threads, /*cross_attention=*/true,
            int8, &decoder, layout);
}

}  // namespace edgemt
