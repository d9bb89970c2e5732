// ExpNonPositive (runtime/src/ops/exp.h) against std::exp in double precision.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/exp.h"

TEST_CASE("ExpNonPositive is exp within two float ulps, 1 at 0 and 0 below the normal range") {
  CHECK(edgemt::ExpNonPositive(0.0f) == 1.0f);
  CHECK(edgemt::ExpNonPositive(-88.0f) == 0.0f);
  CHECK(edgemt::ExpNonPositive(-std::numeric_limits<float>::infinity()) == 0.0f);
  CHECK(edgemt::ExpNonPositive(std::numeric_limits<float>::quiet_NaN()) == 0.0f);
  double worst = 0.0;
  for (float x = 0.0f; x > -87.0f; x -= 0.000731f) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(edgemt::ExpNonPositive(x) - exact) / exact);
  }
  CHECK(worst <= 2.0 * 0x1p-24);
}

