// The vectorized row scans (runtime/src/decoding/row_scan.h) against plain
// loops: sizes around the vector widths and the 64-value blocks, signed
// zeros, infinities and NaNs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "decoding/row_scan.h"
#include "lcg.h"

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// The largest non-NaN value and `at_least`; of equal ones (-0 and +0) the
// one with the larger bits as a signed number, +0.
float PlainLargest(const std::vector<float>& values, float at_least) {
  float best = at_least;
  for (float v : values) {
    if (std::isnan(v)) continue;
    if (v > best || (v == best && !std::signbit(v))) best = v;
  }
  return best;
}

size_t PlainFirstAtLeast(const std::vector<float>& values, float limit) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] >= limit) return i;
  }
  return values.size();
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

}  // namespace

TEST_CASE("LargestValue and FirstAtLeast match plain loops") {
  edgemt::testing::Lcg rng(5);
  const float specials[] = {kNan, -kNan, kInf, -kInf, 0.0f, -0.0f, 1e-45f, -1e-45f};
  for (size_t count : {0u, 1u, 15u, 16u, 17u, 63u, 64u, 65u, 129u, 1000u}) {
    for (int trial = 0; trial < 30; ++trial) {
      CAPTURE(count);
      CAPTURE(trial);
      std::vector<float> values(count);
      for (float& v : values) v = static_cast<float>(rng.Int(-400, 400)) / 8.0f;
      // A few special values in random places; sometimes all negative.
      if (trial % 3 == 1) {
        for (float& v : values) v = -std::fabs(v) - 1.0f;
      }
      for (int k = 0; k < trial % 5 && count > 0; ++k)
        values[static_cast<size_t>(rng.Int(0, static_cast<int>(count) - 1))] = specials[rng.Int(0, 7)];
      for (float at_least : {-kInf, -3.0f, 0.0f, 60.0f}) {
        CHECK(SameBits(edgemt::LargestValue(values.data(), count, at_least), PlainLargest(values, at_least)));
      }
      for (float limit : {-kInf, -10.0f, 0.0f, 49.0f, kInf, kNan}) {
        CHECK(edgemt::FirstAtLeast(values.data(), count, limit) == PlainFirstAtLeast(values, limit));
      }
    }
  }
}

TEST_CASE("LargestValue of NaNs only is the bound") {
  const std::vector<float> nans(70, kNan);
  CHECK(edgemt::LargestValue(nans.data(), nans.size()) == -kInf);
  CHECK(edgemt::LargestValue(nans.data(), nans.size(), 2.5f) == 2.5f);
  CHECK(edgemt::FirstAtLeast(nans.data(), nans.size(), -kInf) == nans.size());
}
