// log(sum(exp(logits))) of a row of logits: the normalizer that turns
// logits into log-probabilities for beam search and scores.
#pragma once

#include <xnnpack.h>

#include <cstddef>

#include "decoding/banned_ids.h"
#include "edgemt/status.h"

namespace edgemt {

// XNNPACK's softmax does the work, vectorized (a scalar expf per logit was a
// fifth of a beam search's time). The row's largest probability is
// exp(0) / sum, so the normalizer is max(logits) - log(max(probabilities)).
class LogSumExp {
 public:
  LogSumExp() = default;
  ~LogSumExp();
  LogSumExp(const LogSumExp&) = delete;
  LogSumExp& operator=(const LogSumExp&) = delete;

  // For rows of `vocab` logits (vocab > 0); creates the operator once.
  Status Init(size_t vocab);

  // The normalizer of logits[0..count), count <= vocab (a shortlist's
  // columns); `probabilities` is scratch of `count` floats (it receives the
  // softmax). NaN if XNNPACK fails to run.
  float Of(const float* logits, size_t count, float* probabilities) const;

 private:
  xnn_operator_t softmax_ = nullptr;
  size_t vocab_ = 0;
  mutable size_t shaped_ = 0;  // the row length the operator is reshaped for
};

// The normalizer over the ids a choice may make: `lse` and `probabilities`
// from LogSumExp::Of on the same row, without the ids in `excluded` (a
// model's banned ids, </s> before min_length), so that the allowed ids'
// log-probabilities sum to one, as CTranslate2 computes them. When the
// excluded ids hold nearly all the probability, the sum is taken again over
// the allowed logits, in double. -inf when nothing is allowed.
float ExcludingIds(float lse, const float* logits, const float* probabilities, size_t vocab,
                   const BannedIds& excluded);

}  // namespace edgemt
