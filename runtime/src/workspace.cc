#include "workspace.h"

#include <algorithm>

#include "ops/quantization_params.h"

namespace edgemt {
namespace {

// `cross_attention`: the stack has cross-attention (the decoder), whose
// query needs a buffer of its own.
void PlanStack(size_t rows, size_t d, size_t d_ff, size_t longest_keys, size_t threads, bool cross_attention,
               bool int8, StackBuffers* buffers, ArenaLayout* layout) {
  layout->Add(&buffers->x, rows * d);
  layout->Add(&buffers->normed, rows * d);
  layout->Add(&buffers->qkv, rows * 3 * d);
  if (cross_attention) layout->Add(&buffers->q, rows * d);
  layout->Add(&buffers->context, rows * d);
  layout->Add(&buffers->projected, rows * d);
  layout->Add(&buffers->hidden, rows * d_ff);
  layout->Add(&buffers->scores, threads * longest_keys);
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
  const size_t vocab = static_cast<size_t>(config.target_vocab_size);
  const size_t layers = static_cast<size_t>(config.decoder_layers);
  const size_t source_rows = limits.batch * limits.source;
  const size_t rows = limits.batch * limits.beam;  // hypotheses
  const size_t cache_rows = rows * limits.target;

  layout->Add(&memory, source_rows * d);
  cross_kv.assign(layers, nullptr);
  self_keys.assign(layers, nullptr);
  self_values.assign(layers, nullptr);
  for (size_t i = 0; i < layers; ++i) {
    layout->Add(&cross_kv[i], source_rows * 2 * d);
    layout->Add(&self_keys[i], cache_rows * d);
    layout->Add(&self_values[i], cache_rows * d);
  }
  layout->Add(&key_mask, source_rows);
  if (config.position_encoding != PositionEncoding::kLearned)
    layout->Add(&positions, std::max(limits.source, limits.target) * d);
  layout->Add(&logits, rows * vocab);
  layout->Add(&output_ids, limits.batch * limits.target);
  layout->Add(&output_log_probs, limits.batch * (limits.target + 1));
  layout->Add(&step_tokens, rows);
  layout->Add(&row_tokens, rows);
  layout->Add(&row_slots, rows);
  layout->Add(&output_lengths, limits.batch);
  layout->Add(&finished, limits.batch);
  layout->Add(&sampler_states, limits.batch);
  layout->Add(&sample_probs, vocab);
  layout->Add(&sample_ids, vocab);
  if (limits.beam > 1) {
    const size_t t = limits.target;
    layout->Add(&live, limits.batch);
    layout->Add(&cache_scratch, limits.beam * t * d);
    beams.max_length = t;
    layout->Add(&beams.cumulative, rows);
    layout->Add(&beams.parent, rows);
    for (int i = 0; i < 2; ++i) {
      layout->Add(&beams.ids[i], rows * t);
      layout->Add(&beams.log_probs[i], rows * t);
    }
    layout->Add(&beams.candidate_scores, 2 * limits.beam);
    layout->Add(&beams.candidate_rows, 2 * limits.beam);
    layout->Add(&beams.candidate_tokens, 2 * limits.beam);
    layout->Add(&beams.finished_ids, rows * (t + 1));
    layout->Add(&beams.finished_log_probs, rows * (t + 1));
    layout->Add(&beams.finished_lengths, rows);
    layout->Add(&beams.finished_eos, rows);
    layout->Add(&beams.finished_scores, rows);
    layout->Add(&beams.finished_count, limits.batch);
    layout->Add(&beams.order, rows);
  }

  layout->BeginPhase();
  PlanStack(source_rows, d, d_ff, limits.source, limits.threads, /*cross_attention=*/false, int8, &encoder, layout);
  layout->BeginPhase();
  PlanStack(rows, d, d_ff, std::max(limits.source, limits.target), limits.threads, /*cross_attention=*/true, int8, &decoder, layout);
}

}  // namespace edgemt
