// Replays every input the model fuzzer once broke the runtime with
// (tests/fuzz/regressions/NAME, next to NAME.expected: the Status the run
// must end with, as Status::ToString(), e.g. "ok" or "invalid model: ...").
// The fuzzer's own steps run (tests/support/exercise_model.cc), without libFuzzer.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "exercise_model.h"

namespace fs = std::filesystem;

namespace {

// The inputs committed in tests/fuzz/regressions (more may be added).
constexpr size_t kRegressionInputs = 2;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

TEST_CASE("inputs the model fuzzer found give a clean Status") {
  const fs::path dir = fs::path(EDGEMT_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  std::vector<fs::path> inputs;
  std::error_code missing;
  for (const auto& entry : fs::directory_iterator(dir, missing)) {
    const fs::path& path = entry.path();
    if (entry.is_regular_file() && path.extension() != ".expected" && path.filename() != "README.md")
      inputs.push_back(path);
  }
  std::sort(inputs.begin(), inputs.end());
  // The folder holds the fuzzer's finds: an empty or missing corpus is a broken test, not a pass.
  REQUIRE_MESSAGE(inputs.size() >= kRegressionInputs, "tests/fuzz/regressions holds " << inputs.size()
                  << " inputs, fewer than the " << kRegressionInputs << " committed");
  for (const fs::path& input : inputs) {
    CAPTURE(input.filename().string());
    fs::path expected_path = input;
    expected_path += ".expected";
    REQUIRE_MESSAGE(fs::exists(expected_path), "each regression input needs a NAME.expected file");
    std::ifstream in(input, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const edgemt::testing::ExerciseResult result = edgemt::testing::ExerciseModelBytes(bytes.data(), bytes.size());
    CHECK(result.broken == "");
    CHECK(result.status.ToString() == ReadText(expected_path));
  }
}
