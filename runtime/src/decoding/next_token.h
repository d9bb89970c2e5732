// The greedy choice of the next token from one sentence's logits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model_weights.h"

namespace edgemt {

// For an int8 output projection: its int8 results and its float input row,
// to rescore the near-best tokens exactly (docs/int8.md, "Logits").
struct Int8Logits {
  const int8_t* quantized = nullptr;  // [vocab]
  const float* input = nullptr;       // [d]
  const LinearView* projection = nullptr;
};

// The argmax over all ids except `banned` (-1: none); the lowest id on ties.
// With `int8` set, candidates within one quantization step of the best are
// rescored in float first.
int32_t NextToken(const float* logits, size_t vocab, int32_t banned, const Int8Logits* int8);

}  // namespace edgemt
