#include "decoding/sampling.h"

#include <algorithm>
#include <cmath>

namespace edgemt {
namespace {

// SplitMix64: a fast generator whose every 64-bit state is valid.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t SamplingSeed(uint64_t seed, const int32_t* source, size_t size) {
  uint64_t state = Mix(seed + 0x9E3779B97F4A7C15ULL);
  for (size_t i = 0; i < size; ++i) state = Mix(state ^ static_cast<uint32_t>(source[i]));
  return state;
}

float NextUniform(uint64_t* state) {
  *state += 0x9E3779B97F4A7C15ULL;
  return static_cast<float>(Mix(*state) >> 40) * (1.0f / 16777216.0f);
}

int32_t SampleToken(const float* logits, size_t vocab, const SamplingRule& rule, uint64_t* state, float* probs,
                    int32_t* ids) {
  // The candidates: every id not banned.
  size_t count = 0;
  for (size_t v = 0; v < vocab; ++v) {
    const int32_t id = static_cast<int32_t>(v);
    if (rule.banned.Contains(id)) continue;
    ids[count++] = id;
  }
  if (count == 0) return 0;  // nothing allowed: a vocabulary of banned ids
  // Most likely first, the lower id on ties: top-k orders the k kept, top-p
  // all; plain sampling keeps the id order.
  auto better = [logits](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  if (rule.top_k > 0 && static_cast<size_t>(rule.top_k) < count) {
    std::nth_element(ids, ids + rule.top_k - 1, ids + count, better);
    count = static_cast<size_t>(rule.top_k);
  }
  if (rule.top_k > 0 || rule.top_p < 1.0f) std::sort(ids, ids + count, better);
  // Probabilities of the candidates at the temperature, unnormalized.
  float maximum = logits[ids[0]];
  for (size_t i = 1; i < count; ++i) maximum = std::max(maximum, logits[ids[i]]);
  double total = 0.0;
  for (size_t i = 0; i < count; ++i) {
    probs[i] = std::exp((logits[ids[i]] - maximum) / rule.temperature);
    total += probs[i];
  }
  if (rule.top_p < 1.0f) {
    // The shortest prefix whose probability reaches top_p of the whole.
    double kept = 0.0;
    size_t keep = 0;
    while (keep < count && kept < static_cast<double>(rule.top_p) * total) kept += probs[keep++];
    count = std::max<size_t>(keep, 1);
    total = 0.0;
    for (size_t i = 0; i < count; ++i) total += probs[i];
  }
  const double target = static_cast<double>(NextUniform(state)) * total;
  double sum = 0.0;
  for (size_t i = 0; i < count; ++i) {
    sum += probs[i];
    if (target < sum) return ids[i];
  }
  return ids[count - 1];
}

}  // namespace edgemt
