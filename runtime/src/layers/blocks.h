// The sub-blocks shared by encoder and decoder layers: the linear layers of
// an attention block and the feed-forward block.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "edgemt/status.h"
#include "edgemt/types.h"
#include "model_file/model_weights.h"
#include "ops/linear.h"
#include "workspace/workspace.h"

namespace edgemt {

// What every layer call needs besides its buffers.
struct RunContext {
  pthreadpool_t pool = nullptr;
  TranslationProfile* profile = nullptr;  // null: not profiling
};

inline LinearScratch ScratchOf(const StackBuffers& buffers) { return {buffers.input8, buffers.input8_params}; }

// Self-attention: query, key and value in one product ([rows, 3d]), then
// the output projection.
struct SelfAttentionOps {
  static constexpr size_t kLinears = 2;  // the operators Configure adds to `to_pack`
  LinearOp query_key_value, output;
  // Configures the layers and adds them to `to_pack` (false: it is full).
  bool Configure(const AttentionView& view, const char* name, LinearOpList* to_pack);
};

// Cross-attention: the query from the decoder; key and value in one product
// ([rows, 2d]) of the encoder output, once per source.
struct CrossAttentionOps {
  static constexpr size_t kLinears = 3;
  LinearOp query, key_value, output;
  bool Configure(const AttentionView& view, const char* name, LinearOpList* to_pack);
};

// Marian's SSRU: its transform and forget gate in one product ([rows, 2d]);
// the cell step itself is ops/ssru_cell.h.
struct SSRUOps {
  static constexpr size_t kLinears = 1;
  LinearOp transform_forget;
  bool Configure(const SSRUView& view, const char* name, LinearOpList* to_pack);
};

class FeedForwardOps {
 public:
  static constexpr size_t kLinears = 2;
  bool Configure(const FeedForwardView& view, Activation activation, const char* name, LinearOpList* to_pack);
  // out = down(activation(up(in))); uses buffers.hidden.
  Status Run(const float* in, size_t rows, float* out, const StackBuffers& buffers, const RunContext& context) const;

 private:
  LinearOp up_, down_;
  Activation activation_ = Activation::kReLU;
};

}  // namespace edgemt
