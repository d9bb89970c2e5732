// How much probability a shortlisted row's logits leave out: the ids not in
// its list (docs/shortlist.md, "Scores"). Their logits are never computed,
// but their sum is: x . (the projection's rows summed over the vocabulary)
// + the bias summed, less the listed logits. n ids of mean logit m hold at
// least n exp(m) (Jensen), so log(n) + m is a lower estimate of their
// log-mass that costs one dot product. A model trained with label smoothing
// gives the ids its corpus never uses nearly equal logits, so for them the
// estimate is close; without it, normalising over the list alone moved beam
// search's choices between hypotheses.
#pragma once

#include <cstddef>

namespace edgemt {

// log(n) + (x . row_sum + bias_sum - sum of listed_logits) / n with n =
// vocab - listed: the estimated log of sum(exp(logit)) over the n unlisted
// ids of row x [d]. -infinity when nothing is left out, when the file has
// no sums (row_sum null: before format 2.7) and when they give no finite
// value (the caller then normalises over the list alone).
float UnlistedLogMass(const float* x, size_t d, const float* row_sum, double bias_sum, const float* listed_logits,
                      size_t listed, size_t vocab);

}  // namespace edgemt
