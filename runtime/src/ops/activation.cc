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
    case Activation::kGELUTanh:  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        x[i] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
      }
      break;
    case Activation::kGELUSigmoid:  // x sigmoid(1.702 x)
      for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-1.702f * x[i]));
      break;
  }
}

}  // namespace edgemt
