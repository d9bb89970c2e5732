// The greedy choice of the next token from one sentence's logits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decoding/banned_ids.h"

namespace edgemt {

// The argmax over all ids except the banned ones; the lowest id on ties.
// NaNs are never chosen while another id is allowed; with every allowed
// logit NaN, the lowest allowed id; with every id banned, 0.
int32_t NextToken(const float* logits, size_t vocab, const BannedIds& banned);

}  // namespace edgemt
