#include "ops/attention.h"

#include <cmath>
#include <limits>

#include "ops/exp.h"
#include "ops/vectorize.h"

namespace edgemt {
namespace {

// kDotLanes partial sums, added pairwise at the end: vectorizes, and the
// order of operations does not depend on the instruction set.
inline float Dot(const float* a, const float* b, size_t n) {
  float partial[kDotLanes] = {};
  size_t i = 0;
  for (; i + kDotLanes <= n; i += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] += a[i + j] * b[i + j];
  }
  for (size_t j = 0; i < n; ++i, ++j) partial[j] += a[i] * b[i];
  return AddLanes(partial);
}

}  // namespace

EDGEMT_VECTORIZED
void AttendOneQuery(const AttentionShape& shape, const float* q, const float* k, const float* v, size_t num_keys,
                    const uint8_t* key_mask, float* scores, float* out, float* mean_weights) {
  const size_t dh = shape.d_head;
  const float per_head = 1.0f / static_cast<float>(shape.num_heads);
  if (mean_weights != nullptr) {
    for (size_t j = 0; j < num_keys; ++j) mean_weights[j] = 0.0f;
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (size_t h = 0; h < shape.num_heads; ++h) {
    const float* qh = q + h * dh;
    const float masked = -std::numeric_limits<float>::infinity();
    float max_score = masked;
    for (size_t j = 0; j < num_keys; ++j) {
      if (key_mask != nullptr && key_mask[j] == 0) {
        scores[j] = masked;
        continue;
      }
      scores[j] = Dot(qh, k + j * shape.kv_stride + h * dh, dh) * scale;
      if (scores[j] > max_score) max_score = scores[j];
    }
    float* oh = out + h * dh;
    for (size_t i = 0; i < dh; ++i) oh[i] = 0.0f;
    if (max_score == masked) continue;  // no visible key
    // A loop of its own, so that it vectorizes; a masked key's weight is 0.
    for (size_t j = 0; j < num_keys; ++j) scores[j] = ExpNonPositive(scores[j] - max_score);
    float sum = 0.0f;
    for (size_t j = 0; j < num_keys; ++j) sum += scores[j];
    const float inv_sum = 1.0f / sum;
    for (size_t j = 0; j < num_keys; ++j) {
      if (key_mask != nullptr && key_mask[j] == 0) continue;
      const float p = scores[j] * inv_sum;
      if (mean_weights != nullptr) mean_weights[j] += p * per_head;
      const float* vj = v + j * shape.kv_stride + h * dh;
      for (size_t i = 0; i < dh; ++i) oh[i] += p * vj[i];
    }
  }
}

}  // namespace edgemt
