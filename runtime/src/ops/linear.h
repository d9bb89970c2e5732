// A Linear layer executed by XNNPACK: float32 fully-connected, or int8
// weights with per-channel scales (docs/int8.md) or int4 weights with a
// scale per block of inputs (docs/int4.md), whose float input is quantized
// per row at run time and whose result is float. Several layers that
// read the same input (an attention's query, key and value) can be fused
// into one product along the output dimension. Where a WebAssembly engine
// runs relaxed SIMD, int8 layers run on EdgeMT's own kernels instead
// (ops/relaxed_simd_product.h).
// Set up in two steps: Configure records the layer, Pack creates the XNNPACK
// operators, which copy the weights into XNNPACK's layout in the model's
// PackedWeights unless another translator (or a packed-cache file) did so
// already. PackLinears packs a model's layers on all threads: packing is
// most of the time to load a model.
#pragma once

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>

#include "edgemt/status.h"
#include "edgemt/types.h"
#include "base/fixed_array.h"
#include "model_file/model_weights.h"
#include "ops/quantization_params.h"
#include "ops/relaxed_simd_product.h"
#include "packing/packed_weights.h"

namespace edgemt {

// Scratch for the int8 and int4 paths: the quantized input rows and their parameters.
struct LinearScratch {
  int8_t* input = nullptr;                    // [rows, in] (+ XNN_EXTRA_BYTES)
  xnn_quantization_params* params = nullptr;  // [rows + kQuantizationParamsPadding]
};

class LinearOp {
 public:
  LinearOp() = default;
  ~LinearOp();
  LinearOp(const LinearOp&) = delete;
  LinearOp& operator=(const LinearOp&) = delete;
  LinearOp(LinearOp&& other) noexcept;
  LinearOp& operator=(LinearOp&& other) noexcept;

  // One layer. `fuse_relu` clamps the output at zero inside the GEMM.
  // `name` (a string literal) labels errors.
  void Configure(const LinearView& view, bool fuse_relu, const char* name);
  // Layers with the same input width, their outputs side by side in one row
  // (part 0's columns first). They run in int8 when all are int8, in int4
  // when all are int4 with one block size; otherwise the quantized ones are
  // widened to float and all run in float.
  void Configure(std::initializer_list<LinearView> parts, const char* name);
  // Run's output rows lie `floats` apart (at least out_features; 0: exactly
  // out_features). Set after Configure, before Pack.
  void set_output_stride(size_t floats) { output_stride_ = floats; }
  // Creates the operators, their packed weights in `store` (null: owned by
  // the operator); call once, after Configure.
  Status Pack(PackedWeights* store);

  // out[rows, out_features] = in[rows, in_features] W^T + b (rows of the
  // output stride, see set_output_stride). Uses `pool`
  // only when the product is large enough for a second thread to pay.
  Status Run(const float* in, size_t rows, float* out, const LinearScratch& scratch, pthreadpool_t pool,
             TranslationProfile* profile) const;

  // Whether Run over `rows` rows uses the pool (see kMinParallelMacs and
  // kMinParallelWeights).
  bool RunsInParallel(size_t rows) const;

  int in_features() const { return in_features_; }
  int out_features() const { return out_features_; }
  // The type the operator runs in.
  WeightType kind() const { return kind_; }
  bool quantizes_input() const { return kind_ != WeightType::kFloat32; }
  // Whether the GEMM clamps its output at zero.
  bool fuses_relu() const { return fuse_relu_; }
  // The layers this operator computes (one unless fused).
  const LinearParts& parts() const { return parts_; }
  // Bytes of weights it reads from the model file.
  size_t weight_bytes() const;

 private:
  // Reshapes the operators for `rows` rows on `threads` unless the last Run
  // already did: a decoder step runs every layer with the same rows, and
  // XNNPACK keeps the shape between calls (only the pointers change).
  xnn_status Reshape(size_t rows, pthreadpool_t threads) const;
  // The product's part of Reshape: op_ for `rows` rows, unless it has them.
  xnn_status ReshapeProduct(size_t rows, pthreadpool_t threads) const;
  // The rows of an int8 product's first call; the rest run one at a time.
  static size_t FirstProductRows(size_t rows);
  // The int8 product of `rows` quantized rows, in the calls FirstProductRows says.
  xnn_status RunInt8Product(size_t rows, float* out, const LinearScratch& scratch, pthreadpool_t threads) const;
  // The pool the input's int8 conversion runs on: `threads` from
  // kMinParallelQuantizedInputs floats up, else none.
  pthreadpool_t QuantizeThreads(size_t rows, pthreadpool_t threads) const;
  // Packs for the relaxed SIMD kernels instead of XNNPACK.
  Status PackRelaxedSimd(const RelaxedSimdKernels& kernels);
  // Creates op_ from these weights (XNNPACK reads them only to pack): float
  // or int8 elements with `scales` (int8), or int4 nibbles with `block_scales`.
  xnn_status Create(const void* weight, const float* scales, const uint16_t* block_scales, const float* bias,
                    xnn_weights_cache_t cache);
  // Floats from one output row to the next.
  size_t OutputStride() const {
    const size_t out = static_cast<size_t>(out_features_);
    return output_stride_ > out ? output_stride_ : out;
  }

  xnn_operator_t op_ = nullptr;
  xnn_operator_t quantize_op_ = nullptr;  // int8, int4: float input rows to qd8
  mutable size_t reshaped_rows_ = 0;      // 0: not reshaped yet
  mutable pthreadpool_t reshaped_threads_ = nullptr;
  mutable size_t product_rows_ = 0;       // op_'s rows (int8 on WebAssembly: may differ)
  mutable pthreadpool_t product_threads_ = nullptr;
  RelaxedSimdProduct relaxed_;  // packed: int8 runs on it, not op_
  LinearParts parts_;
  const char* name_ = "";
  bool fuse_relu_ = false;
  int in_features_ = 0;
  int out_features_ = 0;
  size_t output_stride_ = 0;  // 0: out_features_
  int block_size_ = 0;  // int4
  WeightType kind_ = WeightType::kFloat32;
};

// A translator's operators, in order (lists sized once: see fixed_array.h).
using LinearOpList = BoundedList<LinearOp*>;
using ConstLinearOpList = BoundedList<const LinearOp*>;

// Whether any of `linears` run over `rows` rows uses the pool.
bool AnyRunsInParallel(const ConstLinearOpList& linears, size_t rows);

// Packs every layer into `store`, on the pool's threads when there is one, and calls
// `after_pack` for each layer as soon as it is packed (on that thread).
// Returns the first failure in list order.
Status PackLinears(const LinearOpList& linears, PackedWeights* store, pthreadpool_t pool,
                   const std::function<void(const LinearOp&)>& after_pack);

// When a product uses the thread pool. A second thread pays only above a
// break-even in multiply-adds, and each parallel call risks a scheduler
// tick's stall when the other core is busy, so the first threshold sits
// above the break-even. The measurements behind all three:
// tests/bench/ANALYSIS.md, "Thresholds in the code".
// Work (multiply-adds) below which a GEMM runs on the calling thread alone...
constexpr size_t kMinParallelMacs = size_t{1} << 19;
// ... but a product of few rows costs streaming its weights, and from this
// many weights splitting that stream pays at any row count.
constexpr size_t kMinParallelWeights = size_t{1} << 18;
// Inputs (rows x in_features floats) below which their conversion to int8
// runs on the calling thread even when the product uses the pool: XNNPACK
// splits it a row a task, too little work per pool call for short rows.
constexpr size_t kMinParallelQuantizedInputs = size_t{1} << 14;

}  // namespace edgemt
