// The shortlisted projection's int8 and int4 loops with AVX-512 VNNI
// (vpdpbusd: 64 byte products a instruction), for x86-64 CPUs that have it.
// The plain loops (ops/shortlisted_projection.cc) widen to 16 bits and
// multiply 32 at a time, which made the shortlist's few hundred rows cost
// more per product than XNNPACK's streamed full product. Integer sums are
// exact, so both give the same sums (for int4, each block's).
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>

namespace edgemt {

// Rows (a sentence's beams, at most 4) that share one list of columns.
struct VnniRows {
  const uint8_t* inputs;        // row r at inputs + r * stride: its quantized input + 128
                                // (int4: u[2p] at p, u[2p + 1] at in/2 + p, so both
                                // nibbles of weight byte p meet offset p)
  size_t stride;                // bytes between rows
  const xnn_quantization_params* params;  // per row: the input's zero point and scale
  size_t rows;
  float* out;                   // row r's logits at out + r * out_stride
  size_t out_stride;
};

// Whether this build and CPU run ProjectInt8Vnni (false off x86-64 GCC/Clang).
bool HasVnni();

// out[r][c] = (sum_k (q[r][k] - zero point) * W[ids[c]][k]) * input scale *
// scales[ids[c]] + bias[ids[c]] for c in [begin, end): the plain loop's
// operations in its order. `bias` may be null; null `ids` read row c for
// column c (gathered rows). Only when HasVnni().
void ProjectInt8Vnni(const int8_t* weight, const float* scales, const float* bias, size_t in, const int32_t* ids,
                     size_t begin, size_t end, const VnniRows& rows);

// As ProjectInt8Vnni for int4 weights (docs/int4.md): `nibbles` [vocab, in/2]
// nibble pairs (q + 8, the lower first), `block_scales` [vocab, in/block]
// bfloat16. out[r][c] = (sum_b s[b] * sum_{k in b} (q[r][k] - zero point) *
// w[k]) * input scale + bias, the blocks in order. Only when HasVnni().
void ProjectInt4Vnni(const uint8_t* nibbles, const uint16_t* block_scales, size_t block, const float* bias,
                     size_t in, const int32_t* ids, size_t begin, size_t end, const VnniRows& rows);

}  // namespace edgemt
