#include "ops/relaxed_simd_product.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace edgemt {

namespace {
std::atomic<const RelaxedSimdKernels*> active_kernels{nullptr};

constexpr int32_t kMost7Bit = 127;
constexpr size_t kTileBytesPerQuad = kRelaxedSimdTileColumns * kRelaxedSimdInputBlock;
}  // namespace

void SetRelaxedSimdKernels(const RelaxedSimdKernels* kernels) {
  active_kernels.store(kernels, std::memory_order_release);
}

const RelaxedSimdKernels* ActiveRelaxedSimdKernels() { return active_kernels.load(std::memory_order_acquire); }

bool RelaxedSimdProduct::Supports(int in_features, int out_features) {
  // Up to 2^16 inputs the int32 sums (at most 2^16 * 128 * 127) and the
  // zero point's correction cannot overflow.
  constexpr int kMostInputs = 1 << 16;
  return in_features > 0 && in_features <= kMostInputs && in_features % kRelaxedSimdInputBlock == 0 &&
         out_features >= kRelaxedSimdTileColumns;
}

Status RelaxedSimdProduct::Pack(const int8_t* weights, const float* scales, const float* bias, int in_features,
                                int out_features, bool relu, const RelaxedSimdKernels& kernels, const char* name) {
  if (!Supports(in_features, out_features) || kernels.rows4 == nullptr || kernels.row1 == nullptr)
    return Status(StatusCode::kInternal, std::string(name) + ": no relaxed SIMD product of this shape");
  const size_t in = static_cast<size_t>(in_features);
  const size_t out = static_cast<size_t>(out_features);
  const size_t tiles = (out + kRelaxedSimdTileColumns - 1) / kRelaxedSimdTileColumns;
  const size_t quads = in / kRelaxedSimdInputBlock;
  if (!packed_.Allocate(tiles * quads * kTileBytesPerQuad) || !column_sums_.Allocate(out) ||
      !scales_.Allocate(out) || !bias_.Allocate(out))
    return Status(StatusCode::kResourceExhausted, std::string(name) + ": out of memory packing weights");
  int8_t* tile_bytes = packed_.data();
  for (size_t tile = 0; tile < tiles; ++tile) {
    for (size_t quad = 0; quad < quads; ++quad) {
      for (size_t c = 0; c < kRelaxedSimdTileColumns; ++c) {
        const size_t column = tile * kRelaxedSimdTileColumns + c;
        for (size_t k = 0; k < kRelaxedSimdInputBlock; ++k) {
          *tile_bytes++ = column < out ? weights[column * in + quad * kRelaxedSimdInputBlock + k] : int8_t{0};
        }
      }
    }
  }
  for (size_t column = 0; column < out; ++column) {
    int32_t sum = 0;
    for (size_t k = 0; k < in; ++k) sum += weights[column * in + k];
    column_sums_[column] = sum;
    scales_[column] = scales[column];
    bias_[column] = bias != nullptr ? bias[column] : 0.0f;
  }
  kernels_ = kernels;
  in_features_ = in_features;
  out_features_ = out_features;
  relu_ = relu;
  return Status::Ok();
}

namespace {

// One quantized value, as the vector code below computes it: rounded half
// to even, the point added, clamped to 0..127 in float (NaN gives 0).
inline uint8_t QuantizeValue(float x, float inverse, float point) {
  float v = std::nearbyint(x * inverse) + point;
  v = v > 0.0f ? (v < static_cast<float>(kMost7Bit) ? v : static_cast<float>(kMost7Bit)) : 0.0f;
  return static_cast<uint8_t>(v);
}

}  // namespace

float QuantizeRowTo7Bits(const float* in, size_t width, uint8_t* out, int32_t* zero_point) {
  float lo = 0.0f;
  float hi = 0.0f;
  size_t k = 0;
#if defined(__wasm_simd128__)
  // pmin/pmax skip a NaN as std::min/max do below.
  v128_t lo4 = wasm_f32x4_splat(0.0f);
  v128_t hi4 = lo4;
  for (; k + 4 <= width; k += 4) {
    const v128_t x = wasm_v128_load(in + k);
    lo4 = wasm_f32x4_pmin(x, lo4);
    hi4 = wasm_f32x4_pmax(x, hi4);
  }
  for (int lane = 0; lane < 4; ++lane) {
    lo = std::min(lo, wasm_f32x4_extract_lane(lo4, 0));
    hi = std::max(hi, wasm_f32x4_extract_lane(hi4, 0));
    lo4 = wasm_i32x4_shuffle(lo4, lo4, 1, 2, 3, 0);
    hi4 = wasm_i32x4_shuffle(hi4, hi4, 1, 2, 3, 0);
  }
#endif
  for (; k < width; ++k) {
    lo = std::min(lo, in[k]);
    hi = std::max(hi, in[k]);
  }
  const float range = hi - lo;
  // A row of zeros (or of one value, zero among them) quantizes to its point.
  const float scale = range > 0.0f && std::isfinite(range) ? range / static_cast<float>(kMost7Bit) : 1.0f;
  const float inverse = 1.0f / scale;
  // Clamped in float before the conversion: an infinite row must not reach
  // a float-to-int conversion out of range (a trap in WebAssembly).
  const float point_float = static_cast<float>(QuantizeValue(-lo, inverse, 0.0f));
  const int32_t point = static_cast<int32_t>(point_float);
  k = 0;
#if defined(__wasm_simd128__)
  const v128_t inverse4 = wasm_f32x4_splat(inverse);
  const v128_t point4 = wasm_f32x4_splat(point_float);
  const v128_t zero4 = wasm_f32x4_splat(0.0f);
  const v128_t most4 = wasm_f32x4_splat(static_cast<float>(kMost7Bit));
  auto quantize4 = [&](const float* x) {
    v128_t v = wasm_f32x4_add(wasm_f32x4_nearest(wasm_f32x4_mul(wasm_v128_load(x), inverse4)), point4);
    v = wasm_f32x4_pmin(most4, wasm_f32x4_pmax(zero4, v));
    return wasm_i32x4_trunc_sat_f32x4(v);
  };
  for (; k + 16 <= width; k += 16) {
    const v128_t low = wasm_i16x8_narrow_i32x4(quantize4(in + k), quantize4(in + k + 4));
    const v128_t high = wasm_i16x8_narrow_i32x4(quantize4(in + k + 8), quantize4(in + k + 12));
    wasm_v128_store(out + k, wasm_u8x16_narrow_i16x8(low, high));
  }
#endif
  for (; k < width; ++k) out[k] = QuantizeValue(in[k], inverse, point_float);
  *zero_point = point;
  return scale;
}

void RelaxedSimdProduct::RunPartialTile(const uint8_t* x, size_t rows, int32_t* y, size_t y_stride) const {
  const size_t in = static_cast<size_t>(in_features_);
  const size_t out = static_cast<size_t>(out_features_);
  const size_t full_tiles = out / kRelaxedSimdTileColumns;
  const size_t rest = out % kRelaxedSimdTileColumns;
  const int8_t* last = packed_.data() + full_tiles * (in / kRelaxedSimdInputBlock) * kTileBytesPerQuad;
  const int32_t quads = static_cast<int32_t>(in / kRelaxedSimdInputBlock);
  int32_t sums[4 * kRelaxedSimdTileColumns];
  if (rows == 4) {
    kernels_.rows4(last, x, static_cast<int32_t>(in), sums,
                   static_cast<int32_t>(kRelaxedSimdTileColumns * sizeof(int32_t)), quads, 1);
  } else {
    kernels_.row1(last, x, sums, quads, 1);
  }
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(y + r * y_stride + full_tiles * kRelaxedSimdTileColumns, sums + r * kRelaxedSimdTileColumns,
                rest * sizeof(int32_t));
  }
}

void RelaxedSimdProduct::Run(const float* in, size_t rows, float* out, size_t out_stride, uint8_t* quantized) const {
  const size_t width = static_cast<size_t>(in_features_);
  const size_t columns = static_cast<size_t>(out_features_);
  const int32_t quads = static_cast<int32_t>(width / kRelaxedSimdInputBlock);
  const int32_t full_tiles = static_cast<int32_t>(columns / kRelaxedSimdTileColumns);
  // The kernels write int32 sums where the floats go; each row becomes
  // floats below, after its sums are read.
  int32_t* sums = reinterpret_cast<int32_t*>(out);
  const int32_t y_stride = static_cast<int32_t>(out_stride * sizeof(float));
  constexpr size_t kMostRows = 4;
  float row_scales[kMostRows];
  int32_t row_points[kMostRows];
  for (size_t row = 0; row < rows;) {
    const size_t count = rows - row >= kMostRows ? kMostRows : 1;
    for (size_t r = 0; r < count; ++r) {
      row_scales[r] = QuantizeRowTo7Bits(in + (row + r) * width, width, quantized + r * width, &row_points[r]);
    }
    if (count == kMostRows) {
      kernels_.rows4(packed_.data(), quantized, static_cast<int32_t>(width), sums + row * out_stride, y_stride, quads,
                     full_tiles);
    } else {
      kernels_.row1(packed_.data(), quantized, sums + row * out_stride, quads, full_tiles);
    }
    if (columns % kRelaxedSimdTileColumns != 0) RunPartialTile(quantized, count, sums + row * out_stride, out_stride);
    for (size_t r = 0; r < count; ++r) {
      float* y = out + (row + r) * out_stride;
      const float row_scale = row_scales[r];
      const int32_t point = row_points[r];
      size_t c = 0;
#if defined(__wasm_simd128__)
      const v128_t point4 = wasm_i32x4_splat(point);
      const v128_t row_scale4 = wasm_f32x4_splat(row_scale);
      const v128_t zero4 = wasm_f32x4_splat(0.0f);
      for (; c + 4 <= columns; c += 4) {
        const v128_t sum = wasm_i32x4_sub(wasm_v128_load(y + c),
                                          wasm_i32x4_mul(point4, wasm_v128_load(column_sums_.data() + c)));
        v128_t value = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sum),
                                                     wasm_f32x4_mul(row_scale4, wasm_v128_load(scales_.data() + c))),
                                      wasm_v128_load(bias_.data() + c));
        if (relu_) value = wasm_f32x4_pmax(zero4, value);
        wasm_v128_store(y + c, value);
      }
#endif
      for (; c < columns; ++c) {
        int32_t sum;
        std::memcpy(&sum, y + c, sizeof(sum));
        float value = static_cast<float>(sum - point * column_sums_[c]) * (row_scale * scales_[c]) + bias_[c];
        if (relu_) value = std::max(value, 0.0f);
        y[c] = value;
      }
    }
    row += count;
  }
}

void ReferenceRelaxedSimdRows4(const int8_t* w, const uint8_t* x, int32_t x_stride, int32_t* y, int32_t y_stride,
                               int32_t k_quads, int32_t tiles) {
  for (int32_t row = 0; row < 4; ++row) {
    // y_stride is in bytes, as in the wasm kernel: rows of floats hold the sums.
    char* y_row = reinterpret_cast<char*>(y) + static_cast<ptrdiff_t>(row) * y_stride;
    ReferenceRelaxedSimdRow1(w, x + static_cast<ptrdiff_t>(row) * x_stride, reinterpret_cast<int32_t*>(y_row), k_quads,
                             tiles);
  }
}

void ReferenceRelaxedSimdRow1(const int8_t* w, const uint8_t* x, int32_t* y, int32_t k_quads, int32_t tiles) {
  for (int32_t tile = 0; tile < tiles; ++tile) {
    const int8_t* tile_bytes = w + static_cast<size_t>(tile) * static_cast<size_t>(k_quads) * kTileBytesPerQuad;
    for (int32_t c = 0; c < kRelaxedSimdTileColumns; ++c) {
      int32_t sum = 0;
      for (int32_t quad = 0; quad < k_quads; ++quad) {
        for (int32_t k = 0; k < kRelaxedSimdInputBlock; ++k) {
          sum += tile_bytes[static_cast<size_t>(quad) * kTileBytesPerQuad + c * kRelaxedSimdInputBlock + k] *
                 x[quad * kRelaxedSimdInputBlock + k];
        }
      }
      // Bytes, not an int32 store: y is a float row's storage.
      std::memcpy(reinterpret_cast<char*>(y) + (static_cast<size_t>(tile) * kRelaxedSimdTileColumns + c) * sizeof(sum),
                  &sum, sizeof(sum));
    }
  }
}

}  // namespace edgemt

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#include <emscripten/emscripten.h>

// web/js/edgemt.mjs calls this once the kernels' module runs, with the two
// functions' indices in the module's table. Not in the threaded build: its
// workers' tables would not hold them.
extern "C" EMSCRIPTEN_KEEPALIVE void edgemt_use_relaxed_simd(uintptr_t rows4, uintptr_t row1) {
  static edgemt::RelaxedSimdKernels kernels;
  kernels.rows4 = reinterpret_cast<edgemt::RelaxedSimdKernels::Rows4>(rows4);
  kernels.row1 = reinterpret_cast<edgemt::RelaxedSimdKernels::Row1>(row1);
  edgemt::SetRelaxedSimdKernels(&kernels);
}
#endif
