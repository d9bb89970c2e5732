// The output projection over a vocabulary shortlist: each row's logits for
// its own list of target ids only, out[r, c] = x[r] . W[ids[c]] + b[ids[c]],
// reading only those rows of the weight (docs/shortlist.md).
//
// XNNPACK packs a whole weight matrix ahead of time and cannot multiply by
// a subset of its rows chosen per sentence, so these loops read the file's
// rows: an int8 or int4 weight with its input quantized per row by
// XNNPACK's own convert (so the logits are those of the full product up to
// the rounding of its last float operations), a float32 weight as it is.
// A sentence's rows are first gathered side by side into the arena, where
// they fit (Gather): every step then reads them in order, as the hardware
// prefetchers expect, instead of waiting on rows scattered through the
// weight, each on its own page (what that saves: tests/bench/ANALYSIS.md,
// "Thresholds in the code"). Rows that share a list
// (a sentence's beams) are computed together, each weight row read once for
// all of them; where the rows stay scattered, those a few ids ahead are
// prefetched; a pool splits a list's columns between its threads.
#pragma once

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstddef>
#include <cstdint>

#include "edgemt/status.h"
#include "edgemt/types.h"
#include "model_file/model_weights.h"
#include "ops/linear.h"
#include "ops/output_columns.h"
#include "shortlist/shortlist_rows.h"

namespace edgemt {

// The most arena bytes a translator sets aside for gathered rows: an
// OPUS-MT-sized sentence's ~1,100 int8 rows take 0.6 MB. A batch's sources
// beyond it are read in place (a plan for every source's longest list would
// be tens of MB at the OPUS-MT shape).
constexpr size_t kMaxGatheredShortlistBytes = size_t{2} << 20;

// The arena bytes that gathering `count` rows of `view` takes: the rows,
// their scales and their biases, each part whole cache lines.
size_t GatheredBytes(const LinearView& view, size_t count);

// Scratch: LinearScratch's quantized rows and parameters, the rows again
// as int16 with their zero point taken off (for the VNNI loop: as bytes + 128,
// in the first half of each row's room), and where each group starts.
struct ShortlistScratch {
  LinearScratch quantized;
  int16_t* centered = nullptr;  // [rows, in]
  uint32_t* group_starts = nullptr;  // [rows + 1]
};

class ShortlistedProjection {
 public:
  ShortlistedProjection() = default;
  ~ShortlistedProjection();
  ShortlistedProjection(const ShortlistedProjection&) = delete;
  ShortlistedProjection& operator=(const ShortlistedProjection&) = delete;

  // The same layer as the full output projection.
  void Configure(const LinearView& view);
  // Creates the input's convert operator (quantized weights only).
  Status Create();

  // The rows of `list` (never the whole vocabulary: ids not null), copied
  // in its order into `buffer` when GatheredBytes fits in `capacity`
  // (`*used` then says how many bytes they took, else 0), or else viewed
  // in place.
  ShortlistRows Gather(const OutputColumns& list, uint8_t* buffer, size_t capacity, size_t* used) const;

  // out[r * out_stride + c] for c < lists[r].count: row r's logits for the
  // target ids of its list.
  Status Run(const float* in, size_t rows, const ShortlistRows* lists, float* out, size_t out_stride,
             const ShortlistScratch& scratch, pthreadpool_t pool, TranslationProfile* profile) const;

 private:
  // XNNPACK's quantization of the input rows, then each row in the layout
  // its loop reads (scratch.centered).
  Status QuantizeInput(const float* in, size_t rows, bool vnni, const ShortlistScratch& scratch) const;

  LinearView view_;
  xnn_operator_t quantize_op_ = nullptr;
  mutable size_t reshaped_rows_ = 0;
};

}  // namespace edgemt
