// exp(x) for x <= 0 (softmax after subtracting the maximum) as plain float
// arithmetic that vectorizes: std::exp is a libm call per element, which
// was about a third of attention's time. Cody-Waite reduction x = n ln2 + r,
// |r| <= ln2 / 2, then the Cephes single-precision polynomial for exp(r)
// (relative error about 1e-7, as std::exp's), then the exponent bits of 2^n.
// Only float adds and multiplies in a fixed order; where the instruction set
// has FMA, GCC fuses some of them (ops/vectorize.h), which can change the
// last bit.
#pragma once

#include <cstdint>
#include <cstring>

namespace edgemt {

inline float ExpNonPositive(float x) {
  // Below this exp(x) is under float's smallest normal: the result is 0
  // (std::exp would give a denormal, below 1.2e-38; a softmax weight of 0).
  const float kMin = -87.33654f;
  const bool underflow = !(x >= kMin);  // also NaN and -inf
  x = underflow ? 0.0f : x;
  // n = round(x / ln2): adding 1.5 * 2^23 rounds to an integer in float.
  const float kRound = 12582912.0f;
  const float n = (x * 1.44269504088896341f + kRound) - kRound;
  float r = x - n * 0.693359375f;  // ln2 in two parts: n * hi is exact
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // 2^n for n in [-126, 0]: a float with exponent field n + 127.
  const int32_t bits = (static_cast<int32_t>(n) + 127) * (int32_t{1} << 23);
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return underflow ? 0.0f : p * scale;
}

}  // namespace edgemt
