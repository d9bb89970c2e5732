// LayerNorm over the last dimension, in float32 (XNNPACK has none).
#pragma once

#include <cstddef>

namespace edgemt {

// out[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta. `out` may be `x`.
void LayerNorm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta, float epsilon,
               float* out);

// out = LayerNorm(x + residual): the post-LN sub-block ending. `out` may be `x`.
void AddLayerNorm(const float* x, const float* residual, size_t rows, size_t d, const float* gamma,
                  const float* beta, float epsilon, float* out);

}  // namespace edgemt
