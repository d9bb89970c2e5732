#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test_spm.h"

namespace {

// Cases that exist for one CPU feature or build only are decorated
// doctest::skip(condition) * doctest::description("needs ..."): where they
// cannot run they are listed by name as not applicable, never passed.
std::vector<std::string>& NotApplicable() {
  static std::vector<std::string> cases;
  return cases;
}

struct NotApplicableListener : doctest::IReporter {
  explicit NotApplicableListener(const doctest::ContextOptions&) {}
  void test_case_skipped(const doctest::TestCaseData& test) override {
    const std::string why = test.m_description != nullptr ? test.m_description : "";
    if (test.m_skip && why.rfind("needs ", 0) == 0) NotApplicable().push_back(std::string(test.m_name) + " (" + why + ")");
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
};

REGISTER_LISTENER("not_applicable", 1, NotApplicableListener);

}  // namespace

// doctest's own main, except that a run in which a test case had to return
// early (no SentencePiece model) exits 77: CTest's "skipped", never "passed".
int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  // One line per case (tests/run.sh and tests/x86_cpus/run.sh count them).
  for (const std::string& name : NotApplicable()) std::printf("not applicable here: %s\n", name.c_str());
  if (context.shouldExit() || failed != 0) return failed;
  if (edgemt::testing::SkippedForLackOfSentencePieceModel()) {
    std::fprintf(stderr, "some test cases were skipped: no SentencePiece model (exit 77)\n");
    return 77;
  }
  return 0;
}
