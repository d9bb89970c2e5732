#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "test_spm.h"

// doctest's own main, except that a run in which a test case had to return
// early (no SentencePiece model) exits 77: CTest's "skipped", never "passed".
int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  if (context.shouldExit() || failed != 0) return failed;
  if (edgemt::testing::SkippedForLackOfSentencePieceModel()) {
    std::fprintf(stderr, "some test cases were skipped: no SentencePiece model (exit 77)\n");
    return 77;
  }
  return 0;
}
