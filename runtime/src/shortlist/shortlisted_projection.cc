#include "shortlist/shortlisted_projection.h"

#include <algorithm>
#include <cstring>
#include <string>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#include "memory/arena.h"
#include "ops/dequantize.h"
#include "shortlist/prefetch_rows.h"
#include "ops/quantization_params.h"
#include "shortlist/shortlisted_vnni.h"
#include "ops/vectorize.h"
#include "ops/profiler.h"
#include "base/thread_pool.h"

namespace edgemt {
namespace {

// Rows computed together over one weight row: a beam's worth.
constexpr size_t kGroupRows = 4;
// Columns per task: a pool splits even one sentence's list (a greedy step's
// ~1,000 ids) between its threads.
constexpr size_t kColumnTile = 128;
// Reading scattered rows costs more per product than XNNPACK's streamed
// ones, so a pool pays off at a quarter of the full product's threshold.
constexpr size_t kMinParallelShortlistMacs = kMinParallelMacs / 4;

// Integer sums are exact, so every instruction set gives the same bits.
inline int32_t DotInt8(const int16_t* a, const int8_t* w, size_t n) {
  int32_t acc = 0;
  size_t k = 0;
#if defined(__wasm_simd128__)
  // The compiler widens to 32 bits first; i32x4.dot_i16x8_s multiplies and
  // adds pairs in one instruction (|a| <= 255, |w| <= 127: no overflow).
  v128_t sums = wasm_i32x4_splat(0);
  for (; k + 8 <= n; k += 8)
    sums = wasm_i32x4_add(sums, wasm_i32x4_dot_i16x8(wasm_v128_load(a + k), wasm_i16x8_load8x8(w + k)));
  acc = wasm_i32x4_extract_lane(sums, 0) + wasm_i32x4_extract_lane(sums, 1) + wasm_i32x4_extract_lane(sums, 2) +
        wasm_i32x4_extract_lane(sums, 3);
#endif
  for (; k < n; ++k) acc += static_cast<int32_t>(a[k]) * static_cast<int32_t>(w[k]);
  return acc;
}

// One block of an int4 row: w holds `pairs` bytes of nibble pairs (q + 8,
// the lower nibble first); even and odd are the block's input elements at
// even and odd positions (CenterSplitBlocks), so both nibbles meet contiguous
// inputs and the loop vectorizes.
inline int32_t DotInt4(const int16_t* even, const int16_t* odd, const uint8_t* w, size_t pairs) {
  int32_t acc = 0;
  for (size_t k = 0; k < pairs; ++k) {
    const int16_t low = static_cast<int16_t>((w[k] & 0xF) - 8);
    const int16_t high = static_cast<int16_t>((w[k] >> 4) - 8);
    acc += static_cast<int32_t>(even[k]) * low + static_cast<int32_t>(odd[k]) * high;
  }
  return acc;
}

inline float DotFloat(const float* a, const float* w, size_t n) {
  float partial[kDotLanes] = {};
  size_t k = 0;
  for (; k + kDotLanes <= n; k += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] += a[k + j] * w[k + j];
  }
  for (; k < n; ++k) partial[0] += a[k] * w[k];
  return AddLanes(partial);
}

// One task: `rows` rows (at most kGroupRows) sharing a list, over its
// columns [begin, end).
struct Tile {
  const float* in;              // float rows (float32 weights)
  const int16_t* centered;      // the quantized rows minus their zero points
  const xnn_quantization_params* params;
  size_t rows;
  float* out;
  size_t begin, end;
};

EDGEMT_VECTORIZED
void ProjectInt8(const MatrixView& w, const float* bias, const int32_t* ids, const Tile& t, size_t in,
                 size_t out_stride) {
  for (size_t c = t.begin; c < t.end; ++c) {
    if (ids != nullptr && c + kPrefetchColumns < t.end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      PrefetchBytes(w.i8() + ahead * in, in);
      PrefetchBytes(w.scales + ahead, 1);
      if (bias != nullptr) PrefetchBytes(bias + ahead, 1);
    }
    const size_t id = RowOf(ids, c);
    const int8_t* row = w.i8() + id * in;
    const float scale = w.scales[id];
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < t.rows; ++r) {
      const int32_t acc = DotInt8(t.centered + r * in, row, in);
      t.out[r * out_stride + c] = static_cast<float>(acc) * t.params[r].scale * scale + b;
    }
  }
}

EDGEMT_VECTORIZED
void ProjectInt4(const MatrixView& w, const float* bias, const int32_t* ids, const Tile& t, size_t in,
                 size_t out_stride) {
  const size_t block = static_cast<size_t>(w.block_size);
  const size_t blocks = in / block;
  const size_t pairs = block / 2;
  for (size_t c = t.begin; c < t.end; ++c) {
    if (ids != nullptr && c + kPrefetchColumns < t.end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      PrefetchBytes(w.nibbles() + ahead * in / 2, in / 2);
      PrefetchBytes(w.block_scales + ahead * blocks, blocks * sizeof(uint16_t));
      if (bias != nullptr) PrefetchBytes(bias + ahead, 1);
    }
    const size_t id = RowOf(ids, c);
    const uint8_t* row = w.nibbles() + id * in / 2;
    const uint16_t* scales = w.block_scales + id * blocks;
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < t.rows; ++r) {
      const int16_t* a = t.centered + r * in;
      float sum = 0.0f;
      for (size_t k = 0; k < blocks; ++k) {
        const int16_t* even = a + k * block;
        const int32_t acc = DotInt4(even, even + pairs, row + k * pairs, pairs);
        sum += static_cast<float>(acc) * Bfloat16ToFloat(scales[k]);
      }
      t.out[r * out_stride + c] = sum * t.params[r].scale + b;
    }
  }
}

EDGEMT_VECTORIZED
void ProjectFloat(const MatrixView& w, const float* bias, const int32_t* ids, const Tile& t, size_t in,
                  size_t out_stride) {
  for (size_t c = t.begin; c < t.end; ++c) {
    if (ids != nullptr && c + kPrefetchColumns < t.end) {
      const size_t ahead = static_cast<size_t>(ids[c + kPrefetchColumns]);
      PrefetchBytes(w.f32() + ahead * in, in * sizeof(float));
      if (bias != nullptr) PrefetchBytes(bias + ahead, 1);
    }
    const size_t id = RowOf(ids, c);
    const float* row = w.f32() + id * in;
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < t.rows; ++r) t.out[r * out_stride + c] = DotFloat(t.in + r * in, row, in) + b;
  }
}

// The quantized row minus its zero point, as int16 (products of two int8
// ranges overflow nothing in int32 over a row).
EDGEMT_VECTORIZED
void Center(const int8_t* q, int32_t zero_point, size_t n, int16_t* out) {
  for (size_t k = 0; k < n; ++k) out[k] = static_cast<int16_t>(static_cast<int32_t>(q[k]) - zero_point);
}

// The quantized row + 128 as bytes (ProjectInt8Vnni's unsigned operand).
EDGEMT_VECTORIZED
void Unsign(const int8_t* q, size_t n, uint8_t* out) {
  for (size_t k = 0; k < n; ++k) out[k] = static_cast<uint8_t>(static_cast<int32_t>(q[k]) + 128);
}

// As Unsign, the even positions first, then the odd ones
// (ProjectInt4Vnni's layout).
EDGEMT_VECTORIZED
void UnsignSplitPairs(const int8_t* q, size_t n, uint8_t* out) {
  const size_t half = n / 2;
  for (size_t p = 0; p < half; ++p) {
    out[p] = static_cast<uint8_t>(static_cast<int32_t>(q[2 * p]) + 128);
    out[half + p] = static_cast<uint8_t>(static_cast<int32_t>(q[2 * p + 1]) + 128);
  }
}

// As Center, each block of `block` elements rearranged as its even
// positions, then its odd ones (the layout DotInt4 reads).
EDGEMT_VECTORIZED
void CenterSplitBlocks(const int8_t* q, int32_t zero_point, size_t n, size_t block, int16_t* out) {
  const size_t pairs = block / 2;
  for (size_t start = 0; start < n; start += block) {
    for (size_t k = 0; k < pairs; ++k) {
      out[start + k] = static_cast<int16_t>(static_cast<int32_t>(q[start + 2 * k]) - zero_point);
      out[start + pairs + k] = static_cast<int16_t>(static_cast<int32_t>(q[start + 2 * k + 1]) - zero_point);
    }
  }
}

}  // namespace

ShortlistedProjection::~ShortlistedProjection() {
  if (quantize_op_ != nullptr) xnn_delete_operator(quantize_op_);
}

void ShortlistedProjection::Configure(const LinearView& view) { view_ = view; }

Status ShortlistedProjection::Create() {
  if (!view_.is_quantized() || quantize_op_ != nullptr) return Status::Ok();
  const xnn_status status = xnn_create_convert_nc_f32_qd8(0, &quantize_op_);
  if (status == xnn_status_out_of_memory)
    return Status(StatusCode::kResourceExhausted, "output projection: out of memory creating the shortlist's convert");
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK refused the shortlist's convert (status " + std::to_string(status) + ")");
  return Status::Ok();
}

Status ShortlistedProjection::QuantizeInput(const float* in, size_t rows, bool vnni,
                                            const ShortlistScratch& scratch) const {
  const size_t width = static_cast<size_t>(view_.weight.cols);
  const MatrixView& w = view_.weight;
  // XNNPACK's own per-row quantization, as the full product's.
  xnn_status status = xnn_status_success;
  if (rows != reshaped_rows_) {
    reshaped_rows_ = 0;
    status = xnn_reshape_convert_nc_f32_qd8(quantize_op_, rows, width, width, width, nullptr);
    if (status == xnn_status_success) reshaped_rows_ = rows;
  }
  if (status == xnn_status_success)
    status = xnn_setup_convert_nc_f32_qd8(quantize_op_, in, scratch.quantized.input, scratch.quantized.params);
  if (status == xnn_status_success) status = xnn_run_operator(quantize_op_, nullptr);
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK failed to quantize the output projection's input (status " +
                                             std::to_string(status) + ")");
  // Then each row in the layout its loop reads.
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* q = scratch.quantized.input + r * width;
    const int32_t zero_point = scratch.quantized.params[r].zero_point;
    if (w.type == WeightType::kInt4 && vnni) {
      UnsignSplitPairs(q, width, reinterpret_cast<uint8_t*>(scratch.centered + r * width));
    } else if (w.type == WeightType::kInt4) {
      CenterSplitBlocks(q, zero_point, width, static_cast<size_t>(w.block_size), scratch.centered + r * width);
    } else if (vnni) {
      Unsign(q, width, reinterpret_cast<uint8_t*>(scratch.centered + r * width));
    } else {
      Center(q, zero_point, width, scratch.centered + r * width);
    }
  }
  return Status::Ok();
}

namespace {

// Gathered rows' parts start on whole cache lines: the room comes from the
// arena, aligned as its buffers are, and each part is a multiple of that.
constexpr size_t kGatherAlignment = ArenaLayout::kAlignment;

size_t RoundUpToLines(size_t bytes) { return (bytes + kGatherAlignment - 1) / kGatherAlignment * kGatherAlignment; }

// Rows that read the same weight rows: the same list in place, or the
// same gathered copy.
bool SameRows(const ShortlistRows& a, const ShortlistRows& b) {
  return a.ids == b.ids && a.weights.weight.data == b.weights.weight.data;
}

size_t RowBytes(const MatrixView& w) { return w.bytes() / static_cast<size_t>(w.rows); }
size_t BlockScalesPerRow(const MatrixView& w) { return w.block_scale_count() / static_cast<size_t>(w.rows); }
size_t ScaleBytesPerRow(const MatrixView& w) {
  if (w.type == WeightType::kInt8) return sizeof(float);
  if (w.type == WeightType::kInt4) return BlockScalesPerRow(w) * sizeof(uint16_t);
  return 0;
}

}  // namespace

size_t GatheredBytes(const LinearView& view, size_t count) {
  const MatrixView& w = view.weight;
  size_t bytes = RoundUpToLines(count * RowBytes(w));
  bytes += RoundUpToLines(count * ScaleBytesPerRow(w));
  if (view.bias != nullptr) bytes += RoundUpToLines(count * sizeof(float));
  return bytes;
}

ShortlistRows ShortlistedProjection::Gather(const OutputColumns& list, uint8_t* buffer, size_t capacity,
                                            size_t* used) const {
  *used = 0;
  const size_t bytes = GatheredBytes(view_, list.count);
  if (buffer == nullptr || bytes > capacity) return ShortlistRows{list.count, list.ids, view_};
  const MatrixView& w = view_.weight;
  const size_t row_bytes = RowBytes(w), scale_bytes = ScaleBytesPerRow(w);
  ShortlistRows gathered{list.count, nullptr, view_};
  MatrixView& copy = gathered.weights.weight;
  copy.rows = static_cast<int>(list.count);
  uint8_t* rows = buffer;
  uint8_t* scales = rows + RoundUpToLines(list.count * row_bytes);
  float* bias = reinterpret_cast<float*>(scales + RoundUpToLines(list.count * scale_bytes));
  const uint8_t* weight_rows = static_cast<const uint8_t*>(w.data);
  const uint8_t* weight_scales = w.type == WeightType::kInt8 ? reinterpret_cast<const uint8_t*>(w.scales)
                                                             : reinterpret_cast<const uint8_t*>(w.block_scales);
  for (size_t c = 0; c < list.count; ++c) {
    const size_t id = static_cast<size_t>(list.ids[c]);
    std::memcpy(rows + c * row_bytes, weight_rows + id * row_bytes, row_bytes);
    if (scale_bytes > 0) std::memcpy(scales + c * scale_bytes, weight_scales + id * scale_bytes, scale_bytes);
    if (view_.bias != nullptr) bias[c] = view_.bias[id];
  }
  copy.data = rows;
  if (w.type == WeightType::kInt8) copy.scales = reinterpret_cast<const float*>(scales);
  if (w.type == WeightType::kInt4) copy.block_scales = reinterpret_cast<const uint16_t*>(scales);
  if (view_.bias != nullptr) gathered.weights.bias = bias;
  *used = bytes;
  return gathered;
}

Status ShortlistedProjection::Run(const float* in, size_t rows, const ShortlistRows* lists, float* out,
                                  size_t out_stride, const ShortlistScratch& scratch, pthreadpool_t pool,
                                  TranslationProfile* profile) const {
  if (rows == 0) return Status::Ok();
  ScopedTimer timer(profile, TimeCategory::kXnnpack);
  const size_t width = static_cast<size_t>(view_.weight.cols);
  const bool vnni = view_.is_quantized() && HasVnni();
  if (view_.is_quantized()) EDGEMT_RETURN_IF_ERROR(QuantizeInput(in, rows, vnni, scratch));
  // Groups: consecutive rows with the same list, kGroupRows at most; each
  // group's columns in tiles of kColumnTile.
  size_t work = 0, longest = 0;
  for (size_t r = 0; r < rows; ++r) {
    work += lists[r].count;
    longest = std::max(longest, lists[r].count);
  }
  const bool parallel = work * width >= kMinParallelShortlistMacs;
  size_t groups = 0;
  for (size_t r = 0; r < rows; ++groups) {
    scratch.group_starts[groups] = static_cast<uint32_t>(r);
    size_t n = 1;
    while (r + n < rows && n < kGroupRows && SameRows(lists[r + n], lists[r])) ++n;
    r += n;
  }
  scratch.group_starts[groups] = static_cast<uint32_t>(rows);
  // Task i is tile i % tiles of group i / tiles; a group with a shorter list
  // has empty tiles at its end.
  const size_t tiles = (longest + kColumnTile - 1) / kColumnTile;
  auto run_tile = [&](size_t, size_t index) {
    const size_t group = index / tiles;
    const size_t r = scratch.group_starts[group];
    const size_t n = scratch.group_starts[group + 1] - r;
    const ShortlistRows& list = lists[r];
    const MatrixView& w = list.weights.weight;
    const float* bias = list.weights.bias;
    const size_t begin = (index % tiles) * kColumnTile;
    if (begin >= list.count) return;
    // The quantized input exists for quantized weights only.
    const bool quantized = view_.is_quantized();
    const Tile t{in + r * width,
                 quantized ? scratch.centered + r * width : nullptr,
                 quantized ? scratch.quantized.params + r : nullptr,
                 n,
                 out + r * out_stride,
                 begin,
                 std::min(list.count, begin + kColumnTile)};
    if (vnni) {
      const VnniRows vnni_rows{reinterpret_cast<const uint8_t*>(t.centered), width * sizeof(int16_t), t.params, n,
                               t.out, out_stride};
      if (w.type == WeightType::kInt4) {
        ProjectInt4Vnni(w.nibbles(), w.block_scales, static_cast<size_t>(w.block_size), bias, width, list.ids,
                        t.begin, t.end, vnni_rows);
      } else {
        ProjectInt8Vnni(w.i8(), w.scales, bias, width, list.ids, t.begin, t.end, vnni_rows);
      }
    } else if (w.type == WeightType::kInt8) {
      ProjectInt8(w, bias, list.ids, t, width, out_stride);
    } else if (w.type == WeightType::kInt4) {
      ProjectInt4(w, bias, list.ids, t, width, out_stride);
    } else {
      ProjectFloat(w, bias, list.ids, t, width, out_stride);
    }
  };
  ParallelFor(pool, parallel, groups * tiles, run_tile);
  return Status::Ok();
}

}  // namespace edgemt
