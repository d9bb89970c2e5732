// Position tables (ops/embedding.h): Marian's sinusoid against its
// equation, from position 0 (where it is zeros then ones), and OpenNMT's,
// the same frequencies one position later.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ops/embedding.h"

using namespace edgemt;

TEST_CASE("Marian's sinusoid: sin(p v_i) | cos(p v_i), v_i = 10000^(-i / (d/2 - 1)), from position 0") {
  constexpr size_t d = 16, positions = 40, half = d / 2;
  std::vector<float> table(positions * d);
  FillSinusoidalTable(PositionEncoding::kSinusoidalMarian, positions, d, table.data());
  for (size_t i = 0; i < half; ++i) {
    CHECK(table[i] == 0.0f);
    CHECK(table[half + i] == 1.0f);
  }
  for (size_t p = 0; p < positions; ++p) {
    for (size_t i = 0; i < half; ++i) {
      const double v = std::pow(10000.0, -static_cast<double>(i) / static_cast<double>(half - 1));
      CHECK(table[p * d + i] == doctest::Approx(std::sin(p * v)).epsilon(1e-5));
      CHECK(table[p * d + half + i] == doctest::Approx(std::cos(p * v)).epsilon(1e-5));
    }
  }
  std::vector<float> opennmt((positions - 1) * d);
  FillSinusoidalTable(PositionEncoding::kSinusoidalOpenNMT, positions - 1, d, opennmt.data());
  for (size_t k = 0; k < opennmt.size(); ++k) CHECK(opennmt[k] == table[d + k]);
}
