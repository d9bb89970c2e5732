#include "ops/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/vectorize.h"

namespace edgemt {

EDGEMT_VECTORIZED
void QuantizeInt8(const float* x, size_t n, float scale, int8_t zero_point, int8_t* out) {
  // Adding 1.5 * 2^23 rounds to the nearest integer, ties to even, in the
  // float unit (as XNNPACK does); clamping first keeps it exact. This loop
  // vectorizes, unlike lrintf.
  const float inv_scale = 1.0f / scale;
  const float lo = -128.0f - static_cast<float>(zero_point);
  const float hi = 127.0f - static_cast<float>(zero_point);
  const float magic = 12582912.0f;
  const int32_t magic_bits = 0x4B400000 - static_cast<int32_t>(zero_point);
  for (size_t i = 0; i < n; ++i) {
    float v = std::min(std::max(x[i] * inv_scale, lo), hi) + magic;
    int32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    out[i] = static_cast<int8_t>(bits - magic_bits);
  }
}

bool QuantizeBias(float bias, float input_scale, float weight_scale, int32_t* out) {
  // float64 from the float32 values, as docs/int8.md and the converter's simulation.
  const double q = std::nearbyint(static_cast<double>(bias) /
                                  (static_cast<double>(input_scale) * static_cast<double>(weight_scale)));
  if (!(std::fabs(q) <= 2147483647.0)) return false;
  *out = static_cast<int32_t>(q);
  return true;
}

EDGEMT_VECTORIZED
void DequantizeInt8(const int8_t* q, size_t n, float scale, int8_t zero_point, float* out) {
  const int32_t zp = zero_point;
  for (size_t i = 0; i < n; ++i) out[i] = scale * static_cast<float>(static_cast<int32_t>(q[i]) - zp);
}

}  // namespace edgemt
