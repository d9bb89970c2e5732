// The probability a shortlist leaves out (ops/unlisted_mass.h) and the
// normalizer that adds it (decoding/log_sum_exp.h): the estimate is log(n)
// plus the exact mean of the unlisted logits, and the normalizer with it
// lies between the list's own and the whole vocabulary's (Jensen).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "decoding/log_sum_exp.h"
#include "lcg.h"
#include "shortlist/unlisted_mass.h"

using namespace edgemt;

namespace {

struct Projection {
  size_t d, vocab;
  std::vector<float> weight, bias, row_sum;  // [vocab, d], [vocab], [d]
  double bias_sum = 0.0;
};

Projection RandomProjection(size_t d, size_t vocab, uint32_t seed) {
  edgemt::testing::Lcg lcg(seed);
  Projection p{d, vocab, std::vector<float>(vocab * d), std::vector<float>(vocab), std::vector<float>(d, 0.0f)};
  for (float& w : p.weight) w = lcg.Float(-0.5f, 0.5f);
  for (float& b : p.bias) b = lcg.Float(-1.0f, 1.0f);
  std::vector<double> sum(d, 0.0);
  for (size_t v = 0; v < vocab; ++v) {
    for (size_t k = 0; k < d; ++k) sum[k] += p.weight[v * d + k];
    p.bias_sum += p.bias[v];
  }
  for (size_t k = 0; k < d; ++k) p.row_sum[k] = static_cast<float>(sum[k]);
  return p;
}

std::vector<float> Logits(const Projection& p, const std::vector<float>& x) {
  std::vector<float> logits(p.vocab);
  for (size_t v = 0; v < p.vocab; ++v) {
    double acc = p.bias[v];
    for (size_t k = 0; k < p.d; ++k) acc += static_cast<double>(x[k]) * p.weight[v * p.d + k];
    logits[v] = static_cast<float>(acc);
  }
  return logits;
}

}  // namespace

TEST_CASE("the unlisted log-mass is log(n) plus the unlisted logits' mean; the normalizer lies between") {
  const Projection p = RandomProjection(24, 500, 7);
  edgemt::testing::Lcg lcg(3);
  for (size_t listed : {1, 37, 250, 499}) {
    CAPTURE(listed);
    std::vector<float> x(p.d);
    for (float& v : x) v = lcg.Float(-2.0f, 2.0f);
    const std::vector<float> logits = Logits(p, x);
    // The list: the first `listed` ids of the order 0, 7, 14, ... (mod 500).
    std::vector<float> listed_logits, unlisted_logits;
    for (size_t i = 0; i < p.vocab; ++i) {
      const size_t id = (i * 7) % p.vocab;
      (listed_logits.size() < listed ? listed_logits : unlisted_logits).push_back(logits[id]);
    }
    double mean = 0.0;
    for (float l : unlisted_logits) mean += l;
    mean /= static_cast<double>(unlisted_logits.size());
    const float estimate =
        UnlistedLogMass(x.data(), p.d, p.row_sum.data(), p.bias_sum, listed_logits.data(), listed, p.vocab);
    CHECK(estimate == doctest::Approx(std::log(static_cast<double>(p.vocab - listed)) + mean).epsilon(1e-4));

    const float own = LogSumExp(listed_logits.data(), listed);
    const float with_rest = ListedLogSumExp(listed_logits.data(), listed, estimate);
    const float whole = LogSumExp(logits.data(), logits.size());
    CHECK(own < with_rest);
    CHECK(with_rest <= whole + 1e-5f);
  }
}

TEST_CASE("nothing unlisted, no sums, or sums that are not finite, leave the list's own normalizer") {
  const Projection p = RandomProjection(8, 20, 5);
  const std::vector<float> x(p.d, 0.5f);
  const std::vector<float> logits = Logits(p, x);
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  CHECK(UnlistedLogMass(x.data(), p.d, p.row_sum.data(), p.bias_sum, logits.data(), p.vocab, p.vocab) == kNone);
  CHECK(UnlistedLogMass(x.data(), p.d, nullptr, p.bias_sum, logits.data(), 5, p.vocab) == kNone);  // no sums
  std::vector<float> broken = p.row_sum;
  broken[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK(UnlistedLogMass(x.data(), p.d, broken.data(), p.bias_sum, logits.data(), 5, p.vocab) == kNone);
  broken[3] = 3e38f;
  broken[4] = 3e38f;
  const std::vector<float> big(p.d, 3e38f);
  CHECK(UnlistedLogMass(big.data(), p.d, broken.data(), p.bias_sum, logits.data(), 5, p.vocab) == kNone);
  CHECK(ListedLogSumExp(logits.data(), 5, kNone) == LogSumExp(logits.data(), 5));
  // A list whose logits are all -infinity leaves the rest's mass.
  const std::vector<float> impossible(3, kNone);
  CHECK(ListedLogSumExp(impossible.data(), 3, 1.5f) == 1.5f);
}
