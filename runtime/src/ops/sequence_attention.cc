#include "ops/sequence_attention.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/exp.h"
#include "ops/vectorize.h"
#include "ops/weighted_sum.h"

namespace edgemt {
namespace {

constexpr size_t kLanes = 16;        // keys scored per vector
constexpr size_t kQueryBlock = 4;    // queries that share each load of keys and values

// GCC and Clang vector types (the runtime's kernels need one of the two), as
// locals only: a function taking or returning one would change the ABI
// between instruction sets. A scalar in an operation is broadcast.
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

// The kernels below are inlined into AttendSequenceHead, so that each of its
// instruction-set versions (ops/vectorize.h) has its own; a kernel left out
// of line would be compiled for the baseline only.
#define EDGEMT_INLINE __attribute__((always_inline)) inline

inline size_t Padded(size_t length) { return (length + kLanes - 1) / kLanes * kLanes; }

// scores[b * padded + j] = q_b . k_j * scale for kRows queries (rows
// q_stride apart) and the kLanes keys from `first`; `keys` is the head's
// keys transposed, d_head rows of `padded`. AttendOneQuery's Dot, bit for
// bit, 16 keys at a time: column c's product goes to partial sum
// c % kDotLanes, and the partial sums are added as AddLanes adds them. Each
// partial sum is finished before the next starts, so that few are live and
// the queries can share each load of keys.
template <size_t kRows, size_t kHead>
EDGEMT_INLINE void ScoreKeys(const float* q, size_t q_stride, const float* keys, size_t runtime_d_head, size_t padded,
                             size_t first, float scale, float* scores) {
  const size_t d_head = kHead != 0 ? kHead : runtime_d_head;
  static_assert(kDotLanes == 16, "partial sums as AddLanes adds them");
  Lanes sum8[kRows][8];  // partial[l] + partial[l + 8]
  for (size_t l = 0; l < 8; ++l) {
    Lanes low[kRows] = {}, high[kRows] = {};
    for (size_t c = l; c < d_head; c += kDotLanes) {
      Lanes k;
      std::memcpy(&k, keys + c * padded + first, sizeof(k));
      for (size_t b = 0; b < kRows; ++b) low[b] += q[b * q_stride + c] * k;
    }
    for (size_t c = l + 8; c < d_head; c += kDotLanes) {
      Lanes k;
      std::memcpy(&k, keys + c * padded + first, sizeof(k));
      for (size_t b = 0; b < kRows; ++b) high[b] += q[b * q_stride + c] * k;
    }
    for (size_t b = 0; b < kRows; ++b) sum8[b][l] = low[b] + high[b];
  }
  for (size_t b = 0; b < kRows; ++b) {
    Lanes* s8 = sum8[b];
    for (size_t l = 0; l < 4; ++l) s8[l] += s8[l + 4];
    const Lanes dot = (s8[0] + s8[2]) + (s8[1] + s8[3]);
    const Lanes scaled = dot * scale;
    std::memcpy(scores + b * padded + first, &scaled, sizeof(scaled));
  }
}

// Scores of `rows` queries (at most kQueryBlock), two at a time where they can share each load of keys.
template <size_t kHead>
EDGEMT_INLINE void ScoreQueries(const float* q, size_t q_stride, size_t rows, const float* keys, size_t d_head,
                                size_t padded, float scale, float* scores) {
  size_t b = 0;
  for (; b + 2 <= rows; b += 2) {
    for (size_t j = 0; j < padded; j += kLanes)
      ScoreKeys<2, kHead>(q + b * q_stride, q_stride, keys, d_head, padded, j, scale, scores + b * padded);
  }
  for (; b < rows; ++b) {
    for (size_t j = 0; j < padded; j += kLanes)
      ScoreKeys<1, kHead>(q + b * q_stride, q_stride, keys, d_head, padded, j, scale, scores + b * padded);
  }
}

// Softmax of kRows queries' scores (rows `padded` apart) over the visible
// keys (j < length and mask[j] != 0; the others get weight 0, and
// WeightedSums skips them), in AttendOneQuery's order of operations.
// False when no key is visible (the weights are then not written).
template <size_t kRows>
EDGEMT_INLINE bool Softmax(float* scores, size_t length, size_t padded, const uint8_t* mask) {
  const float masked = -std::numeric_limits<float>::infinity();
  float max_score[kRows];
  for (size_t b = 0; b < kRows; ++b) {
    float* row = scores + b * padded;
    if (mask != nullptr) {
      for (size_t j = 0; j < length; ++j) row[j] = mask[j] != 0 ? row[j] : masked;
    }
    // The largest in lanes, as vectors (one running maximum was a chain).
    float lane_max[kLanes];
    for (size_t l = 0; l < kLanes; ++l) lane_max[l] = masked;
    size_t j = 0;
    for (; j + kLanes <= length; j += kLanes) {
      for (size_t l = 0; l < kLanes; ++l) lane_max[l] = row[j + l] > lane_max[l] ? row[j + l] : lane_max[l];
    }
    for (size_t l = 0; j < length; ++j, ++l) lane_max[l] = row[j] > lane_max[l] ? row[j] : lane_max[l];
    max_score[b] = masked;
    for (size_t l = 0; l < kLanes; ++l) max_score[b] = lane_max[l] > max_score[b] ? lane_max[l] : max_score[b];
    if (max_score[b] == masked) return false;  // the mask is the same for every query
    for (size_t j = 0; j < length; ++j) row[j] = ExpNonPositive(row[j] - max_score[b]);
  }
  // Each query's weights summed in order, the queries side by side.
  float sum[kRows] = {};
  for (size_t j = 0; j < length; ++j) {
    for (size_t b = 0; b < kRows; ++b) sum[b] += scores[b * padded + j];
  }
  for (size_t b = 0; b < kRows; ++b) {
    const float inv_sum = 1.0f / sum[b];
    for (size_t j = 0; j < length; ++j) scores[b * padded + j] *= inv_sum;
  }
  return true;
}

// Queries [first, first + kRows) of the head; their scores already written.
template <size_t kRows>
EDGEMT_INLINE void AttendBlock(const AttentionShape& shape, const float* values, size_t first, size_t length,
                               const uint8_t* mask, float* scores, float* out, size_t out_stride) {
  const size_t padded = Padded(length), dh = shape.d_head;
  float* first_out = out + first * out_stride;
  if (!Softmax<kRows>(scores, length, padded, mask)) {  // no visible key: zeros
    for (size_t b = 0; b < kRows; ++b) std::memset(first_out + b * out_stride, 0, dh * sizeof(float));
    return;
  }
  auto consecutive = [](size_t j) { return j; };
  WeightedSums<kRows>(scores, padded, values, consecutive, shape.kv_stride, length, mask, dh, first_out, out_stride);
}

}  // namespace

size_t SequenceAttentionScratch(size_t d_head, size_t length) { return (d_head + kQueryBlock) * Padded(length); }

EDGEMT_VECTORIZED
void AttendSequenceHead(const AttentionShape& shape, size_t head, const float* qkv, size_t key_offset,
                        size_t value_offset, size_t length, const uint8_t* mask, float* scratch, float* out,
                        size_t out_stride) {
  const size_t dh = shape.d_head, padded = Padded(length), column = head * dh;
  float* keys = scratch;  // [dh, padded]: key j's column c at keys[c * padded + j]
  float* scores = scratch + dh * padded;  // [kQueryBlock, padded]
  const float* k = qkv + key_offset + column;
  for (size_t j = 0; j < length; ++j) {
    for (size_t c = 0; c < dh; ++c) keys[c * padded + j] = k[j * shape.kv_stride + c];
  }
  for (size_t c = 0; c < dh; ++c) {
    for (size_t j = length; j < padded; ++j) keys[c * padded + j] = 0.0f;
  }
  const float* q = qkv + column;
  const float* values = qkv + value_offset + column;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  out += column;
  size_t i = 0;
  for (; i < length; i += kQueryBlock) {
    const size_t rows = length - i < kQueryBlock ? length - i : kQueryBlock;
    if (dh == 64) {
      ScoreQueries<64>(q + i * shape.kv_stride, shape.kv_stride, rows, keys, dh, padded, scale, scores);
    } else {
      ScoreQueries<0>(q + i * shape.kv_stride, shape.kv_stride, rows, keys, dh, padded, scale, scores);
    }
    if (rows == kQueryBlock) {
      AttendBlock<kQueryBlock>(shape, values, i, length, mask, scores, out, out_stride);
    } else {
      for (size_t b = 0; b < rows; ++b)
        AttendBlock<1>(shape, values, i + b, length, mask, scores + b * padded, out, out_stride);
    }
  }
}

}  // namespace edgemt
