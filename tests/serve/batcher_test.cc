// edgemt-serve's Batcher (serve/batcher.h): requests of many threads at
// once, each answered with its own texts' translations, the same as the
// catalog gives each text alone, whatever batch it rode in; a stopped
// batcher refuses; a request past its wait is answered untranslated. Run
// under ThreadSanitizer by tests/tsan/run.sh.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgemt/catalog.h"
#include "serve/batcher.h"
#include "test_model.h"
#include "test_spm.h"

using namespace edgemt;
using edgemt::serve::Admission;
using edgemt::serve::Batcher;
using edgemt::serve::BatcherLimits;

namespace {

// A random model over the test SentencePiece vocabulary for one pair.
testing::TestModel PairModel(const std::vector<uint8_t>& spm, const std::string& from, const std::string& to,
                             uint32_t seed) {
  testing::TestModelSpec spec = testing::SpecWithTokenizer(spm);
  spec.seed = seed;
  auto tokenizer = spec.mutate;
  spec.mutate = [tokenizer, from, to](fb::ModelT& m) {
    tokenizer(m);
    m.metadata->source_language = from;
    m.metadata->target_language = to;
  };
  return testing::LoadTestModel(spec);
}

// en -> de, de -> en and en -> fr (de -> fr goes through the pivot), with
// the buffers the models live in.
struct SmallSet {
  std::vector<testing::TestModel> files;
  std::unique_ptr<Catalog> catalog;

  explicit SmallSet(const std::vector<uint8_t>& spm)
      : files{PairModel(spm, "en", "de", 1), PairModel(spm, "de", "en", 2), PairModel(spm, "en", "fr", 3)} {
    CatalogOptions options;
    options.translator.translator.num_threads = 1;
    options.translator.translator.max_target_length = 24;
    auto made = Catalog::FromModels({files[0].model, files[1].model, files[2].model}, {"en-de", "de-en", "en-fr"},
                                    options);
    REQUIRE(made.ok());
    catalog = std::move(made.value());
  }
};

CatalogRequest Pair(const char* from, const char* to) {
  CatalogRequest request;
  request.from = from;
  request.to = to;
  return request;
}

const std::vector<std::string> kTexts = {"a man rides a bike.", "two dogs play in the snow.", "the woman sings.",
                                         "children run on the beach.", "a red car.", "he reads a book.",
                                         "people walk down the street.", "a cat sleeps."};

}  // namespace

TEST_CASE("tokenizer: concurrent requests each get their own texts' translations, as alone") {
  const std::vector<uint8_t> spm = testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  SmallSet set(spm);
  Catalog* catalog = set.catalog.get();
  const std::vector<CatalogRequest> pairs = {Pair("en", "de"), Pair("de", "en"), Pair("de", "fr")};
  // What each text becomes alone, one call each, before any thread starts.
  std::map<std::pair<size_t, size_t>, std::string> alone;
  for (size_t p = 0; p < pairs.size(); ++p) {
    for (size_t t = 0; t < kTexts.size(); ++t) {
      std::vector<CatalogResult> results;
      REQUIRE(catalog->Translate(&kTexts[t], 1, pairs[p], &results).ok());
      REQUIRE(results.size() == 1);
      REQUIRE(results[0].status.ok());
      alone[{p, t}] = results[0].text;
    }
  }
  BatcherLimits limits;
  limits.workers = 2;
  limits.max_batch_texts = 6;
  Batcher batcher(*catalog, limits);
  constexpr int kThreads = 8, kRequests = 12;
  std::atomic<int> done{0}, wrong{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int r = 0; r < kRequests; ++r) {
        const size_t p = static_cast<size_t>(i + r) % pairs.size();
        // 1 to 3 texts, a different mix for each thread and request.
        std::vector<size_t> chosen;
        for (size_t k = 0; k < 1 + static_cast<size_t>(i * 7 + r) % 3; ++k)
          chosen.push_back(static_cast<size_t>(i * 5 + r * 3 + static_cast<int>(k)) % kTexts.size());
        std::vector<std::string> texts;
        for (size_t t : chosen) texts.push_back(kTexts[t]);
        std::vector<CatalogResult> results;
        if (batcher.Translate(texts, pairs[p], &results) != Admission::kDone) {
          ++refused;
          continue;
        }
        ++done;
        if (results.size() != texts.size()) {
          ++wrong;
          continue;
        }
        for (size_t k = 0; k < chosen.size(); ++k) {
          if (!results[k].status.ok() || results[k].text != alone.at({p, chosen[k]})) ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(refused.load() == 0);
  CHECK(done.load() == kThreads * kRequests);
  CHECK(wrong.load() == 0);
  CHECK(batcher.queued_texts() == 0);
}

TEST_CASE("tokenizer: a stopped batcher refuses, and a request past its wait is answered untranslated") {
  const std::vector<uint8_t> spm = testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  SmallSet set(spm);
  Catalog* catalog = set.catalog.get();
  std::vector<CatalogResult> results;
  SUBCASE("stopped") {
    Batcher batcher(*catalog, BatcherLimits());
    REQUIRE(batcher.Translate({kTexts[0]}, Pair("en", "de"), &results) == Admission::kDone);
    CHECK(results.size() == 1);
    batcher.Stop();
    results.clear();
    CHECK(batcher.Translate({kTexts[1]}, Pair("en", "de"), &results) == Admission::kStopping);
    CHECK(results.empty());
  }
  SUBCASE("no time to wait") {
    BatcherLimits limits;
    limits.max_wait = std::chrono::milliseconds(0);
    Batcher batcher(*catalog, limits);
    int timed_out = 0;
    for (int i = 0; i < 20; ++i) {
      results.clear();
      // The worker may still take it at once; otherwise it leaves the queue.
      const Admission admission = batcher.Translate({kTexts[2]}, Pair("en", "de"), &results);
      REQUIRE((admission == Admission::kDone || admission == Admission::kTimedOut));
      if (admission == Admission::kTimedOut) {
        ++timed_out;
        CHECK(results.empty());
      } else {
        CHECK(results.size() == 1);
      }
    }
    CHECK(batcher.queued_texts() == 0);
    MESSAGE(timed_out << " of 20 timed out");
  }
}
