// A damaged model file gives a Status, never a crash, and the same Status for
// the same damage: the file cut at every byte of its first 4 KiB and of its
// last 1 KiB, and 2,000 seeded single-byte flips, each through the model
// fuzzer's steps (load, translator, translations; tests/support/exercise_model.h).
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "exercise_model.h"
#include "test_model.h"

namespace {

using edgemt::StatusCode;
using edgemt::testing::ExerciseModelBytes;
using edgemt::testing::ExerciseResult;

std::vector<uint8_t> ModelFile() {
  edgemt::testing::TestModelSpec spec;
  spec.int8 = true;
  return edgemt::testing::BuildTestModelFile(spec);
}

// Runs the damaged bytes (twice with `again`: the same status both times); no broken promise.
ExerciseResult Exercise(const std::vector<uint8_t>& bytes, size_t size, bool again = true) {
  const ExerciseResult first = ExerciseModelBytes(bytes.data(), size);
  CHECK(first.broken == "");
  if (again) CHECK(first.status.ToString() == ExerciseModelBytes(bytes.data(), size).status.ToString());
  return first;
}

}  // namespace

TEST_CASE("a model file cut at any byte of its first 4 KiB or last 1 KiB is refused as truncated or invalid") {
  const std::vector<uint8_t> file = ModelFile();
  REQUIRE(file.size() > 8192);
  REQUIRE(ExerciseModelBytes(file.data(), file.size()).status.ok());
  std::map<std::string, int> messages;
  auto cut = [&](size_t size) {
    CAPTURE(size);
    const ExerciseResult result = Exercise(file, size);
    // Never accepted: a file shorter than its own sizes is refused when it loads.
    CHECK(result.status.code() == StatusCode::kInvalidModel);
    ++messages[result.status.message().substr(0, 40)];
  };
  for (size_t size = 0; size < 4096; ++size) cut(size);
  for (size_t size = file.size() - 1024; size < file.size(); ++size) cut(size);
  MESSAGE(messages.size() << " distinct messages over " << 4096 + 1024 << " truncations");
}

TEST_CASE("2,000 seeded byte flips of a model file each give a Status, the same one each time") {
  const std::vector<uint8_t> file = ModelFile();
  std::mt19937 random(2000);
  std::uniform_int_distribution<size_t> position(0, file.size() - 1);
  std::uniform_int_distribution<int> mask(1, 255);
  int accepted = 0, refused = 0;
  for (int flip = 0; flip < 2000; ++flip) {
    std::vector<uint8_t> damaged = file;
    const size_t at = position(random);
    damaged[at] = static_cast<uint8_t>(damaged[at] ^ mask(random));
    CAPTURE(flip);
    CAPTURE(at);
    // (Every tenth twice: a flip that loads translates, which costs more under emulation.)
    const ExerciseResult result = Exercise(damaged, damaged.size(), flip % 10 == 0);
    // A flip in the weights still loads and translates (other numbers); one in
    // the structure is refused as an invalid model, or as one this runtime
    // does not run (a format version, a kind of layer), never as an internal error.
    if (result.status.ok()) {
      ++accepted;
    } else {
      ++refused;
      const StatusCode code = result.status.code();
      CHECK_MESSAGE((code == StatusCode::kInvalidModel || code == StatusCode::kUnsupported), result.status.ToString());
    }
  }
  MESSAGE(accepted << " flips accepted, " << refused << " refused");
  CHECK(accepted + refused == 2000);
  CHECK(refused > 0);
  CHECK(accepted > 0);
}
