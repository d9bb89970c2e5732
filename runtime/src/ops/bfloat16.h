// bfloat16, the upper half of a float32: int4 weights' block scales.
#pragma once

#include <cstdint>
#include <cstring>

namespace edgemt {

inline float Bfloat16ToFloat(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

}  // namespace edgemt
