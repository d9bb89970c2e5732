// The greedy choice of the next token from one sentence's logits, and the
// vectorized maximum it is made of.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

// The argmax over all ids except `banned` (-1: none); the lowest id on ties.
int32_t NextToken(const float* logits, size_t vocab, int32_t banned);

// The largest of values[0..count) (vectorized); NaNs are never the largest,
// -infinity when there is nothing else.
float LargestValue(const float* values, size_t count);

}  // namespace edgemt
