// CTranslate2's logits processors that EdgeMT runs, applied to one row of
// raw logits before a choice, in CTranslate2's order: the repetition
// penalty, no repeated n-grams, disable_unk. A disabled id gets the lowest
// float, so that softmax gives it no probability and no choice makes it
// while another id is left.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/decode_options.h"
#include "ops/output_columns.h"

namespace edgemt {

struct LogitsProcessors {
  float repetition_penalty = 1.0f;  // 1: off
  size_t no_repeat_ngram_size = 0;  // 0: off
  int32_t disabled_unk = -1;        // the <unk> id under disable_unk, else -1

  static LogitsProcessors Of(const DecodeOptions& options, int32_t unk_id);
  bool active() const { return repetition_penalty != 1.0f || no_repeat_ngram_size > 0 || disabled_unk >= 0; }
};

// Rewrites a row of logits over `columns` of a hypothesis whose output so
// far is history[0..length) (ids without a column are ignored).
void ApplyLogitsProcessors(const LogitsProcessors& processors, const int32_t* history, size_t length, float* logits,
                           const OutputColumns& columns);

}  // namespace edgemt
