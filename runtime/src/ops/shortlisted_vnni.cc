#include "ops/shortlisted_vnni.h"

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

// Columns ahead whose weight rows are fetched (as the plain loop: the rows
// lie scattered, which the hardware prefetchers cannot follow).
constexpr size_t kPrefetchColumns = 4;
constexpr size_t kCacheLine = 64;
constexpr size_t kBytes = 64;  // a 512-bit register

// The 16 lanes' total (GCC 12's _mm512_reduce_add_epi32 trips its own
// -Wuninitialized: _mm256_undefined_si256).
__attribute__((target("avx512f"))) inline int32_t AddLanes32(__m512i v) {
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, v);
  int32_t total = 0;
  for (int32_t lane : lanes) total += lane;
  return total;
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
    if (c + kPrefetchColumns < end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      for (size_t offset = 0; offset < in; offset += kCacheLine) __builtin_prefetch(weight + ahead * in + offset);
      __builtin_prefetch(scales + ahead);
      if (bias != nullptr) __builtin_prefetch(bias + ahead);
    }
    const size_t id = static_cast<size_t>(ids[c]);
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

#else

bool HasVnni() { return false; }

void ProjectInt8Vnni(const int8_t*, const float*, const float*, size_t, const int32_t*, size_t, size_t,
                     const VnniRows&) {}

#endif

}  // namespace edgemt
