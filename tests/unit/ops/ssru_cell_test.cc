// One SSRU step (ops/ssru_cell.h) against the equations in double
// precision, from a zero cell and carried on, with gates far out in both
// directions (no overflow: the cell keeps or replaces its state).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/ssru_cell.h"

using namespace edgemt;

TEST_CASE("SSRUCellStep: c = f c_prev + (1 - f) x', out = relu(c), f = sigmoid(gate)") {
  constexpr size_t d = 37;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> cell(d, 0.0f), out(d), products(2 * d);
  std::vector<double> expected_cell(d, 0.0);
  for (int step = 0; step < 4; ++step) {
    for (float& p : products) p = normal(rng);
    SSRUCellStep(products.data(), d, cell.data(), out.data());
    for (size_t i = 0; i < d; ++i) {
      const double f = 1.0 / (1.0 + std::exp(-static_cast<double>(products[d + i])));
      expected_cell[i] = f * expected_cell[i] + (1.0 - f) * products[i];
      CHECK(cell[i] == doctest::Approx(expected_cell[i]).epsilon(1e-5));
      CHECK(out[i] == doctest::Approx(std::max(0.0, expected_cell[i])).epsilon(1e-5));
      CHECK(out[i] >= 0.0f);
    }
  }
}

TEST_CASE("SSRUCellStep: a gate of +100 keeps the cell, -100 takes the new value, both finite") {
  const size_t d = 2;
  std::vector<float> cell = {1.5f, -2.0f}, out(d);
  const std::vector<float> products = {7.0f, 9.0f, 100.0f, -100.0f};
  SSRUCellStep(products.data(), d, cell.data(), out.data());
  CHECK(cell[0] == doctest::Approx(1.5f));
  CHECK(cell[1] == doctest::Approx(9.0f));
  CHECK(out[0] == doctest::Approx(1.5f));
  CHECK(out[1] == doctest::Approx(9.0f));
  const std::vector<float> extreme = {1.0f, 1.0f, 1e30f, -1e30f};
  SSRUCellStep(extreme.data(), d, cell.data(), out.data());
  CHECK(std::isfinite(cell[0]));
  CHECK(std::isfinite(cell[1]));
}
