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
int32_t NextToken(const float* logits, size_t vocab, const BannedIds& banned) {
  // Two passes: the maximum over the allowed ids (vectorized between the
  // banned ones, taken in increasing order), then the first id that holds it.
  size_t skip[BannedIds::kCapacity];
  size_t skips = 0;
  for (size_t i = 0; i < banned.count; ++i) {
    const int32_t id = banned.ids[i];
    if (id < 0 || static_cast<size_t>(id) >= vocab) continue;
    size_t at = skips++;  // insertion sort: a handful of ids
    for (; at > 0 && skip[at - 1] > static_cast<size_t>(id); --at) skip[at] = skip[at - 1];
    skip[at] = static_cast<size_t>(id);
  }
  float best = -std::numeric_limits<float>::infinity();
  size_t begin = 0;
  for (size_t k = 0; k < skips; ++k) {
    best = MaxOf(logits, begin, skip[k], best);
    begin = skip[k] + 1;
  }
  best = MaxOf(logits, begin, vocab, best);
  for (size_t i = 0; i < vocab; ++i) {
    if (logits[i] == best && !banned.Contains(static_cast<int32_t>(i))) return static_cast<int32_t>(i);
  }
  // Every allowed logit is NaN: the lowest allowed id.
  for (size_t i = 0; i < vocab; ++i) {
    if (!banned.Contains(static_cast<int32_t>(i))) return static_cast<int32_t>(i);
  }
  return 0;  // every id is banned
}

}  // namespace edgemt
