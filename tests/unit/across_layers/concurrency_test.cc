// One Model shared by several translators on several threads (a translator
// itself serves one thread at a time): each thread must get exactly what
// one thread alone gets (16 translators at once). tests/tsan/run.sh runs
// this, and the rest of the unit tests, under ThreadSanitizer.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

using Outputs = std::vector<std::vector<int32_t>>;

std::vector<std::vector<int32_t>> Sources(int vocab) { return SyntheticSources(6, vocab, 3, 2, 11, 3); }

// Creates a translator and translates every source `rounds` times, in
// batches of `batch`. Returns the first round's outputs, or sets `error`
// (no doctest assertions off the main thread).
Outputs Run(const std::shared_ptr<const Model>& model, const std::vector<std::vector<int32_t>>& sources,
            size_t batch, int rounds, std::string* error) {
  TranslatorOptions options;
  options.num_threads = 1;
  options.max_batch_size = static_cast<int>(batch);
  auto created = Translator::Create(model, options);
  if (!created.ok()) {
    *error = created.status().ToString();
    return {};
  }
  Translator& translator = *created.value();
  Outputs first;
  for (int round = 0; round < rounds; ++round) {
    Outputs outputs;
    for (size_t begin = 0; begin < sources.size(); begin += batch) {
      const size_t count = std::min(batch, sources.size() - begin);
      std::vector<TokenIds> in(count), out(count);
      for (size_t i = 0; i < count; ++i) in[i] = TokenIds{sources[begin + i].data(), sources[begin + i].size()};
      const Status status = translator.Translate(in.data(), count, out.data());
      if (!status.ok()) {
        *error = status.ToString();
        return {};
      }
      for (const TokenIds& o : out) outputs.emplace_back(o.data, o.data + o.size);
    }
    if (round == 0) {
      first = outputs;
    } else if (outputs != first) {
      *error = "round " + std::to_string(round) + " differs from round 0";
      return {};
    }
  }
  return first;
}

// The model file on disk, so that the translators share a memory map (and
// release its pages concurrently after packing).
class ModelFile {
 public:
  explicit ModelFile(const TestModelSpec& spec) {
    char pattern[] = "/tmp/edgemt-concurrency-XXXXXX";
    const int fd = mkstemp(pattern);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = pattern;
    const std::vector<uint8_t> bytes = edgemt::testing::BuildTestModelFile(spec);
    std::ofstream(path_, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  ~ModelFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("one model, a translator per thread: every thread gets one thread's outputs") {
  for (bool int8 : {false, true}) {
    CAPTURE(int8);
    TestModelSpec spec;
    spec.int8 = int8;
    ModelFile file(spec);
    auto loaded = Model::Load(file.path());
    REQUIRE_MESSAGE(loaded.ok(), loaded.status().ToString());
    const std::shared_ptr<const Model> model = loaded.value();
    const auto sources = Sources(spec.source_vocab);

    std::string error;
    const Outputs expected = Run(model, sources, 1, 1, &error);
    REQUIRE_MESSAGE(error.empty(), error);

    // Translators are created, used and destroyed on their threads, all at once.
    constexpr int kThreads = 16;  // on 2 cores here: most of them wait their turn mid-translation
    std::vector<Outputs> outputs(kThreads);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const size_t batch = t % 2 == 0 ? 1 : 3;  // batches give the same outputs
        outputs[t] = Run(model, sources, batch, 3, &errors[t]);
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      CAPTURE(t);
      CHECK(errors[t] == "");
      CHECK(outputs[t] == expected);
    }
  }
}

TEST_CASE("a model outlives its loader: translators on threads keep it alive") {
  TestModelSpec spec;
  ModelFile file(spec);
  std::shared_ptr<const Model> model;
  {
    auto loaded = Model::Load(file.path());
    REQUIRE(loaded.ok());
    model = loaded.value();
  }
  const auto sources = Sources(spec.source_vocab);
  std::string expected_error;
  const Outputs expected = Run(model, sources, 1, 1, &expected_error);
  REQUIRE(expected_error.empty());
  std::vector<Outputs> outputs(2);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    // Each thread holds its own reference; the test's is dropped at once.
    threads.emplace_back([&outputs, &errors, &sources, t, own = model] {
      outputs[t] = Run(own, sources, 2, 2, &errors[t]);
    });
  }
  model.reset();
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 2; ++t) {
    CHECK(errors[t] == "");
    CHECK(outputs[t] == expected);
  }
}
