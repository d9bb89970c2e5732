// One head's attention in double precision: the formula the attention
// kernels (ops/attention.h, ops/sequence_attention.h) are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgemt {
namespace testing {

// softmax(q . k_j / sqrt(dh), over the visible keys) v_j: q holds dh floats,
// key j's dh floats start at keys + j * stride and its value's at values +
// j * stride; key j is skipped where mask[j] == 0 (null: all visible).
inline std::vector<double> ReferenceAttention(const float* q, const float* keys, const float* values, size_t stride,
                                              size_t count, size_t dh, const uint8_t* mask) {
  auto visible = [&](size_t j) { return mask == nullptr || mask[j] != 0; };
  std::vector<double> weight(count, 0.0);
  double maximum = -1e300, sum = 0.0;
  for (size_t j = 0; j < count; ++j) {
    if (!visible(j)) continue;
    double dot = 0.0;
    for (size_t c = 0; c < dh; ++c) dot += static_cast<double>(q[c]) * keys[j * stride + c];
    weight[j] = dot / std::sqrt(static_cast<double>(dh));
    maximum = std::max(maximum, weight[j]);
  }
  for (size_t j = 0; j < count; ++j) {
    weight[j] = visible(j) ? std::exp(weight[j] - maximum) : 0.0;
    sum += weight[j];
  }
  std::vector<double> out(dh, 0.0);
  for (size_t c = 0; c < dh; ++c) {
    for (size_t j = 0; j < count; ++j) out[c] += weight[j] / sum * values[j * stride + c];
  }
  return out;
}

}  // namespace testing
}  // namespace edgemt
