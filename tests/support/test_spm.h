// The SentencePiece model tests of text use: EDGEMT_TEST_SPM (set by
// tests/robustness/with_tiny_spm.py), else ../shared's Multi30k one. For
// doctest test files (header-only: it reports through doctest).
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace edgemt::testing {

inline std::string SentencePieceModelPath() {
  const char* from_env = std::getenv("EDGEMT_TEST_SPM");
  if (from_env != nullptr && *from_env != '\0') return from_env;
#ifdef EDGEMT_SHARED_DIR
  const std::string shared = std::string(EDGEMT_SHARED_DIR) + "/models/multi30k-ende/spm.model";
  struct stat info;
  if (stat(shared.c_str(), &info) == 0) return shared;
#endif
  return "";
}

// Set when a test case returned early for lack of a SentencePiece model:
// the test program then exits 77 (CTest: skipped) instead of 0 (tests/unit/main.cc).
inline bool& SkippedForLackOfSentencePieceModel() {
  static bool skipped = false;
  return skipped;
}

// A serialized SentencePiece model, or nothing: the test case then returns
// at once, and the whole program reports itself skipped.
inline std::vector<uint8_t> SentencePieceModelOrSkip() {
  const std::string path = SentencePieceModelPath();
  if (path.empty()) {
    MESSAGE("skipped: no SentencePiece model (set EDGEMT_TEST_SPM, or provide ../shared/models/multi30k-ende/spm.model)");
    SkippedForLackOfSentencePieceModel() = true;
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> spm((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(spm.empty());
  return spm;
}

}  // namespace edgemt::testing
