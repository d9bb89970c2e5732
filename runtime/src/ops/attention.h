// Scaled dot-product attention for all heads: the score and value products
// that this XNNPACK (no batch matmul) cannot do. q, k, v are rows of
// d_model floats; head h uses columns [h * d_head, (h + 1) * d_head).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

struct AttentionShape {
  size_t num_heads;
  size_t d_head;
  size_t kv_stride; // floats from one row of keys (and values) in memory to the next
};

// The keys and values one query attends: key j's row starts at keys +
// Row(j) * kv_stride and its value's at values + Row(j) * kv_stride, where
// Row(j) = rows[j], or j when `rows` is null (beam search's hypotheses list
// the history rows of their history, which branches share).
struct KeyValueRows {
  const float* keys;
  const float* values;
  size_t count;
  const uint8_t* mask = nullptr;  // key j is skipped where mask[j] == 0; null: all visible
  const int32_t* rows = nullptr;
};

// For one query row: out = softmax(q . k_j / sqrt(d_head), over the visible
// keys) v, head by head. `scores` holds num_heads * kv.count floats.
// `mean_weights`, when not null, gets the attention weights averaged over
// the heads (kv.count floats).
void AttendOneQuery(const AttentionShape& shape, const float* q, const KeyValueRows& kv, float* scores, float* out,
                    float* mean_weights = nullptr);

}  // namespace edgemt
