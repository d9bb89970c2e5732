// The greedy choice (runtime/src/decoding/next_token.h) against a plain
// scan: the largest logit, the lowest id on ties, never the banned id.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "decoding/next_token.h"
#include "lcg.h"

namespace {

int32_t PlainArgmax(const std::vector<float>& logits, int32_t banned) {
  int32_t best = -1;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (static_cast<int32_t>(i) == banned || std::isnan(logits[i])) continue;
    if (best < 0 || logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace

TEST_CASE("NextToken is the argmax with the lowest id on ties, skipping the banned id") {
  edgemt::testing::Lcg rng(99);
  // Sizes around the vectorized loop's lane count, and a vocabulary's.
  for (size_t vocab : {1u, 2u, 15u, 16u, 17u, 33u, 257u, 8000u}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> logits(vocab);
      // Few distinct values: ties are common.
      for (float& v : logits) v = static_cast<float>(rng.Int(-4, 4));
      const int32_t banned = trial % 3 == 0 ? -1 : static_cast<int32_t>(rng.Int(0, static_cast<int>(vocab) - 1));
      CAPTURE(vocab);
      CAPTURE(banned);
      const int32_t expected = PlainArgmax(logits, banned);
      CHECK(edgemt::NextToken(logits.data(), vocab, banned) == (expected < 0 ? banned : expected));
    }
  }
}

TEST_CASE("NextToken with infinities and NaNs") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> logits(40, -inf);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), -1) == 0);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), 0) == 1);
  logits[37] = 1.0f;
  logits[5] = nan;
  CHECK(edgemt::NextToken(logits.data(), logits.size(), -1) == 37);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), 37) == 0);
  logits[21] = inf;
  CHECK(edgemt::NextToken(logits.data(), logits.size(), -1) == 21);
  std::vector<float> all_nan(20, nan);
  CHECK(edgemt::NextToken(all_nan.data(), all_nan.size(), 0) == 1);
  // The banned id is the whole vocabulary: nothing else to choose.
  std::vector<float> one(1, 2.0f);
  CHECK(edgemt::NextToken(one.data(), 1, 0) == 0);
}
