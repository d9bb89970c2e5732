#include "shortlist/unlisted_mass.h"

#include <cmath>
#include <limits>

namespace edgemt {

float UnlistedLogMass(const float* x, size_t d, const float* row_sum, double bias_sum, const float* listed_logits,
                      size_t listed, size_t vocab) {
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  if (row_sum == nullptr || listed >= vocab) return kNone;
  // In double: the whole row's sum is tens of thousands of logits, and the
  // mean of the rest is a small difference of two large sums.
  double total = bias_sum;
  for (size_t k = 0; k < d; ++k) total += static_cast<double>(x[k]) * static_cast<double>(row_sum[k]);
  double listed_sum = 0.0;
  for (size_t c = 0; c < listed; ++c) listed_sum += static_cast<double>(listed_logits[c]);
  const double n = static_cast<double>(vocab - listed);
  const double log_mass = std::log(n) + (total - listed_sum) / n;
  if (!(std::fabs(log_mass) < std::numeric_limits<float>::max())) return kNone;  // also NaN
  return static_cast<float>(log_mass);
}

}  // namespace edgemt
