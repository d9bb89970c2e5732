// Feed-forward activations that are not fused into the GEMM (ReLU is).
#pragma once

#include <cstddef>

#include "edgemt/model_config.h"

namespace edgemt {

// In place. kReLU is a no-op here: the GEMM clamps.
void ApplyActivation(Activation activation, float* x, size_t n);

}  // namespace edgemt
