#include "ops/layer_norm.h"

#include <cmath>

namespace edgemt {

void LayerNorm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta, float epsilon,
               float* out) {
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * d;
    float* y = out + r * d;
    // Two passes: the variance of centred values is accurate where
    // E[x^2] - E[x]^2 would cancel.
    float sum = 0.0f;
    for (size_t i = 0; i < d; ++i) sum += row[i];
    const float mean = sum / static_cast<float>(d);
    float square_sum = 0.0f;
    for (size_t i = 0; i < d; ++i) {
      const float centred = row[i] - mean;
      square_sum += centred * centred;
    }
    const float inv_std = 1.0f / std::sqrt(square_sum / static_cast<float>(d) + epsilon);
    for (size_t i = 0; i < d; ++i) y[i] = (row[i] - mean) * inv_std * gamma[i] + beta[i];
  }
}

void AddLayerNorm(const float* x, const float* residual, size_t rows, size_t d, const float* gamma,
                  const float* beta, float epsilon, float* out) {
  for (size_t i = 0, n = rows * d; i < n; ++i) out[i] = x[i] + residual[i];
  LayerNorm(out, rows, d, gamma, beta, epsilon, out);
}

}  // namespace edgemt
