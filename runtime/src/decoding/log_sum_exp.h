// log(sum(exp(logits))) of a row of logits: the normalizer that turns
// logits into log-probabilities for beam search and scores.
#pragma once

#include <cstddef>

#include "decoding/banned_ids.h"

namespace edgemt {

// The normalizer of logits[0..count): max + log(sum(exp(logit - max))), in
// two vectorized passes (XNNPACK's softmax took five: it also wrote the
// probabilities and we found the maximum again). NaN logits count as
// probability 0; -infinity when there is nothing else, +infinity when a
// logit is.
float LogSumExp(const float* logits, size_t count);

// LogSumExp of a row that holds the logits of a shortlist's ids only, with
// the estimated log-mass of the ids outside it added (-infinity: none), so
// that log-probabilities stay near the whole vocabulary's
// (docs/shortlist.md, "Scores").
float ListedLogSumExp(const float* logits, size_t count, float unlisted_log_mass);

// The normalizer over the ids a choice may make: `lse` from LogSumExp on
// the same row, without the ids in `excluded` (a model's banned ids, </s>
// before min_length), so that the allowed ids' log-probabilities sum to
// one, as CTranslate2 computes them. When the excluded ids hold nearly all
// the probability, the sum is taken again over the allowed logits, in
// double. -inf when nothing is allowed.
float ExcludingIds(float lse, const float* logits, size_t vocab, const BannedIds& excluded);

}  // namespace edgemt
