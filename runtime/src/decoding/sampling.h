// Random sampling of the next token (DecodeOptions::sampling_* in
// edgemt/translator.h): temperature, top-k, top-p, from a generator seeded
// per sentence, so that the same seed and source give the same output in
// any batch and on any thread count. Works on caller scratch; allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decoding/banned_ids.h"

namespace edgemt {

struct SamplingRule {
  int top_k = 0;            // 0: every id
  float top_p = 1.0f;       // keep the most likely ids whose probabilities sum to top_p
  float temperature = 1.0f;
  BannedIds banned;  // never chosen
};

// The generator state of one sentence: the seed mixed with its source ids.
uint64_t SamplingSeed(uint64_t seed, const int32_t* source, size_t size);

// A uniform float in [0, 1) (24 random bits); advances the state.
float NextUniform(uint64_t* state);

// Draws an id from softmax(logits / temperature) restricted as the rule
// says. `probs` and `ids` hold `vocab` entries of scratch.
int32_t SampleToken(const float* logits, size_t vocab, const SamplingRule& rule, uint64_t* state, float* probs,
                    int32_t* ids);

}  // namespace edgemt
