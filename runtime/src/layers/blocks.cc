#include "layers/blocks.h"

#include "ops/activation.h"
#include "ops/profiler.h"

namespace edgemt {

bool SelfAttentionOps::Configure(const AttentionView& view, const char* name, LinearOpList* to_pack) {
  query_key_value.Configure({view.query, view.key, view.value}, name);
  output.Configure(view.output, false, name);
  return to_pack->push_back(&query_key_value) && to_pack->push_back(&output);
}

bool CrossAttentionOps::Configure(const AttentionView& view, const char* name, LinearOpList* to_pack) {
  query.Configure(view.query, false, name);
  key_value.Configure({view.key, view.value}, name);
  key_value.set_output_stride(CrossKeyValueStride(static_cast<size_t>(view.key.weight.rows)));
  output.Configure(view.output, false, name);
  return to_pack->push_back(&query) && to_pack->push_back(&key_value) && to_pack->push_back(&output);
}

bool SSRUOps::Configure(const SSRUView& view, const char* name, LinearOpList* to_pack) {
  transform_forget.Configure({view.transform, view.forget_gate}, name);
  return to_pack->push_back(&transform_forget);
}

bool FeedForwardOps::Configure(const FeedForwardView& view, Activation activation, const char* name,
                               LinearOpList* to_pack) {
  activation_ = activation;
  // ReLU is a clamp the GEMM does for free.
  up_.Configure(view.up, activation == Activation::kReLU, name);
  down_.Configure(view.down, false, name);
  return to_pack->push_back(&up_) && to_pack->push_back(&down_);
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
