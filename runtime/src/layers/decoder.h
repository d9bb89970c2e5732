// The decoder stack, one step at a time: masked self-attention over a
// key/value history (or Marian's SSRU, whose state is a vector per
// hypothesis), cross-attention over keys and values computed once per
// batch, feed-forward blocks and the output projection.
#pragma once

#include "layers/blocks.h"
#include "ops/output_columns.h"
#include "shortlist/shortlisted_projection.h"

namespace edgemt {

// A step's alignments: for each row, the source position that the
// cross-attention of decoder layer `layer`, averaged over its heads, weighs
// most. The source's </s> (its last position) and, when the model frames
// sources with <s>, its first are left out unless nothing else is there:
// they hold no word.
struct AlignmentRequest {
  size_t layer = 0;
  int32_t* positions = nullptr;  // [rows]
};

class Decoder {
 public:
  // The operators a layer adds to `to_pack` (the output projection comes once more).
  static constexpr size_t kLinearsPerLayer =
      SelfAttentionOps::kLinears + CrossAttentionOps::kLinears + FeedForwardOps::kLinears;
  // `history_length` is the number of steps the self-attention history holds.
  // Adds the linear layers to `to_pack`, as Encoder::Configure.
  Status Configure(const ModelWeights& weights, size_t history_length, LinearOpList* to_pack);

  // Projects workspace.memory ([count * source_length, d]) to every layer's
  // cross-attention keys and values. Uses the encoder's scratch buffers.
  Status PrepareCrossAttention(size_t count, size_t source_length, Workspace& workspace,
                               const RunContext& context) const;

  // Feeds tokens[r] at position `step` for each of `count` rows and writes
  // workspace.logits [count, vocab]. Row r continues the hypothesis in
  // history slot slots[r], which translates source
  // slots[r] / per_source (beam search: a source's beams share its
  // cross-attention). Only the unfinished hypotheses need rows: the slots
  // say whose histories they are, so nothing moves when one finishes.
  // With `alignment`, also records each row's aligned source position.
  // With `shortlists` (one per source, the model's shortlist in use), row r
  // gets logits for shortlists[slots[r] / per_source]'s ids only, in its
  // first columns (docs/shortlist.md).
  Status Step(const int32_t* tokens, const int32_t* slots, size_t count, size_t per_source, size_t step,
              size_t source_length, Workspace& workspace, const RunContext& context,
              const AlignmentRequest* alignment = nullptr, const ShortlistRows* shortlists = nullptr) const;

  // Creates what the shortlisted projection needs (models with a shortlist).
  Status PrepareShortlist();
  // A source's shortlist as Step reads it: its output-projection rows
  // gathered into `buffer` where they fit (ShortlistedProjection::Gather).
  ShortlistRows GatherShortlist(const OutputColumns& list, uint8_t* buffer, size_t capacity, size_t* used) const {
    return shortlisted_projection_.Gather(list, buffer, capacity, used);
  }

  // Beam search: the hypothesis in history slot `to` takes the
  // first `positions` positions of the one in slot `from`: their list of
  // history rows (Workspace::self_history), not the keys and values. A row is
  // written once, at its position's step, so branches share their past.
  // An SSRU decoder's slot takes the other's cells instead (d floats a layer).
  void CopyHistory(size_t from, size_t to, size_t positions, Workspace& workspace) const;

  // Whether PrepareCrossAttention over `rows` rows (count x source length),
  // or a Step over `count` sentences, uses the thread pool.
  bool CrossAttentionRunsInParallel(size_t rows) const { return AnyRunsInParallel(cross_linears_, rows); }
  bool StepRunsInParallel(size_t count) const { return AnyRunsInParallel(step_linears_, count); }

 private:
  struct Layer {
    SelfAttentionOps self_attention;  // or
    SSRUOps ssru;
    LayerNormView self_attention_norm;
    CrossAttentionOps cross_attention;
    LayerNormView cross_attention_norm;
    FeedForwardOps feed_forward;
    LayerNormView feed_forward_norm;
  };
  // Each row's estimated log-mass of the ids outside its shortlist into
  // workspace.unlisted_log_mass (-infinity when the file has no output sums).
  void EstimateUnlistedMass(const float* last, size_t count, Workspace& workspace) const;
  // Layer l's self-attention for each row: stores the step's key and value
  // in its slot's row for `step`, then attends the rows of its history.
  void AttendSelf(size_t l, const int32_t* slots, size_t count, size_t step, bool parallel, Workspace& workspace,
                  const RunContext& context) const;
  // Each row's input embedding into workspace.decoder.x (Marian's first
  // step: zeros, plus the position).
  void Embed(const int32_t* tokens, size_t count, size_t step, Workspace& workspace, const RunContext& context) const;
  // Layer l's SSRU for each row: its slot's cell takes the step, the
  // block's output goes to workspace.decoder.projected.
  Status RunSSRU(size_t l, const float* in, const int32_t* slots, size_t count, size_t step, Workspace& workspace,
                 const RunContext& context) const;
  // Layer l's cross-attention for each row, over its source's keys and values.
  void AttendCross(size_t l, const int32_t* slots, size_t count, size_t per_source, size_t source_length,
                   bool parallel, Workspace& workspace, const RunContext& context, int32_t* alignments) const;

  const ModelWeights* weights_ = nullptr;
  bool ssru_ = false;  // ModelConfig::decoder_block
  size_t history_length_ = 0;
  FixedArray<Layer> layers_;
  LinearOp output_projection_;
  ShortlistedProjection shortlisted_projection_;  // the same weights, over a shortlist's rows
  ConstLinearOpList cross_linears_;  // the cross-attention keys and values (fused)
  ConstLinearOpList step_linears_;   // the others
};

}  // namespace edgemt
