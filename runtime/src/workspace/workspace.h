// Every activation buffer a translator uses, carved out of one arena.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "decoding/alternatives.h"
#include "decoding/beam_search.h"
#include "decoding/decoding_job.h"
#include "decoding/greedy.h"
#include "edgemt/model_config.h"
#include "ops/output_columns.h"
#include "shortlist/shortlist_rows.h"

namespace edgemt {

// The sizes a memory plan is made for.
struct Limits {
  size_t batch = 1;
  size_t source = 1;  // longest source, </s> included
  size_t target = 1;  // most output ids (= decoder steps)
  size_t beam = 1;    // hypotheses per sentence
  size_t threads = 1; // the pool's threads (each has its own attention scratch)
  size_t shortlist = 0;  // the most target ids a source's shortlist can have; 0: the model has none
  size_t gathered_shortlist = 0;  // arena bytes for sources' shortlisted weight rows (ShortlistedProjection::Gather)
};

// Buffers of one stack (encoder or decoder) for `rows` rows at a time.
struct StackBuffers {
  float* x = nullptr;       // [rows, d] the residual stream
  float* normed = nullptr;  // [rows, d] pre-LN input of a sub-block
  float* qkv = nullptr;     // [rows, 3d] self-attention query, key, value side by side
  float* q = nullptr;       // [rows, d] cross-attention query (decoder only)
  float* context = nullptr; // [rows, d] attention output before its projection
  float* projected = nullptr; // [rows, d] a sub-block's output
  float* hidden = nullptr;  // [rows, d_ff]
  float* scores = nullptr;  // [threads, scores_stride] each thread's attention scores, all heads
  float* mean_weights = nullptr;  // [threads, scores_stride] cross-attention averaged over heads (decoder)
  // Floats from one thread's scores to the next: the heads times the longest
  // key sequence, rounded up to whole cache lines (threads writing scores in
  // one line took turns for it: the encoder's attention ran slower on 2
  // threads than on 1).
  size_t scores_stride = 0;
  int8_t* input8 = nullptr;   // int8 GEMM input rows [rows, max(d, d_ff)]
  xnn_quantization_params* input8_params = nullptr;  // [rows + kQuantizationParamsPadding]
};

// The floats between two rows of keys or values that attention reads: the
// row's own floats and 16 more. Rows a multiple of 4 kB apart (2d floats at
// d = 512) put a head's columns of every key in the same L1 cache set, of
// which only 12 lines stay cached: the weighted sum of the values ran at
// half speed over a 22-word source.
inline size_t AttentionRowStride(size_t floats) { return floats + 16; }
inline size_t CrossKeyValueStride(size_t d) { return AttentionRowStride(2 * d); }  // keys and values side by side
inline size_t SelfHistoryStride(size_t d) { return AttentionRowStride(d); }

struct Workspace {
  // Persistent for a whole translation.
  float* memory = nullptr;            // [batch * source, d] encoder output
  // Per decoder layer, tables in the arena too:
  float** cross_kv = nullptr;         // [batch * source, CrossKeyValueStride(d)]: keys, values
  float** self_keys = nullptr;        // [batch * beam, target, SelfHistoryStride(d)]
  float** self_values = nullptr;
  // [batch * beam, target]: for the hypothesis in each history slot, the row
  // (slot * target + position) of self_keys and self_values that holds each
  // of its positions. Branches of one parent list the same rows (Decoder::CopyHistory).
  int32_t* self_history = nullptr;
  // An SSRU decoder has no history (the three above are empty) but, per
  // layer, each history slot's cell: [batch * beam, d].
  float** ssru_cells = nullptr;
  uint8_t* key_mask = nullptr;        // [batch * source] 1 = a real source token
  float* positions = nullptr;         // [max(source, target), d] sinusoidal table
  float* logits = nullptr;            // [batch * beam, target_vocab]
  DecodingScratch decoding;           // both decoding loops
  GreedyBuffers greedy;
  BeamBuffers beams;                  // beam search only (beam > 1)
  AlternativeBuffers alternatives;
  // With a shortlist (Limits::shortlist > 0; docs/shortlist.md).
  int32_t* shortlist_ids = nullptr;         // [batch, Limits::shortlist] each source's target ids
  OutputColumns* source_columns = nullptr;  // [batch] views of them
  ShortlistRows* source_lists = nullptr;    // [batch] where each source's weight rows are read
  ShortlistRows* row_lists = nullptr;       // [batch * beam] a decoder step's rows'
  uint8_t* gathered_rows = nullptr;         // [Limits::gathered_shortlist] bytes: sources' rows side by side
  uint8_t* shortlist_seen = nullptr;        // [target vocab] all 0 between uses
  int16_t* shortlist_centered = nullptr;    // [batch * beam, d] the projection's quantized input, centered
  uint32_t* shortlist_groups = nullptr;     // [batch * beam + 1]
  float* unlisted_log_mass = nullptr;       // [batch * beam] a step's rows' (ops/unlisted_mass.h)
  // Phase buffers: the encoder's are dead once decoding starts.
  StackBuffers encoder;  // rows = batch * source
  StackBuffers decoder;  // rows = batch * beam

  // Plans every buffer above into `layout`; Bind the layout to fill them.
  void Plan(const ModelConfig& config, bool int8, const Limits& limits, ArenaLayout* layout);
};

}  // namespace edgemt
