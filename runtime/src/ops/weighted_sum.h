// The value side of attention: rows of values summed with softmax weights,
// for one query (AttendOneQuery) or a few side by side (AttendSequenceHead).
// Inlined into its callers, so that each of their instruction-set versions
// (ops/vectorize.h) has its own copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ops/vectorize.h"

namespace edgemt {

// out_b[i..i + kColumns) = sum over j < count, mask[j] != 0 (all when mask
// is null), of weights[b * weight_stride + j] * values[row_of(j) * stride +
// i..], for the kRows queries b (outputs out_stride apart; a masked row may
// hold anything). The sums stay in registers over all rows; kColumns /
// kDotLanes of them a query are independent chains of adds.
template <size_t kColumns, size_t kRows, class RowOf>
__attribute__((always_inline)) inline void WeightedColumns(const float* weights, size_t weight_stride,
                                                           const float* values, RowOf row_of, size_t stride,
                                                           size_t count, const uint8_t* mask, size_t i, float* out,
                                                           size_t out_stride) {
  float sums[kRows][kColumns] = {};
  for (size_t j = 0; j < count; ++j) {
    if (mask != nullptr && mask[j] == 0) continue;
    const float* row = values + row_of(j) * stride + i;
    for (size_t b = 0; b < kRows; ++b) {
      const float w = weights[b * weight_stride + j];
      for (size_t l = 0; l < kColumns; ++l) sums[b][l] += w * row[l];
    }
  }
  for (size_t b = 0; b < kRows; ++b) std::memcpy(out + b * out_stride + i, sums[b], sizeof(sums[b]));
}

// out_b[0..n) = the weighted sum of the rows of values for each of kRows
// queries, a block of columns at a time (a row at a time loaded and stored
// all n sums for every row: a chain of store-to-load forwarding). Every
// column adds its rows in order.
template <size_t kRows, class RowOf>
__attribute__((always_inline)) inline void WeightedSums(const float* weights, size_t weight_stride,
                                                        const float* values, RowOf row_of, size_t stride,
                                                        size_t count, const uint8_t* mask, size_t n, float* out,
                                                        size_t out_stride) {
  size_t i = 0;
  for (; i + 4 * kDotLanes <= n; i += 4 * kDotLanes)
    WeightedColumns<4 * kDotLanes, kRows>(weights, weight_stride, values, row_of, stride, count, mask, i, out,
                                          out_stride);
  for (; i + kDotLanes <= n; i += kDotLanes)
    WeightedColumns<kDotLanes, kRows>(weights, weight_stride, values, row_of, stride, count, mask, i, out, out_stride);
  for (; i < n; ++i)
    WeightedColumns<1, kRows>(weights, weight_stride, values, row_of, stride, count, mask, i, out, out_stride);
}

}  // namespace edgemt
