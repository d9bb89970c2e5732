// The greedy choice of the next token from one sentence's logits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

// The argmax over all ids except `banned` (-1: none); the lowest id on ties.
int32_t NextToken(const float* logits, size_t vocab, int32_t banned);

}  // namespace edgemt
