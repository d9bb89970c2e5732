#include "shortlist/shortlisted_vnni.h"

#include "ops/dequantize.h"
#include "shortlist/prefetch_rows.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define EDGEMT_HAS_VNNI_LOOPS 1
#include <immintrin.h>
#endif

namespace edgemt {

#ifdef EDGEMT_HAS_VNNI_LOOPS

bool HasVnni() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return has;
}

namespace {

constexpr size_t kBytes = 64;  // a 512-bit register

// The 16 lanes' total, halving in registers: a store and 16 scalar adds
// cost the int4 loop, which reduces every block, more than its products.
// (GCC 12's _mm512_reduce_add_epi32 and unmasked 256-bit extracts trip its
// own -Wuninitialized on _mm256_undefined_si256; the zero-masked ones not.)
__attribute__((target("avx512f,avx2"))) inline int32_t AddLanes32(__m512i v) {
  const __m256i half = _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, v, 0),
                                        _mm512_maskz_extracti64x4_epi64(0xF, v, 1));
  __m128i quarter = _mm_add_epi32(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
  quarter = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0x4E));  // lanes 2 3 0 1
  quarter = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0xB1));  // lanes 1 0 3 2
  return _mm_cvtsi128_si32(quarter);
}

// sum_k u[r][k] * w[k] for each of Rows rows, and sum_k w[k]: one weight
// load feeds every row.
template <size_t Rows>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) inline void Dots(const uint8_t* u, size_t stride,
                                                                        const int8_t* w, size_t n, int32_t* dots,
                                                                        int32_t* weight_sum) {
  __m512i acc[Rows];
  for (size_t r = 0; r < Rows; ++r) acc[r] = _mm512_setzero_si512();
  __m512i sum = _mm512_setzero_si512();
  const __m512i ones = _mm512_set1_epi8(1);
  size_t k = 0;
  for (; k + kBytes <= n; k += kBytes) {
    const __m512i wk = _mm512_loadu_si512(w + k);
    sum = _mm512_dpbusd_epi32(sum, ones, wk);
    for (size_t r = 0; r < Rows; ++r) acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_loadu_si512(u + r * stride + k), wk);
  }
  if (k < n) {  // the tail: masked loads read zeros past n
    const __mmask64 mask = _cvtu64_mask64((~uint64_t{0}) >> (kBytes - (n - k)));
    const __m512i wk = _mm512_maskz_loadu_epi8(mask, w + k);
    sum = _mm512_dpbusd_epi32(sum, ones, wk);
    for (size_t r = 0; r < Rows; ++r)
      acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_maskz_loadu_epi8(mask, u + r * stride + k), wk);
  }
  for (size_t r = 0; r < Rows; ++r) dots[r] = AddLanes32(acc[r]);
  *weight_sum = AddLanes32(sum);
}

template <size_t Rows>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void Columns(const int8_t* weight, const float* scales,
                                                                    const float* bias, size_t in, const int32_t* ids,
                                                                    size_t begin, size_t end, const VnniRows& rows) {
  for (size_t c = begin; c < end; ++c) {
    if (ids != nullptr && c + kPrefetchColumns < end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      PrefetchBytes(weight + ahead * in, in);
      PrefetchBytes(scales + ahead, 1);
      if (bias != nullptr) PrefetchBytes(bias + ahead, 1);
    }
    const size_t id = RowOf(ids, c);
    int32_t dots[Rows];
    int32_t weight_sum;
    Dots<Rows>(rows.inputs, rows.stride, weight + id * in, in, dots, &weight_sum);
    const float scale = scales[id];
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < Rows; ++r) {
      // u = q + 128, so sum (q - zero point) w = sum u w - (128 + zero point) sum w.
      const int32_t acc = dots[r] - (128 + rows.params[r].zero_point) * weight_sum;
      rows.out[r * rows.out_stride + c] = static_cast<float>(acc) * rows.params[r].scale * scale + b;
    }
  }
}

// One block of an int4 weight row against Rows input rows: the blocks'
// integer sums sum_k (q[r][k] - zero point) * (w[k] - 8), exactly. A weight
// byte b becomes two signed bytes 16 * (nibble - 8): ((b << 4) & 0xF0) ^ 0x80
// for the low nibble, (b & 0xF0) ^ 0x80 for the high one, so vpdpbusd gives
// 16 * sum u w with u = q + 128, and the zero point is taken out with the
// block's weight sum as in Dots.
template <size_t Rows>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) inline void BlockSums(const uint8_t* even,
                                                                             const uint8_t* odd, size_t stride,
                                                                             const uint8_t* w, size_t pairs,
                                                                             const xnn_quantization_params* params,
                                                                             int32_t* sums) {
  __m512i acc[Rows];
  for (size_t r = 0; r < Rows; ++r) acc[r] = _mm512_setzero_si512();
  __m512i weight_sum = _mm512_setzero_si512();
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i high_bits = _mm512_set1_epi8(static_cast<char>(0xF0));
  const __m512i sign_bit = _mm512_set1_epi8(static_cast<char>(0x80));
  constexpr int kAndXor = 0x6A;  // (A & B) ^ C in vpternlog's truth table
  for (size_t k = 0; k < pairs; k += kBytes) {
    // A block's pairs are a multiple of 16; a block shorter than a
    // register, or its last part, loads through a mask that reads zeros.
    const __mmask64 mask = pairs - k >= kBytes ? ~__mmask64{0} : _cvtu64_mask64((~uint64_t{0}) >> (kBytes - (pairs - k)));
    const __m512i bytes = _mm512_maskz_loadu_epi8(mask, w + k);
    const __m512i low =
        _mm512_maskz_mov_epi8(mask, _mm512_ternarylogic_epi32(_mm512_slli_epi16(bytes, 4), high_bits, sign_bit, kAndXor));
    const __m512i high = _mm512_maskz_mov_epi8(mask, _mm512_ternarylogic_epi32(bytes, high_bits, sign_bit, kAndXor));
    weight_sum = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(weight_sum, ones, low), ones, high);
    for (size_t r = 0; r < Rows; ++r) {
      acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_maskz_loadu_epi8(mask, even + r * stride + k), low);
      acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_maskz_loadu_epi8(mask, odd + r * stride + k), high);
    }
  }
  const int32_t weights = AddLanes32(weight_sum);
  // Both sums are 16 times integers, so the division is exact.
  for (size_t r = 0; r < Rows; ++r) sums[r] = (AddLanes32(acc[r]) - (128 + params[r].zero_point) * weights) / 16;
}

template <size_t Rows>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void Int4Columns(const uint8_t* nibbles,
                                                                        const uint16_t* block_scales, size_t block,
                                                                        const float* bias, size_t in,
                                                                        const int32_t* ids, size_t begin, size_t end,
                                                                        const VnniRows& rows) {
  const size_t row_bytes = in / 2;
  const size_t pairs = block / 2;
  const size_t blocks = in / block;
  for (size_t c = begin; c < end; ++c) {
    if (ids != nullptr && c + kPrefetchColumns < end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      PrefetchBytes(nibbles + ahead * row_bytes, row_bytes);
      PrefetchBytes(block_scales + ahead * blocks, blocks * sizeof(uint16_t));
      if (bias != nullptr) PrefetchBytes(bias + ahead, 1);
    }
    const size_t id = RowOf(ids, c);
    const uint8_t* row = nibbles + id * row_bytes;
    const uint16_t* scales = block_scales + id * blocks;
    float sum[Rows] = {};
    for (size_t b = 0; b < blocks; ++b) {
      int32_t sums[Rows];
      BlockSums<Rows>(rows.inputs + b * pairs, rows.inputs + row_bytes + b * pairs, rows.stride, row + b * pairs,
                      pairs, rows.params, sums);
      const float scale = Bfloat16ToFloat(scales[b]);
      for (size_t r = 0; r < Rows; ++r) sum[r] += static_cast<float>(sums[r]) * scale;
    }
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < Rows; ++r) rows.out[r * rows.out_stride + c] = sum[r] * rows.params[r].scale + b;
  }
}

}  // namespace

void ProjectInt8Vnni(const int8_t* weight, const float* scales, const float* bias, size_t in, const int32_t* ids,
                     size_t begin, size_t end, const VnniRows& rows) {
  switch (rows.rows) {
    case 1: return Columns<1>(weight, scales, bias, in, ids, begin, end, rows);
    case 2: return Columns<2>(weight, scales, bias, in, ids, begin, end, rows);
    case 3: return Columns<3>(weight, scales, bias, in, ids, begin, end, rows);
    default: return Columns<4>(weight, scales, bias, in, ids, begin, end, rows);
  }
}

void ProjectInt4Vnni(const uint8_t* nibbles, const uint16_t* block_scales, size_t block, const float* bias,
                     size_t in, const int32_t* ids, size_t begin, size_t end, const VnniRows& rows) {
  switch (rows.rows) {
    case 1: return Int4Columns<1>(nibbles, block_scales, block, bias, in, ids, begin, end, rows);
    case 2: return Int4Columns<2>(nibbles, block_scales, block, bias, in, ids, begin, end, rows);
    case 3: return Int4Columns<3>(nibbles, block_scales, block, bias, in, ids, begin, end, rows);
    default: return Int4Columns<4>(nibbles, block_scales, block, bias, in, ids, begin, end, rows);
  }
}

#else

bool HasVnni() { return false; }

void ProjectInt8Vnni(const int8_t*, const float*, const float*, size_t, const int32_t*, size_t, size_t,
                     const VnniRows&) {}

void ProjectInt4Vnni(const uint8_t*, const uint16_t*, size_t, const float*, size_t, const int32_t*, size_t, size_t,
                     const VnniRows&) {}

#endif

}  // namespace edgemt
