#include "ops/attention.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ops/exp.h"
#include "ops/vectorize.h"
#include "ops/weighted_sum.h"

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

// GCC (12 and later) and Clang vector extensions.
#if defined(__GNUC__)
typedef float Lanes16 __attribute__((vector_size(64)));
typedef float Lanes8 __attribute__((vector_size(32)));

// Dot(q, k_i, n) for four rows k_i at once, each in Dot's order of
// operations (bit for bit): the partial sums stay in registers and the four
// rows' last additions share their shuffles (one row's took a third of the
// time). n must be a multiple of kDotLanes. Vectors are locals only: a
// function taking or returning one would change the ABI between ISAs.
__attribute__((always_inline)) inline void DotFour(const float* q, const float* const k[4], size_t n, float* out) {
  static_assert(kDotLanes == 16, "DotFour keeps 16 partial sums a row");
  Lanes16 p[4] = {};
  for (size_t i = 0; i < n; i += kDotLanes) {
    Lanes16 a;
    std::memcpy(&a, q + i, sizeof(a));
    for (size_t r = 0; r < 4; ++r) {
      Lanes16 b;
      std::memcpy(&b, k[r] + i, sizeof(b));
      p[r] += a * b;
    }
  }
  Lanes8 s[4];  // p[j] + p[j + 8]: AddLanes' first step
  for (size_t r = 0; r < 4; ++r) {
    Lanes8 low, high;
    std::memcpy(&low, &p[r], sizeof(low));
    std::memcpy(&high, reinterpret_cast<const char*>(&p[r]) + sizeof(low), sizeof(high));
    s[r] = low + high;
  }
  // [s0[j] + s0[j + 4] | s1[j] + s1[j + 4]], the same for rows 2 and 3.
  const Lanes8 t01 = __builtin_shufflevector(s[0], s[1], 0, 1, 2, 3, 8, 9, 10, 11) +
                     __builtin_shufflevector(s[0], s[1], 4, 5, 6, 7, 12, 13, 14, 15);
  const Lanes8 t23 = __builtin_shufflevector(s[2], s[3], 0, 1, 2, 3, 8, 9, 10, 11) +
                     __builtin_shufflevector(s[2], s[3], 4, 5, 6, 7, 12, 13, 14, 15);
  // Lane 4r: (t[0] + t[2]) + (t[1] + t[3]) of row r, as AddLanes ends.
  const Lanes8 u01 = t01 + __builtin_shufflevector(t01, t01, 2, 3, 0, 1, 6, 7, 4, 5);
  const Lanes8 u23 = t23 + __builtin_shufflevector(t23, t23, 2, 3, 0, 1, 6, 7, 4, 5);
  const Lanes8 v01 = u01 + __builtin_shufflevector(u01, u01, 1, 0, 3, 2, 5, 4, 7, 6);
  const Lanes8 v23 = u23 + __builtin_shufflevector(u23, u23, 1, 0, 3, 2, 5, 4, 7, 6);
  out[0] = v01[0];
  out[1] = v01[4];
  out[2] = v23[0];
  out[3] = v23[4];
}
#else
inline void DotFour(const float* q, const float* const k[4], size_t n, float* out) {
  for (size_t r = 0; r < 4; ++r) out[r] = Dot(q, k[r], n);
}
#endif

// Where key (and value) j's row starts, in rows of the stride: j itself, or
// an entry of a list of rows.
struct ConsecutiveRows {
  size_t operator()(size_t j) const { return j; }
};
struct ListedRows {
  const int32_t* rows;
  size_t operator()(size_t j) const { return static_cast<size_t>(rows[j]); }
};

// scores[j] = q . k_j * scale for j < num_keys (key j's row at k +
// row_of(j) * stride), four keys at a time where the width allows.
template <class RowOf>
__attribute__((always_inline)) inline void Scores(const float* q, const float* k, RowOf row_of, size_t stride,
                                                  size_t width, size_t num_keys, float scale, float* scores) {
  size_t j = 0;
  if (width % kDotLanes == 0) {
    for (; j + 4 <= num_keys; j += 4) {
      const float* rows[4] = {k + row_of(j) * stride, k + row_of(j + 1) * stride, k + row_of(j + 2) * stride,
                              k + row_of(j + 3) * stride};
      DotFour(q, rows, width, scores + j);
      for (size_t r = 0; r < 4; ++r) scores[j + r] *= scale;
    }
  }
  for (; j < num_keys; ++j) scores[j] = Dot(q, k + row_of(j) * stride, width) * scale;
}

template <class RowOf>
__attribute__((always_inline)) inline void Attend(const AttentionShape& shape, const float* q, const KeyValueRows& kv,
                                                  RowOf row_of, float* scores, float* out, float* mean_weights) {
  const size_t dh = shape.d_head;
  const size_t heads = shape.num_heads;
  const size_t num_keys = kv.count;
  const uint8_t* key_mask = kv.mask;
  const float per_head = 1.0f / static_cast<float>(heads);
  if (mean_weights != nullptr) {
    for (size_t j = 0; j < num_keys; ++j) mean_weights[j] = 0.0f;
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const float masked = -std::numeric_limits<float>::infinity();
  // Every head's scores less their maximum, then one exp over all of them:
  // a head's few keys alone left the vectorized loop for its scalar tail.
  for (size_t h = 0; h < heads; ++h) {
    float* head_scores = scores + h * num_keys;
    Scores(q + h * dh, kv.keys + h * dh, row_of, shape.kv_stride, dh, num_keys, scale, head_scores);  // a masked key's too
    float max_score = masked;
    for (size_t j = 0; j < num_keys; ++j) {
      if (key_mask != nullptr && key_mask[j] == 0) head_scores[j] = masked;
      if (head_scores[j] > max_score) max_score = head_scores[j];
    }
    const float shift = max_score == masked ? 0.0f : max_score;  // no visible key: all stay -inf
    for (size_t j = 0; j < num_keys; ++j) head_scores[j] -= shift;
  }
  // A masked key's weight is exp(-inf) = 0.
  for (size_t i = 0; i < heads * num_keys; ++i) scores[i] = ExpNonPositive(scores[i]);
  for (size_t h = 0; h < heads; ++h) {
    float* head_scores = scores + h * num_keys;
    float* oh = out + h * dh;
    float sum = 0.0f;
    for (size_t j = 0; j < num_keys; ++j) sum += head_scores[j];
    if (sum == 0.0f) {  // no visible key (the largest visible one weighs exp(0) = 1)
      for (size_t i = 0; i < dh; ++i) oh[i] = 0.0f;
      continue;
    }
    const float inv_sum = 1.0f / sum;
    for (size_t j = 0; j < num_keys; ++j) head_scores[j] *= inv_sum;
    if (mean_weights != nullptr) {
      for (size_t j = 0; j < num_keys; ++j) mean_weights[j] += head_scores[j] * per_head;
    }
    WeightedSums<1>(head_scores, 0, kv.values + h * dh, row_of, shape.kv_stride, num_keys, key_mask, dh, oh, 0);
  }
}

}  // namespace

EDGEMT_VECTORIZED
void AttendOneQuery(const AttentionShape& shape, const float* q, const KeyValueRows& kv, float* scores, float* out,
                    float* mean_weights) {
  if (kv.rows == nullptr) {
    Attend(shape, q, kv, ConsecutiveRows{}, scores, out, mean_weights);
  } else {
    Attend(shape, q, kv, ListedRows{kv.rows}, scores, out, mean_weights);
  }
}

}  // namespace edgemt
