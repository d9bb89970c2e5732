// Memory running out at every allocation of loading a model, creating
// translators and translating: each attempt returns kResourceExhausted (or
// gets by without the memory it was refused), throws nothing, leaks nothing,
// and the next attempt with memory works (docs/robustness.md); a translator
// set up without memory it was refused translates as one that had it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

#include "edgemt/edgemt.h"
#include "edgemt/model.h"
#include "edgemt/text_translator.h"
#include "edgemt/translator.h"
#include "failing_allocator.h"
#include "test_model.h"

namespace edgemt {
namespace {

using testing::AlignedBytes;
using testing::TestModelSpec;

struct Sweep {
  long attempts_failed = 0;    // returned kResourceExhausted
  long failures_absorbed = 0;  // succeeded without the refused memory
  long allocations = 0;        // in the attempt that had all it asked for
};

// Runs `attempt` once with all the memory it asks for (first-use set-up of
// the process stays out of the count), then again with its n-th allocation
// failing, for n = 0, 1, ... until an attempt makes no allocation fail.
Sweep SweepAllocationFailures(const std::function<Status()>& attempt) {
  Sweep sweep;
  REQUIRE(attempt().ok());
  // Far more than any attempt makes: a hook that never stops failing ends here.
  constexpr long kMostAllocations = 100000;
  for (long n = 0; n < kMostAllocations; ++n) {
    const long live_before = testing::LiveHeapBlocks();
    bool ok = false, threw = false;
    StatusCode code = StatusCode::kOk;
    char message[256] = "";
    testing::FailAllocationAfter(n);
    try {
      const Status status = attempt();
      ok = status.ok();
      code = status.code();
      std::snprintf(message, sizeof(message), "%s", status.ToString().c_str());
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    const bool failed = testing::StopFailingAllocations();
    const long live_after = testing::LiveHeapBlocks();
    INFO("allocation " << n << " failing: " << message);
    CHECK_MESSAGE(!threw, "std::bad_alloc escaped from EdgeMT");
    CHECK(live_after == live_before);
    if (threw || live_after != live_before) return sweep;  // one report, not thousands
    if (!failed) {
      CHECK(ok);
      sweep.allocations = n;
      return sweep;
    }
    if (ok) {
      ++sweep.failures_absorbed;
    } else {
      CHECK(code == StatusCode::kResourceExhausted);
      ++sweep.attempts_failed;
    }
  }
  FAIL("an attempt still met a failing allocation after " << kMostAllocations << " of them");
  return sweep;
}

// Prints the sweep and checks it: every allocation was failed in turn (each
// such attempt was refused or got by) and there were at least as many as
// docs/robustness.md gives, so that a hook that fails nothing cannot pass.
void Report(const char* what, const Sweep& sweep, long documented) {
  std::printf("allocation failures: %s: %ld allocations, %ld refused with kResourceExhausted, %ld got by without\n",
              what, sweep.allocations, sweep.attempts_failed, sweep.failures_absorbed);
  INFO(what);
  CHECK(sweep.attempts_failed + sweep.failures_absorbed == sweep.allocations);
  CHECK(sweep.attempts_failed > 0);
  CHECK(sweep.allocations >= documented);
}

TestModelSpec Int8Spec() {
  TestModelSpec spec;
  spec.int8 = true;
  return spec;
}

TEST_CASE("allocation failures: loading a model from memory" * doctest::skip(!testing::CanFailAllocations())
          * doctest::description("needs the allocation hooks (not with the sanitizers)")) {
  for (const bool int8 : {false, true}) {
    TestModelSpec spec;
    spec.int8 = int8;
    const AlignedBytes bytes(testing::BuildTestModelFile(spec));
    const Sweep sweep = SweepAllocationFailures([&] { return Model::FromBuffer(bytes.data(), bytes.size()).status(); });
    Report(int8 ? "Model::FromBuffer (int8)" : "Model::FromBuffer (float32)", sweep, 7);
  }
}

TEST_CASE("allocation failures: loading a model file" * doctest::skip(!testing::CanFailAllocations())
          * doctest::description("needs the allocation hooks (not with the sanitizers)")) {
  const std::vector<uint8_t> file = testing::BuildTestModelFile(Int8Spec());
  char path[] = "/tmp/edgemt-allocation-failure-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, file.data(), file.size()) == static_cast<ssize_t>(file.size()));
  close(fd);
  const std::string name = path;
  const Sweep sweep = SweepAllocationFailures([&] { return Model::Load(name).status(); });
  unlink(path);
  Report("Model::Load", sweep, 8);
}

TEST_CASE("allocation failures: creating a translator and translating" * doctest::skip(!testing::CanFailAllocations())
          * doctest::description("needs the allocation hooks (not with the sanitizers)")) {
  for (const int threads : {1, 2}) {
    const testing::TestModel loaded = testing::LoadTestModel(Int8Spec());
    const std::vector<std::vector<int32_t>> sources = testing::SyntheticSources(3, 40, 4, 2, 3, 5);
    const std::vector<TokenIds> views = testing::Views(sources);
    TranslatorOptions options;
    options.max_batch_size = 3;
    options.max_beam_size = 2;
    options.num_threads = threads;
    DecodeOptions decode;
    decode.beam_size = 2;
    decode.max_length = 8;
    // What a translator made with all the memory it asks for outputs.
    std::vector<std::vector<int32_t>> expected;
    {
      auto translator = Translator::Create(loaded.model, options);
      REQUIRE(translator.ok());
      TokenIds outputs[3];
      REQUIRE(translator.value()->Translate(views.data(), views.size(), outputs, decode).ok());
      for (const TokenIds& output : outputs) expected.emplace_back(output.data, output.data + output.size);
    }
    const Sweep sweep = SweepAllocationFailures([&]() -> Status {
      Result<std::unique_ptr<Translator>> translator = Translator::Create(loaded.model, options);
      if (!translator.ok()) return translator.status();
      TokenIds outputs[3];
      EDGEMT_RETURN_IF_ERROR(translator.value()->Translate(views.data(), views.size(), outputs, decode));
      for (size_t i = 0; i < 3; ++i) {
        if (!std::equal(outputs[i].data, outputs[i].data + outputs[i].size, expected[i].begin(), expected[i].end()))
          return Status(StatusCode::kInternal, "a translator set up without some memory translates differently");
      }
      return Status::Ok();
    });
    Report(threads == 1 ? "Translator::Create and Translate" : "Translator::Create and Translate, 2 threads", sweep,
           threads == 1 ? 55 : 57);
  }
}

TEST_CASE("allocation failures: creating a text translator" * doctest::skip(!testing::CanFailAllocations())
          * doctest::description("needs the allocation hooks (not with the sanitizers)")) {
  const testing::TestModel loaded = testing::LoadTestModel(Int8Spec());
  const Sweep sweep = SweepAllocationFailures([&] { return TextTranslator::Create(loaded.model).status(); });
  Report("TextTranslator::Create", sweep, 61);
}

// The C API's statuses: EDGEMT_RESOURCE_EXHAUSTED.
Status FromC(edgemt_status status) {
  if (status == EDGEMT_OK) return Status::Ok();
  return Status(status == EDGEMT_RESOURCE_EXHAUSTED ? StatusCode::kResourceExhausted : StatusCode::kInternal,
                edgemt_last_error());
}

TEST_CASE("allocation failures: the C API" * doctest::skip(!testing::CanFailAllocations())
          * doctest::description("needs the allocation hooks (not with the sanitizers)")) {
  const AlignedBytes bytes(testing::BuildTestModelFile(Int8Spec()));
  // The thread's last error message lives on (with the room of the longest
  // so far): an error with a long one first, so that it is not counted as a leak.
  edgemt_model* none = nullptr;
  const std::string missing = "/nonexistent/" + std::string(300, 'x');
  REQUIRE(edgemt_model_load(missing.c_str(), &none) != EDGEMT_OK);
  const Sweep sweep = SweepAllocationFailures([&]() -> Status {
    edgemt_model* model = nullptr;
    Status status = FromC(edgemt_model_load_from_memory(bytes.data(), bytes.size(), &model));
    if (!status.ok()) return status;
    edgemt_translator_options options;
    edgemt_translator_options_init(&options);
    edgemt_translator* translator = nullptr;
    status = FromC(edgemt_translator_create(model, &options, &translator));
    edgemt_translator_free(translator);
    edgemt_model_free(model);
    return status;
  });
  // One fewer on 32-bit ARM (armhf), whose libraries allocate one block less here.
  Report("C API: edgemt_model_load_from_memory and edgemt_translator_create", sweep, sizeof(void*) == 4 ? 91 : 92);
}

}  // namespace
}  // namespace edgemt
