// Vectorized scans over a row of logits: its largest value, and where the
// first value at least some bound is. Greedy's argmax, the log-sum-exp and
// beam search's candidate search are made of them.
#pragma once

#include <cstddef>
#include <limits>

namespace edgemt {

// The largest of values[0..count) and `at_least`; NaNs are never the largest.
float LargestValue(const float* values, size_t count, float at_least = -std::numeric_limits<float>::infinity());

// The first i with values[i] >= limit, or `count` when there is none (NaNs
// never are).
size_t FirstAtLeast(const float* values, size_t count, float limit);

}  // namespace edgemt
