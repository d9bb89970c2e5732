// libFuzzer target: arbitrary bytes as a model file. Loading must fail with
// a Status or succeed; a model that loads must also translate (see
// tests/support/exercise_model.cc). Built by tests/fuzz/run.sh.
#include <cstdio>
#include <cstdlib>

#include "exercise_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const edgemt::testing::ExerciseResult result = edgemt::testing::ExerciseModelBytes(data, size);
  if (!result.broken.empty()) {
    // Not a crash, but a broken promise: make libFuzzer keep the input.
    std::fprintf(stderr, "fuzz_model_loader: %s\n", result.broken.c_str());
    std::abort();
  }
  return 0;
}
