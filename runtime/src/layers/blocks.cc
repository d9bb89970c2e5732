#include "layers/blocks.h"

#include "ops/activation.h"
#include "profiler.h"

namespace edgemt {

void SelfAttentionOps::Configure(const AttentionView& view, const char* name, std::vector<LinearOp*>* to_pack) {
  query_key_value.Configure({view.query, view.key, view.value}, name);
  output.Configure(view.output, false, name);
  to_pack->insert(to_pack->end(), {&query_key_value, &output});
}

void CrossAttentionOps::Configure(const AttentionView& view, const char* name, std::vector<LinearOp*>* to_pack) {
  query.Configure(view.query, false, name);
  key_value.Configure({view.key, view.value}, name);
  output.Configure(view.output, false, name);
  to_pack->insert(to_pack->end(), {&query, &key_value, &output});
}

void FeedForwardOps::Configure(const FeedForwardView& view, Activation activation, const char* name,
                               std::vector<LinearOp*>* to_pack) {
  activation_ = activation;
  // ReLU is a clamp the GEMM does for free.
  up_.Configure(view.up, activation == Activation::kReLU, name);
  down_.Configure(view.down, false, name);
  to_pack->insert(to_pack->end(), {&up_, &down_});
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
