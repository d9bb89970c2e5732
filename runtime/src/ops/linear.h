// A Linear layer executed by XNNPACK: float32 fully-connected, or int8 with
// per-channel weight scales (a 1x1 qc8 convolution in this XNNPACK), which
// quantizes its float input and dequantizes its int8 output (docs/int8.md).
// Set up in two steps: Configure records the layer, Pack creates the XNNPACK
// operator (copying the weights into XNNPACK's layout). PackLinears packs a
// model's layers on all threads: packing is most of the time to load a model.
#pragma once

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "edgemt/status.h"
#include "edgemt/translator.h"
#include "model_weights.h"

namespace edgemt {

// Scratch for the int8 path: [rows, in] and [rows, out] int8 elements.
struct LinearScratch {
  int8_t* input = nullptr;
  int8_t* output = nullptr;
};

class LinearOp {
 public:
  LinearOp() = default;
  ~LinearOp();
  LinearOp(const LinearOp&) = delete;
  LinearOp& operator=(const LinearOp&) = delete;
  LinearOp(LinearOp&& other) noexcept;
  LinearOp& operator=(LinearOp&& other) noexcept;

  // `fuse_relu` clamps the output at zero inside the GEMM. `name` (a string
  // literal) labels errors.
  void Configure(const LinearView& view, bool fuse_relu, const char* name);
  // Creates the operator; call once, after Configure.
  Status Pack();

  // out[rows, out_features] = in[rows, in_features] W^T + b. Uses `pool`
  // only when the product is large enough for a second thread to pay.
  Status Run(const float* in, size_t rows, float* out, const LinearScratch& scratch, pthreadpool_t pool,
             TranslationProfile* profile) const;
  // int8 only: leaves the int8 result in scratch.output and skips the
  // conversion to float (the greedy choice reads int8 logits directly).
  Status RunToInt8(const float* in, size_t rows, const LinearScratch& scratch, pthreadpool_t pool,
                   TranslationProfile* profile) const;

  // Whether Run over `rows` rows uses the pool (see kMinParallelMacs).
  bool RunsInParallel(size_t rows) const;

  int in_features() const { return in_features_; }
  int out_features() const { return out_features_; }
  bool is_int8() const { return int8_; }
  const LinearView& view() const { return view_; }

 private:
  xnn_operator_t op_ = nullptr;
  LinearView view_;
  const char* name_ = "";
  bool fuse_relu_ = false;
  int in_features_ = 0;
  int out_features_ = 0;
  bool int8_ = false;
};

// Whether any of `linears` run over `rows` rows uses the pool.
bool AnyRunsInParallel(const std::vector<const LinearOp*>& linears, size_t rows);

// Packs every layer, on the pool's threads when there is one, and calls
// `after_pack` for each layer as soon as it is packed (on that thread).
// Returns the first failure in list order.
Status PackLinears(const std::vector<LinearOp*>& linears, pthreadpool_t pool,
                   const std::function<void(const LinearOp&)>& after_pack);

// Work (multiply-adds) below which a GEMM runs on the calling thread alone.
// Measured with edgemt-xnnpack-gemm-bench on a 2-core x86-64: a second
// thread saves 25-45% from about 4M multiply-adds up (the encoder's products,
// large output projections), little below; and each parallel call risks a
// stall of a scheduler tick when the other core is busy, so small per-step
// products never take that risk.
constexpr size_t kMinParallelMacs = size_t{1} << 22;

}  // namespace edgemt
