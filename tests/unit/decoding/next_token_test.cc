// The greedy choice (runtime/src/decoding/next_token.h) against a plain
// scan: the largest logit, the lowest id on ties, never the banned id.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "decoding/next_token.h"
#include "lcg.h"

namespace {

edgemt::BannedIds Ban(std::initializer_list<int32_t> ids) {
  edgemt::BannedIds banned;
  for (int32_t id : ids) banned.Add(id);
  return banned;
}

int32_t PlainArgmax(const std::vector<float>& logits, const edgemt::BannedIds& banned) {
  int32_t best = -1;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (banned.Contains(static_cast<int32_t>(i)) || std::isnan(logits[i])) continue;
    if (best < 0 || logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

}  // namespace

TEST_CASE("NextToken is the argmax with the lowest id on ties, skipping the banned ids") {
  edgemt::testing::Lcg rng(99);
  // Sizes around the vectorized loop's lane count, and a vocabulary's.
  for (size_t vocab : {1u, 2u, 15u, 16u, 17u, 33u, 257u, 8000u}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> logits(vocab);
      // Few distinct values: ties are common.
      for (float& v : logits) v = static_cast<float>(rng.Int(-4, 4));
      // None, one, or up to five (repeats and an id past the vocabulary included), in any order.
      edgemt::BannedIds banned;
      const int bans = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 1 : static_cast<int>(rng.Int(2, 5));
      for (int b = 0; b < bans; ++b) banned.Add(static_cast<int32_t>(rng.Int(0, static_cast<int>(vocab))));
      CAPTURE(vocab);
      CAPTURE(banned.count);
      const int32_t expected = PlainArgmax(logits, banned);
      CHECK(edgemt::NextToken(logits.data(), vocab, banned) == (expected < 0 ? 0 : expected));
    }
  }
}

TEST_CASE("NextToken with infinities and NaNs") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> logits(40, -inf);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({})) == 0);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({0})) == 1);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({1, 0, 2})) == 3);
  logits[37] = 1.0f;
  logits[5] = nan;
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({})) == 37);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({37})) == 0);
  logits[21] = inf;
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({})) == 21);
  CHECK(edgemt::NextToken(logits.data(), logits.size(), Ban({21, 37})) == 0);
  std::vector<float> all_nan(20, nan);
  CHECK(edgemt::NextToken(all_nan.data(), all_nan.size(), Ban({0})) == 1);
  // Every id banned: nothing to choose.
  std::vector<float> one(1, 2.0f);
  CHECK(edgemt::NextToken(one.data(), 1, Ban({0})) == 0);
}
