#include "decoding/next_token.h"

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

}  // namespace

int32_t NextToken(const float* logits, size_t vocab, int32_t banned, const Int8Logits* int8) {
  if (int8 == nullptr) {
    int32_t best = -1;
    for (size_t i = 0; i < vocab; ++i) {
      if (static_cast<int32_t>(i) == banned) continue;
      if (best < 0 || logits[i] > logits[best]) best = static_cast<int32_t>(i);
    }
    return best < 0 ? banned : best;  // a vocabulary of the banned id alone
  }
  int best_level = -129;
  for (size_t i = 0; i < vocab; ++i) {
    if (static_cast<int32_t>(i) != banned && int8->quantized[i] > best_level) best_level = int8->quantized[i];
  }
  int32_t best = -1;
  float best_logit = 0.0f;
  for (size_t i = 0; i < vocab; ++i) {
    if (static_cast<int32_t>(i) == banned || int8->quantized[i] < best_level - 1) continue;
    const float logit = RescoredLogit(*int8, i);
    if (best < 0 || logit > best_logit) {
      best = static_cast<int32_t>(i);
      best_logit = logit;
    }
  }
  return best < 0 ? banned : best;
}

}  // namespace edgemt
