#include "ops/layer_norm.h"

#include <cmath>

#include "ops/vectorize.h"

namespace edgemt {
namespace {

// sum of a[i], over kDotLanes partial sums (ops/vectorize.h).
inline float Sum(const float* a, size_t n) {
  float partial[kDotLanes] = {};
  size_t i = 0;
  for (; i + kDotLanes <= n; i += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] += a[i + j];
  }
  for (size_t j = 0; i < n; ++i, ++j) partial[j] += a[i];
  return AddLanes(partial);
}

// sum of (a[i] - mean)^2, likewise.
inline float SquaredDeviationSum(const float* a, float mean, size_t n) {
  float partial[kDotLanes] = {};
  size_t i = 0;
  for (; i + kDotLanes <= n; i += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) {
      const float centred = a[i + j] - mean;
      partial[j] += centred * centred;
    }
  }
  for (size_t j = 0; i < n; ++i, ++j) {
    const float centred = a[i] - mean;
    partial[j] += centred * centred;
  }
  return AddLanes(partial);
}

}  // namespace

EDGEMT_VECTORIZED
void LayerNorm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta, float epsilon,
               float* out) {
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * d;
    float* y = out + r * d;
    // Two passes: the variance of centred values is accurate where
    // E[x^2] - E[x]^2 would cancel.
    const float mean = Sum(row, d) / static_cast<float>(d);
    const float inv_std = 1.0f / std::sqrt(SquaredDeviationSum(row, mean, d) / static_cast<float>(d) + epsilon);
    for (size_t i = 0; i < d; ++i) y[i] = (row[i] - mean) * inv_std * gamma[i] + beta[i];
  }
}

EDGEMT_VECTORIZED
void AddLayerNorm(const float* x, const float* residual, size_t rows, size_t d, const float* gamma,
                  const float* beta, float epsilon, float* out) {
  for (size_t i = 0, n = rows * d; i < n; ++i) out[i] = x[i] + residual[i];
  LayerNorm(out, rows, d, gamma, beta, epsilon, out);
}

}  // namespace edgemt
