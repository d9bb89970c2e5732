#include "decoding/next_token.h"

#include "ops/vectorize.h"

namespace edgemt {

EDGEMT_VECTORIZED
int32_t NextToken(const float* logits, size_t vocab, int32_t banned) {
  int32_t best = -1;
  for (size_t i = 0; i < vocab; ++i) {
    if (static_cast<int32_t>(i) == banned) continue;
    if (best < 0 || logits[i] > logits[best]) best = static_cast<int32_t>(i);
  }
  return best < 0 ? banned : best;  // only when the banned id is the whole vocabulary
}

}  // namespace edgemt
