// An int8 product on WebAssembly's relaxed SIMD kernels
// (ops/relaxed_simd_kernels.wat): each input row is quantized to 7 bits,
// 0..127 with a zero point, as i16x8.relaxed_dot_i8x16_i7x16_s needs one
// operand to be; the weights stay EdgeMT's int8 with one scale per output,
// packed once into the kernels' tiles. It replaces XNNPACK's SIMD128 int8
// product in a LinearOp when the engine runs relaxed SIMD (the JavaScript
// loader registers the kernels before any model loads); natively and on
// engines without it nothing registers them and XNNPACK runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/status.h"
#include "base/fixed_array.h"

namespace edgemt {

// The kernels' contract, in the wasm module's terms (its rows4 and row1):
// weights `w` in tiles of 8 output columns, each tile `k_quads` blocks of
// 32 bytes: columns 0-3 then 4-7, each 4 consecutive inputs. `x` holds
// 7-bit bytes, a row of 4 * k_quads. `y` gets int32 sums, 8 a tile.
struct RelaxedSimdKernels {
  using Rows4 = void (*)(const int8_t* w, const uint8_t* x, int32_t x_stride, int32_t* y, int32_t y_stride,
                         int32_t k_quads, int32_t tiles);
  using Row1 = void (*)(const int8_t* w, const uint8_t* x, int32_t* y, int32_t k_quads, int32_t tiles);
  Rows4 rows4 = nullptr;
  Row1 row1 = nullptr;
};

// The kernels LinearOps pack for from now on; null (the default) for
// XNNPACK's. Set before any model is loaded: a packed layer keeps its kind.
void SetRelaxedSimdKernels(const RelaxedSimdKernels* kernels);
const RelaxedSimdKernels* ActiveRelaxedSimdKernels();

// Columns a tile holds and inputs a block of one column.
constexpr int kRelaxedSimdTileColumns = 8;
constexpr int kRelaxedSimdInputBlock = 4;

class RelaxedSimdProduct {
 public:
  // Whether a product of this shape can run on the kernels: the inputs a
  // multiple of 4, at least one tile of outputs.
  static bool Supports(int in_features, int out_features);

  // Packs weights [out, in] (int8, one scale per output) and keeps the
  // scales, the bias (may be null) and whether outputs clamp at zero.
  Status Pack(const int8_t* weights, const float* scales, const float* bias, int in_features, int out_features,
              bool relu, const RelaxedSimdKernels& kernels, const char* name);
  bool packed() const { return !packed_.empty(); }

  // out[rows, out] (rows `out_stride` floats apart, at least out) =
  // in[rows, in] W^T scaled + bias. `quantized` holds rows x in bytes.
  void Run(const float* in, size_t rows, float* out, size_t out_stride, uint8_t* quantized) const;

  // The tiles' bytes (exposed for tests of the layout).
  const int8_t* packed_weights() const { return packed_.data(); }

 private:
  // The last tile when out is no multiple of 8, for Run's 1 or 4 rows:
  // computed into a buffer, its columns copied out.
  void RunPartialTile(const uint8_t* x, size_t rows, int32_t* y, size_t y_stride) const;

  FixedArray<int8_t> packed_;       // tiles, the last one padded with zero columns
  FixedArray<int32_t> column_sums_;  // per output: its weights' sum (undoes the zero point)
  FixedArray<float> scales_;
  FixedArray<float> bias_;  // zeros when the layer has none
  RelaxedSimdKernels kernels_;
  int in_features_ = 0;
  int out_features_ = 0;
  bool relu_ = false;
};

// One row to 7 bits: q = clamp(round(x / scale) + zero_point, 0, 127),
// the range holding zero. Returns the scale; `zero_point` gets its point.
float QuantizeRowTo7Bits(const float* in, size_t width, uint8_t* out, int32_t* zero_point);

// A portable kernel with the contract above, for tests on any host.
void ReferenceRelaxedSimdRows4(const int8_t* w, const uint8_t* x, int32_t x_stride, int32_t* y, int32_t y_stride,
                               int32_t k_quads, int32_t tiles);
void ReferenceRelaxedSimdRow1(const int8_t* w, const uint8_t* x, int32_t* y, int32_t k_quads, int32_t tiles);

}  // namespace edgemt
