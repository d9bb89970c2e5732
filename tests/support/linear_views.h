// LinearViews over a test's own arrays, for the ops/linear tests.
#pragma once

#include <cstdint>
#include <vector>

#include "model_file/model_weights.h"

namespace edgemt::testing {

// An int8 weight [rows, cols] with one scale per row, and a bias.
inline LinearView Int8View(int rows, int cols, const std::vector<int8_t>& q, const std::vector<float>& scales,
                           const std::vector<float>& bias) {
  LinearView view;
  view.weight.type = WeightType::kInt8;
  view.weight.rows = rows;
  view.weight.cols = cols;
  view.weight.data = q.data();
  view.weight.scales = scales.data();
  view.bias = bias.data();
  return view;
}

}  // namespace edgemt::testing
