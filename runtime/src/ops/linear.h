// A Linear layer executed by XNNPACK: float32 fully-connected, or int8
// weights with per-channel scales (docs/int8.md) or int4 weights with a
// scale per block of inputs (docs/int4.md), whose float input is quantized
// per row at run time and whose result is float. Several layers that
// read the same input (an attention's query, key and value) can be fused
// into one product along the output dimension.
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
#include "fixed_array.h"
#include "model_weights.h"
#include "ops/quantization_params.h"
#include "packed_weights.h"

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
  // The pool the input's int8 conversion runs on: `threads` from
  // kMinParallelQuantizedInputs floats up, else none.
  pthreadpool_t QuantizeThreads(size_t rows, pthreadpool_t threads) const;
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

// Work (multiply-adds) below which a GEMM runs on the calling thread alone.
// Measured with edgemt-xnnpack-gemm-bench (XNNPACK 2024-11, int8, one row)
// on a 2-core x86-64: a second thread saves 15-45% from about 200K
// multiply-adds up (256x1024: 8.1 -> 4.9 us, 256x8000: 62 -> 34 us) and
// costs time below 100K (256x256: 1.7 -> 2.0 us). Each parallel call also
// risks a stall of a scheduler tick when the other core is busy, so the
// threshold sits above the break-even: d_model 256's query-key-value
// product at beam 4 (4 x 256x768) runs on the pool, its 256x256 products
// do not below 8 rows. Intel Xeon, 2 threads, Multi30k int8 beam 4 with
// its shortlist (edgemt-bench, alternating): 1M -> 512K 2.39 -> 2.26 ms a
// sentence (5 rounds), 512K -> 256K 2.19-2.25 -> 2.39-2.96 ms (4 rounds).
constexpr size_t kMinParallelMacs = size_t{1} << 19;
// ... but a product of few rows costs streaming its weights, and from 256K
// weights (256x1024, d_model 512's square products) splitting that stream
// pays at any row count. On an Intel Xeon (2 cores, AVX-512 VNNI; 2 threads,
// edgemt-bench, alternating with the 1M rule alone, 4 rounds) it made
// greedy translation at the OPUS-MT shape 14% faster for int4 with the
// shortlist, 12% for int8 without it and 20% with it, and Multi30k's 40%
// (its feed-forward products); beam 4 did not change.
constexpr size_t kMinParallelWeights = size_t{1} << 18;
// Inputs (rows x in_features floats) below which their conversion to int8
// runs on the calling thread even when the product uses the pool: one short
// pass a row, which XNNPACK splits a row a task, so that 4 rows of 256 cost
// a pool call for about 0.1 us of work each. Intel Xeon, 2 threads, beam 4,
// edgemt-bench alternating with the pool for every conversion: Multi30k
// with its shortlist 1.78 -> 1.65 ms a sentence (5 rounds), OPUS-MT shape
// with the shortlist 13.4 -> 12.7 ms (3 rounds); greedy (one row: XNNPACK
// converts it on the calling thread anyway) unchanged.
constexpr size_t kMinParallelQuantizedInputs = size_t{1} << 14;

}  // namespace edgemt
