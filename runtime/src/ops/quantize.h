// Per-tensor affine int8 conversion of activations (docs/int8.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

// out = clamp(round_half_even(x / scale) + zero_point, -128, 127)
void QuantizeInt8(const float* x, size_t n, float scale, int8_t zero_point, int8_t* out);
// The int32 accumulator value of a bias b for a row with input scale si and
// weight scale s (docs/int8.md); false when it does not fit in int32.
bool QuantizeBias(float bias, float input_scale, float weight_scale, int32_t* out);

// out = scale * (q - zero_point)
void DequantizeInt8(const int8_t* q, size_t n, float scale, int8_t zero_point, float* out);

}  // namespace edgemt
