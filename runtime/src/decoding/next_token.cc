#include "decoding/next_token.h"

#include <limits>

#include "ops/vectorize.h"

namespace edgemt {
namespace {

// The largest of values[begin, end): kDotLanes partial maxima, so that the
// loop vectorizes (a max is exact, so the order does not matter). NaNs are
// never the maximum.
inline float MaxOf(const float* values, size_t begin, size_t end, float best) {
  float partial[kDotLanes];
  for (size_t j = 0; j < kDotLanes; ++j) partial[j] = best;
  size_t i = begin;
  for (; i + kDotLanes <= end; i += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] = values[i + j] > partial[j] ? values[i + j] : partial[j];
  }
  for (; i < end; ++i) best = values[i] > best ? values[i] : best;
  for (size_t j = 0; j < kDotLanes; ++j) best = partial[j] > best ? partial[j] : best;
  return best;
}

}  // namespace

EDGEMT_VECTORIZED
float LargestValue(const float* values, size_t count) {
  return MaxOf(values, 0, count, -std::numeric_limits<float>::infinity());
}

EDGEMT_VECTORIZED
int32_t NextToken(const float* logits, size_t vocab, int32_t banned) {
  // Two passes: the maximum over the allowed ids (vectorized), then the
  // first id that holds it.
  const size_t skip = banned >= 0 && static_cast<size_t>(banned) < vocab ? static_cast<size_t>(banned) : vocab;
  float best = -std::numeric_limits<float>::infinity();
  best = MaxOf(logits, 0, skip, best);
  if (skip < vocab) best = MaxOf(logits, skip + 1, vocab, best);
  for (size_t i = 0; i < vocab; ++i) {
    if (i != skip && logits[i] == best) return static_cast<int32_t>(i);
  }
  // Every allowed logit is NaN: the lowest allowed id.
  for (size_t i = 0; i < vocab; ++i) {
    if (i != skip) return static_cast<int32_t>(i);
  }
  return banned;  // only when the banned id is the whole vocabulary
}

}  // namespace edgemt
