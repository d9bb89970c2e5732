// One step of Marian's SSRU (simpler simple recurrent unit) for one row,
// after its two products: f = sigmoid(gate), c = f * c_prev + (1 - f) * x',
// out = relu(c). The cell c is the row's whole state.
#pragma once

#include <cstddef>

namespace edgemt {

// `products` is [x' | gate] (2d floats: the transform and the forget gate's
// pre-activation side by side); `cell` holds c_prev (zeros before the
// first step) and gets c; `out` gets relu(c). d floats each.
void SSRUCellStep(const float* products, size_t d, float* cell, float* out);

}  // namespace edgemt
