#include "decoding/log_sum_exp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decoding/row_scan.h"
#include "ops/exp.h"
#include "ops/vectorize.h"

namespace edgemt {

EDGEMT_VECTORIZED
float LogSumExp(const float* logits, size_t count) {
  const float top = LargestValue(logits, count);
  if (std::isinf(top)) return top;
  // kDotLanes partial sums, added pairwise: vectorizes, in an order that
  // does not depend on the instruction set. Each is at least exp(0) = 1 in
  // total, so the log is finite.
  float partial[kDotLanes] = {};
  size_t i = 0;
  for (; i + kDotLanes <= count; i += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] += ExpNonPositive(logits[i + j] - top);
  }
  for (size_t j = 0; i < count; ++i, ++j) partial[j] += ExpNonPositive(logits[i] - top);
  return top + std::log(AddLanes(partial));
}

float ListedLogSumExp(const float* logits, size_t count, float unlisted_log_mass) {
  const float listed = LogSumExp(logits, count);
  if (std::isinf(unlisted_log_mass) || std::isnan(listed) || listed == std::numeric_limits<float>::infinity())
    return listed;
  if (std::isinf(listed)) return unlisted_log_mass;  // -infinity: nothing listed is possible
  const float top = std::max(listed, unlisted_log_mass);
  return top + std::log(std::exp(listed - top) + std::exp(unlisted_log_mass - top));
}

float ExcludingIds(float lse, const float* logits, size_t vocab, const BannedIds& excluded) {
  double removed = 0.0;
  for (size_t i = 0; i < excluded.count; ++i) {
    const int32_t id = excluded.ids[i];
    bool repeated = false;  // (an id listed twice counts once)
    for (size_t j = 0; j < i; ++j) repeated = repeated || excluded.ids[j] == id;
    if (!repeated && id >= 0 && static_cast<size_t>(id) < vocab)
      removed += std::exp(static_cast<double>(logits[id]) - static_cast<double>(lse));
  }
  if (removed == 0.0) return lse;
  const double kept = 1.0 - removed;
  // The float normalizer leaves ~1e-7 of error: fine for what is kept above 1e-3.
  if (kept > 1e-3) return static_cast<float>(static_cast<double>(lse) + std::log(kept));
  double top = -std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < vocab; ++v) {
    if (!excluded.Contains(static_cast<int32_t>(v))) top = std::max(top, static_cast<double>(logits[v]));
  }
  if (top == -std::numeric_limits<double>::infinity()) return static_cast<float>(top);
  double sum = 0.0;
  for (size_t v = 0; v < vocab; ++v) {
    if (!excluded.Contains(static_cast<int32_t>(v))) sum += std::exp(static_cast<double>(logits[v]) - top);
  }
  return static_cast<float>(top + std::log(sum));
}

}  // namespace edgemt
