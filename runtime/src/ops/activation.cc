#include "ops/activation.h"

#include <cmath>

namespace edgemt {

void ApplyActivation(Activation activation, float* x, size_t n) {
  switch (activation) {
    case Activation::kReLU:
      break;
    case Activation::kGELU:  // exact erf form, as torch.nn.GELU()
      for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
      break;
    case Activation::kSiLU:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
      break;
  }
}

}  // namespace edgemt
