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
  size_t kv_stride; // floats between consecutive key (and value) rows
};

// For one query row: out = softmax(q . k_j / sqrt(d_head), j < num_keys,
// keys with key_mask[j] == 0 skipped) v. `scores` holds num_heads *
// num_keys floats.
// key_mask may be null (all keys visible). `mean_weights`, when not null,
// gets the attention weights averaged over the heads (num_keys floats).
void AttendOneQuery(const AttentionShape& shape, const float* q, const float* k, const float* v, size_t num_keys,
                    const uint8_t* key_mask, float* scores, float* out, float* mean_weights = nullptr);

}  // namespace edgemt
