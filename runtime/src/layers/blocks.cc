#include "layers/blocks.h"

#include "ops/activation.h"
#include "profiler.h"

namespace edgemt {

Status AttentionOps::Create(const AttentionView& view, const char* name) {
  EDGEMT_RETURN_IF_ERROR(query.Create(view.query, false, name));
  EDGEMT_RETURN_IF_ERROR(key.Create(view.key, false, name));
  EDGEMT_RETURN_IF_ERROR(value.Create(view.value, false, name));
  return output.Create(view.output, false, name);
}

Status FeedForwardOps::Create(const FeedForwardView& view, Activation activation, const char* name) {
  activation_ = activation;
  // ReLU is a clamp the GEMM does for free.
  EDGEMT_RETURN_IF_ERROR(up_.Create(view.up, activation == Activation::kReLU, name));
  return down_.Create(view.down, false, name);
}

Status FeedForwardOps::Run(const float* in, size_t rows, float* out, const StackBuffers& buffers,
                           const RunContext& context) const {
  EDGEMT_RETURN_IF_ERROR(up_.Run(in, rows, buffers.hidden, ScratchOf(buffers), context.pool, context.profile));
  {
    ScopedTimer timer(context.profile, TimeCategory::kOther);
    ApplyActivation(activation_, buffers.hidden, rows * static_cast<size_t>(up_.out_features()));
  }
  return down_.Run(buffers.hidden, rows, out, ScratchOf(buffers), context.pool, context.profile);
}

}  // namespace edgemt
