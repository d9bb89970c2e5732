// LayerNorm and AddLayerNorm (runtime/src/ops/layer_norm.h) against the formula in
// double precision, at widths that are and are not multiples of the vector lanes.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lcg.h"
#include "ops/layer_norm.h"

using edgemt::testing::Lcg;

TEST_CASE("LayerNorm and AddLayerNorm follow the formula") {
  Lcg lcg(5);
  for (size_t d : {size_t{7}, size_t{16}, size_t{100}, size_t{256}}) {
    const size_t rows = 3;
    std::vector<float> x = lcg.Floats(rows * d, -4.0f, 6.0f);
    std::vector<float> residual = lcg.Floats(rows * d, -1.0f, 1.0f);
    std::vector<float> gamma = lcg.Floats(d, 0.5f, 1.5f), beta = lcg.Floats(d, -0.5f, 0.5f);
    std::vector<float> normed(rows * d), added(rows * d);
    edgemt::LayerNorm(x.data(), rows, d, gamma.data(), beta.data(), 1e-5f, normed.data());
    edgemt::AddLayerNorm(x.data(), residual.data(), rows, d, gamma.data(), beta.data(), 1e-5f, added.data());
    for (int with_residual = 0; with_residual < 2; ++with_residual) {
      const std::vector<float>& got = with_residual ? added : normed;
      for (size_t r = 0; r < rows; ++r) {
        double mean = 0.0, var = 0.0;
        std::vector<double> row(d);
        for (size_t i = 0; i < d; ++i) row[i] = static_cast<double>(x[r * d + i]) + (with_residual ? residual[r * d + i] : 0.0f);
        for (double v : row) mean += v / static_cast<double>(d);
        for (double v : row) var += (v - mean) * (v - mean) / static_cast<double>(d);
        for (size_t i = 0; i < d; ++i) {
          const double expected = (row[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
          CHECK(std::fabs(got[r * d + i] - expected) <= 1e-5 * (1.0 + std::fabs(expected)));
        }
      }
    }
  }
}

