#include "decoding/next_token.h"

#include <limits>

#include "decoding/row_scan.h"

namespace edgemt {

int32_t NextToken(const float* logits, size_t vocab, const BannedIds& banned) {
  // Two passes: the maximum over the allowed ids (vectorized between the
  // banned ones, taken in increasing order), then the first allowed id that
  // holds it (a banned id may hold more).
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
    if (skip[k] < begin) continue;  // an id banned twice
    best = LargestValue(logits + begin, skip[k] - begin, best);
    begin = skip[k] + 1;
  }
  best = LargestValue(logits + begin, vocab - begin, best);
  size_t i = FirstAtLeast(logits, vocab, best);
  while (i < vocab && banned.Contains(static_cast<int32_t>(i)))
    i += 1 + FirstAtLeast(logits + i + 1, vocab - i - 1, best);
  if (i < vocab) return static_cast<int32_t>(i);
  // Every allowed logit is NaN: the lowest allowed id.
  for (size_t i = 0; i < vocab; ++i) {
    if (!banned.Contains(static_cast<int32_t>(i))) return static_cast<int32_t>(i);
  }
  return 0;  // every id is banned
}

}  // namespace edgemt
