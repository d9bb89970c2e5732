#include "ops/ssru_cell.h"

#include <cmath>

namespace edgemt {
namespace {

// Marian's form: exp of a non-positive number only, so that no exp overflows.
inline float Sigmoid(float x) {
  if (x > 0.0f) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

}  // namespace

void SSRUCellStep(const float* products, size_t d, float* cell, float* out) {
  const float* transformed = products;
  const float* gate = products + d;
  for (size_t i = 0; i < d; ++i) {
    const float forget = Sigmoid(gate[i]);
    const float c = cell[i] * forget + transformed[i] * (1.0f - forget);
    cell[i] = c;
    out[i] = c > 0.0f ? c : 0.0f;
  }
}

}  // namespace edgemt
