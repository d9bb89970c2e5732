#include "decoding/next_token.h"

#include "ops/vectorize.h"

namespace edgemt {
namespace {

float RescoredLogit(const Int8Logits& int8, size_t id) {
  const MatrixView& weight = int8.projection->weight;
  const size_t d = static_cast<size_t>(weight.cols);
  const int8_t* row = weight.i8() + id * d;
  float dot = 0.0f;
  for (size_t c = 0; c < d; ++c) dot += int8.input[c] * static_cast<float>(row[c]);
  const float bias = int8.projection->bias != nullptr ? int8.projection->bias[id] : 0.0f;
  return dot * weight.scales[id] + bias;
}

EDGEMT_VECTORIZED
int MaxLevel(const int8_t* values, size_t n) {
  int8_t best = -128;
  for (size_t i = 0; i < n; ++i) best = values[i] > best ? values[i] : best;
  return best;
}

EDGEMT_VECTORIZED
int32_t ArgmaxFloat(const float* logits, size_t vocab, int32_t banned) {
  int32_t best = -1;
  for (size_t i = 0; i < vocab; ++i) {
    if (static_cast<int32_t>(i) == banned) continue;
    if (best < 0 || logits[i] > logits[best]) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace

int32_t NextToken(const float* logits, size_t vocab, int32_t banned, const Int8Logits* int8) {
  int32_t best = -1;
  if (int8 == nullptr) {
    best = ArgmaxFloat(logits, vocab, banned);
  } else {
    // The best level among allowed ids: the banned id only matters when it holds the maximum.
    int best_level = MaxLevel(int8->quantized, vocab);
    if (banned >= 0 && static_cast<size_t>(banned) < vocab && int8->quantized[banned] == best_level) {
      best_level = -129;
      for (size_t i = 0; i < vocab; ++i) {
        if (static_cast<int32_t>(i) != banned && int8->quantized[i] > best_level) best_level = int8->quantized[i];
      }
    }
    float best_logit = 0.0f;
    for (size_t i = 0; i < vocab; ++i) {
      if (int8->quantized[i] < best_level - 1 || static_cast<int32_t>(i) == banned) continue;
      const float logit = RescoredLogit(*int8, i);
      if (best < 0 || logit > best_logit) {
        best = static_cast<int32_t>(i);
        best_logit = logit;
      }
    }
  }
  return best < 0 ? banned : best;  // only when the banned id is the whole vocabulary
}

}  // namespace edgemt
