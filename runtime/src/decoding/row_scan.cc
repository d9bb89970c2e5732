#include "decoding/row_scan.h"

#include <cstdint>
#include <cstring>

#include "ops/vectorize.h"

namespace edgemt {
namespace {

// A float's bits as an int32 that orders as the floats do (-0 just below
// +0), NaN as the lowest int32. Compilers vectorize an integer maximum
// everywhere; a float one (a compare and a select) only under
// -ffinite-math-only, since the select's operand order decides NaNs.
inline int32_t OrderKey(float x) {
  int32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  const int32_t key = bits ^ ((bits >> 31) & 0x7fffffff);   // negatives: reverse their order
  const int32_t nan = -static_cast<int32_t>((bits & 0x7fffffff) > 0x7f800000);  // all ones for a NaN
  return (key & ~nan) | (nan & std::numeric_limits<int32_t>::min());
}

inline float FromKey(int32_t key) {
  const int32_t bits = key ^ ((key >> 31) & 0x7fffffff);
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

// FirstAtLeast tests this many values at a time, branch-free, before it
// looks for the one.
constexpr size_t kScanBlock = 64;

}  // namespace

EDGEMT_VECTORIZED
float LargestValue(const float* values, size_t count, float at_least) {
  int32_t largest = OrderKey(at_least);
  for (size_t i = 0; i < count; ++i) {
    const int32_t key = OrderKey(values[i]);
    largest = key > largest ? key : largest;
  }
  return largest == std::numeric_limits<int32_t>::min() ? at_least : FromKey(largest);
}

EDGEMT_VECTORIZED
size_t FirstAtLeast(const float* values, size_t count, float limit) {
  size_t i = 0;
  for (; i + kScanBlock <= count; i += kScanBlock) {
    int32_t any = 0;
    for (size_t j = 0; j < kScanBlock; ++j) any |= values[i + j] >= limit ? 1 : 0;
    if (any != 0) break;
  }
  for (; i < count; ++i) {
    if (values[i] >= limit) return i;
  }
  return count;
}

}  // namespace edgemt
