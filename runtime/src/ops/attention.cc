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

// out[i..i + kColumns) = sum over j < rows, mask[j] != 0 (all when mask is
// null), of weights[j] * values[j * stride + i..] (a masked row may hold
// anything). The sums stay in registers over all rows; kColumns / kDotLanes
// of them are independent chains of adds.
template <size_t kColumns>
inline void WeightedColumns(const float* weights, const float* values, size_t stride, size_t rows,
                            const uint8_t* mask, size_t i, float* out) {
  float sums[kColumns] = {};
  for (size_t j = 0; j < rows; ++j) {
    if (mask != nullptr && mask[j] == 0) continue;
    const float w = weights[j];
    const float* row = values + j * stride + i;
    for (size_t l = 0; l < kColumns; ++l) sums[l] += w * row[l];
  }
  for (size_t l = 0; l < kColumns; ++l) out[i + l] = sums[l];
}

// out[0..n) = the weighted sum of the rows of values, a block of columns at
// a time (a row at a time loaded and stored all n sums for every row: a
// chain of store-to-load forwarding). Every column adds its rows in order.
inline void WeightedSum(const float* weights, const float* values, size_t stride, size_t rows, const uint8_t* mask,
                        size_t n, float* out) {
  size_t i = 0;
  for (; i + 4 * kDotLanes <= n; i += 4 * kDotLanes)
    WeightedColumns<4 * kDotLanes>(weights, values, stride, rows, mask, i, out);
  for (; i + kDotLanes <= n; i += kDotLanes) WeightedColumns<kDotLanes>(weights, values, stride, rows, mask, i, out);
  for (; i < n; ++i) WeightedColumns<1>(weights, values, stride, rows, mask, i, out);
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
    if (max_score == masked) {  // no visible key
      for (size_t i = 0; i < dh; ++i) oh[i] = 0.0f;
      continue;
    }
    // Loops of their own, so that they vectorize; a masked key's weight is
    // exp(-inf) = 0.
    for (size_t j = 0; j < num_keys; ++j) scores[j] = ExpNonPositive(scores[j] - max_score);
    float sum = 0.0f;
    for (size_t j = 0; j < num_keys; ++j) sum += scores[j];
    const float inv_sum = 1.0f / sum;
    for (size_t j = 0; j < num_keys; ++j) scores[j] *= inv_sum;
    if (mean_weights != nullptr) {
      for (size_t j = 0; j < num_keys; ++j) mean_weights[j] += scores[j] * per_head;
    }
    WeightedSum(scores, v + h * dh, shape.kv_stride, num_keys, key_mask, dh, oh);
  }
}

}  // namespace edgemt
