// Quantized weights back to float: bfloat16 block scales (the upper half of
// a float32) and whole int8 or int4 rows, for the layers that read a
// quantized row themselves (an embedding lookup, a fused group run in float,
// the shortlisted projection's scales).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "model_file/model_weights.h"

namespace edgemt {

inline float Bfloat16ToFloat(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

// Row r of an int8 or int4 matrix as float: q * s (exact in float32 for both types).
inline void DequantizeRow(const MatrixView& w, size_t r, float* row) {
  const size_t cols = static_cast<size_t>(w.cols);
  if (w.type == WeightType::kInt8) {
    const int8_t* q = w.i8() + r * cols;
    for (size_t c = 0; c < cols; ++c) row[c] = static_cast<float>(q[c]) * w.scales[r];
    return;
  }
  const size_t block = static_cast<size_t>(w.block_size);
  const uint8_t* pairs = w.nibbles() + r * cols / 2;
  const uint16_t* scales = w.block_scales + r * (cols / block);
  for (size_t c = 0; c < cols; ++c) {
    const int nibble = (c % 2 == 0) ? (pairs[c / 2] & 0xF) : (pairs[c / 2] >> 4);
    row[c] = static_cast<float>(nibble - 8) * Bfloat16ToFloat(scales[c / block]);
  }
}

}  // namespace edgemt
