// What the model-loader fuzzer does with its input, shared with the unit
// test that replays the inputs it once crashed on (tests/fuzz/regressions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "edgemt/status.h"

namespace edgemt::testing {

struct ExerciseResult {
  // The first error: loading, creating the translator or translating.
  Status status;
  // Set when the runtime broke a promise without crashing: an output id
  // outside the vocabulary, an output over the limits, an internal error
  // from a model the reader accepted. Empty when all is well.
  std::string broken;
};

// Loads `size` bytes (copied to a 64-byte aligned buffer) as a model; when
// they load, creates a translator with small limits and translates two
// short id sequences, alone and as a batch.
ExerciseResult ExerciseModelBytes(const uint8_t* data, size_t size);

}  // namespace edgemt::testing
