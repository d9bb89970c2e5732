#include "decoding/logits_processors.h"

#include <limits>

namespace edgemt {
namespace {

constexpr float kDisabled = std::numeric_limits<float>::lowest();

bool Seen(const int32_t* history, size_t length, int32_t id) {
  for (size_t i = 0; i < length; ++i) {
    if (history[i] == id) return true;
  }
  return false;
}

// Each id output so far, once (a repeated id is penalized once, as
// CTranslate2 gathers the logits before it writes them). Outputs are short:
// the quadratic scan costs far less than the step's output layer.
void PenalizeRepetitions(float penalty, const int32_t* history, size_t length, float* logits,
                         const OutputColumns& columns) {
  for (size_t i = 0; i < length; ++i) {
    const int32_t id = history[i];
    const int64_t column = columns.ColumnOf(id);
    if (column < 0 || Seen(history, i, id)) continue;
    float& logit = logits[column];
    logit = logit < 0.0f ? logit * penalty : logit / penalty;
  }
}

// Disables every id that followed an earlier occurrence of the last n - 1
// ids (n = 1: every id output so far).
void DisableRepeatedNgrams(size_t n, const int32_t* history, size_t length, float* logits,
                           const OutputColumns& columns) {
  if (length < n) return;
  const int32_t* tail = history + length - (n - 1);
  for (size_t start = 0; start + n <= length; ++start) {
    bool match = true;
    for (size_t k = 0; k + 1 < n && match; ++k) match = history[start + k] == tail[k];
    const int64_t column = match ? columns.ColumnOf(history[start + n - 1]) : -1;
    if (column >= 0) logits[column] = kDisabled;
  }
}

}  // namespace

LogitsProcessors LogitsProcessors::Of(const DecodeOptions& options, int32_t unk_id) {
  LogitsProcessors p;
  p.repetition_penalty = options.repetition_penalty;
  p.no_repeat_ngram_size = options.no_repeat_ngram_size > 0 ? static_cast<size_t>(options.no_repeat_ngram_size) : 0;
  p.disabled_unk = options.disable_unk ? unk_id : -1;
  return p;
}

void ApplyLogitsProcessors(const LogitsProcessors& processors, const int32_t* history, size_t length, float* logits,
                           const OutputColumns& columns) {
  if (processors.repetition_penalty != 1.0f)
    PenalizeRepetitions(processors.repetition_penalty, history, length, logits, columns);
  if (processors.no_repeat_ngram_size > 0)
    DisableRepeatedNgrams(processors.no_repeat_ngram_size, history, length, logits, columns);
  const int64_t unk = processors.disabled_unk >= 0 ? columns.ColumnOf(processors.disabled_unk) : -1;
  if (unk >= 0) logits[unk] = kDisabled;
}

}  // namespace edgemt
