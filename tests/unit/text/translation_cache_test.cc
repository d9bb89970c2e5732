// The translation cache (runtime/src/text/translation_cache.h) and the text
// layer's use of it: a hit gives exactly what translating gives, the key
// tells apart every option that changes an output, and the cache never
// holds more than its bound (counted, and measured on the heap) however
// many distinct sentences pass through it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <string>
#include <vector>

#include "edgemt/document.h"
#include "edgemt/text_translator.h"
#include "test_model.h"
#include "test_spm.h"
#include "text/translation_cache.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace edgemt {
// Field by field (for CHECKs on vectors of them).
bool operator==(const TextHypothesis& a, const TextHypothesis& b) {
  return a.text == b.text && a.ids == b.ids && a.score == b.score && a.token_log_probs == b.token_log_probs &&
         a.ended_with_eos == b.ended_with_eos && a.alignments == b.alignments &&
         a.word_alignments == b.word_alignments && a.confidence == b.confidence &&
         a.word_confidences == b.word_confidences;
}
}  // namespace edgemt

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;

namespace {

std::vector<TextHypothesis> Hypotheses(size_t n, int seed) {
  std::vector<TextHypothesis> hs(n);
  for (size_t k = 0; k < n; ++k) {
    hs[k].text = "translation number " + std::to_string(seed) + " of a sentence that is long enough";
    for (int i = 0; i < 12; ++i) hs[k].ids.push_back(seed + i);
    hs[k].token_log_probs.assign(13, -0.5f);
    hs[k].score = -1.0f * static_cast<float>(seed);
  }
  return hs;
}

std::vector<int32_t> Source(int seed) {
  std::vector<int32_t> ids = {seed / 1000, seed % 1000};  // distinct for distinct seeds
  for (int i = 0; i < 8 + seed % 7; ++i) ids.push_back((seed * 31 + i * 7) % 1000);
  return ids;
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EDGEMT_NO_HEAP_FIGURES 1
#endif
#endif
#else
#define EDGEMT_NO_HEAP_FIGURES 1
#endif

}  // namespace

TEST_CASE("the cache finds what it stored, forgets the least recently used first, and counts hits") {
  TranslationCache cache(size_t{1} << 20);
  const DecodeOptions decode;
  const std::string a = TranslationCache::KeyOf(decode, false, Source(1), nullptr);
  const std::string b = TranslationCache::KeyOf(decode, false, Source(2), nullptr);
  CHECK(cache.Find(a) == nullptr);
  cache.Insert(a, Hypotheses(1, 1));
  cache.Insert(b, Hypotheses(2, 2));
  const std::vector<TextHypothesis>* found = cache.Find(a);
  REQUIRE(found != nullptr);
  CHECK(*found == Hypotheses(1, 1));
  CHECK(cache.stats().hits == 1);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().entries == 2);

  // Room for two entries of this size: a third pushes out the least recently used (b).
  TranslationCache probe(size_t{1} << 20);
  probe.Insert(a, Hypotheses(1, 1));
  const size_t entry = probe.stats().bytes;  // what one such entry is counted as
  TranslationCache small(2 * entry + entry / 2);
  small.Insert(a, Hypotheses(1, 1));
  small.Insert(b, Hypotheses(1, 2));
  REQUIRE(small.Find(a) != nullptr);  // a is now the most recent
  const std::string c = TranslationCache::KeyOf(decode, false, Source(3), nullptr);
  small.Insert(c, Hypotheses(1, 3));
  CHECK(small.Find(b) == nullptr);
  CHECK(small.Find(a) != nullptr);
  CHECK(small.Find(c) != nullptr);
  CHECK(small.stats().bytes <= small.stats().capacity_bytes);

  // An entry larger than the whole cache is not kept; a zero bound keeps nothing.
  TranslationCache tiny(entry / 2);
  tiny.Insert(a, Hypotheses(1, 1));
  CHECK(tiny.stats().entries == 0);
  TranslationCache none(0);
  none.Insert(a, Hypotheses(1, 1));
  CHECK(none.Find(a) == nullptr);
}

TEST_CASE("every option that changes an output changes the key") {
  const std::vector<int32_t> source = Source(5);
  const DecodeOptions base;
  const std::string key = TranslationCache::KeyOf(base, false, source, nullptr);
  std::vector<DecodeOptions> changed(16, base);
  changed[14].return_alignments = true;
  changed[15].alignment_layer = 0;
  changed[0].max_length = 7;
  changed[1].min_length = 2;
  changed[2].beam_size = 4;
  changed[3].length_penalty = 0.5f;
  changed[4].num_hypotheses = 2;
  changed[5].sampling_topk = 10;
  changed[6].sampling_topp = 0.9f;
  changed[7].sampling_temperature = 0.7f;
  changed[8].sampling_seed = 3;
  changed[9].return_alternatives = true;
  changed[10].min_alternative_expansion_prob = 0.1f;
  changed[11].repetition_penalty = 1.2f;
  changed[12].no_repeat_ngram_size = 3;
  changed[13].disable_unk = true;
  for (size_t i = 0; i < changed.size(); ++i) {
    CAPTURE(i);
    CHECK(TranslationCache::KeyOf(changed[i], false, source, nullptr) != key);
  }
  CHECK(TranslationCache::KeyOf(base, true, source, nullptr) != key);
  const std::vector<int32_t> prefix = {7, 8};
  CHECK(TranslationCache::KeyOf(base, false, source, &prefix) != key);
  CHECK(TranslationCache::KeyOf(base, false, Source(6), nullptr) != key);
  // An empty prefix is no prefix.
  const std::vector<int32_t> empty;
  CHECK(TranslationCache::KeyOf(base, false, source, &empty) == key);
}

TEST_CASE("100,000 distinct sentences: the cache stays within its bound, counted and on the heap") {
  const size_t capacity = size_t{4} << 20;
  const DecodeOptions decode;
#ifndef EDGEMT_NO_HEAP_FIGURES
  const size_t heap_before = mallinfo2().uordblks;
#endif
  size_t most = 0;        // the most heap the cache took
  long uncounted = 0;     // the most heap it took beyond what it counted
  {
    TranslationCache cache(capacity);
    for (int i = 0; i < 100000; ++i) {
      cache.Insert(TranslationCache::KeyOf(decode, false, Source(i), nullptr), Hypotheses(1 + i % 2, i));
      REQUIRE(cache.stats().bytes <= capacity);
#ifndef EDGEMT_NO_HEAP_FIGURES
      if (i % 1000 == 999) {
        const size_t heap = mallinfo2().uordblks - heap_before;
        most = std::max(most, heap);
        uncounted = std::max(uncounted, static_cast<long>(heap) - static_cast<long>(cache.stats().bytes));
      }
#endif
    }
    CHECK(cache.stats().entries > 1000);   // it did keep entries
    CHECK(cache.stats().entries < 100000);  // and dropped the oldest
    CHECK(cache.Find(TranslationCache::KeyOf(decode, false, Source(99999), nullptr)) != nullptr);
    CHECK(cache.Find(TranslationCache::KeyOf(decode, false, Source(0), nullptr)) == nullptr);
  }
#ifndef EDGEMT_NO_HEAP_FIGURES
  // What the heap really held for it is what it counted (give or take the
  // test's own few allocations), so never more than the bound.
  MESSAGE("cache heap at most " << most << " bytes for a bound of " << capacity << "; at most " << uncounted
                                << " bytes more than it counted");
  CHECK(uncounted <= 4096);
#else
  (void)most;
  (void)uncounted;
  MESSAGE("heap figures are not measured under a sanitizer");
#endif
}

TEST_CASE("a text translator with a cache gives exactly its translations again, from the cache") {
  const TestModel test = LoadTestModel(TestModelSpec());
  TextTranslatorOptions options;
  options.translator.max_batch_size = 3;
  options.translator.max_beam_size = 2;
  options.translator.num_threads = 1;
  auto plain = TextTranslator::Create(test.model, options);
  options.cache_bytes = size_t{1} << 20;
  auto cached = TextTranslator::Create(test.model, options);
  REQUIRE(plain.ok());
  REQUIRE(cached.ok());
  CHECK(plain.value()->cache_stats().capacity_bytes == 0);
  std::vector<std::vector<int32_t>> sources;
  for (int s = 0; s < 7; ++s) sources.push_back({4 + s, 5 + 2 * s, 6 + s % 3, 3});
  for (int beam : {1, 2}) {
    CAPTURE(beam);
    DecodeOptions decode;
    decode.beam_size = beam;
    std::vector<TextResult> expected, first, second;
    REQUIRE(plain.value()->TranslateIds(sources.data(), sources.size(), decode, &expected).ok());
    const TranslationCacheStats before = cached.value()->cache_stats();
    REQUIRE(cached.value()->TranslateIds(sources.data(), sources.size(), decode, &first).ok());
    REQUIRE(cached.value()->TranslateIds(sources.data(), sources.size(), decode, &second).ok());
    const TranslationCacheStats after = cached.value()->cache_stats();
    CHECK(after.misses - before.misses == sources.size());  // the first call translated each
    CHECK(after.hits - before.hits == sources.size());      // the second found each
    for (size_t s = 0; s < sources.size(); ++s) {
      CAPTURE(s);
      REQUIRE(first[s].hypotheses.size() == expected[s].hypotheses.size());
      REQUIRE(second[s].hypotheses.size() == expected[s].hypotheses.size());
      for (size_t k = 0; k < expected[s].hypotheses.size(); ++k) {
        CHECK(first[s].hypotheses[k] == expected[s].hypotheses[k]);
        CHECK(second[s].hypotheses[k] == expected[s].hypotheses[k]);
      }
    }
  }
  // A failed source is not stored: it fails again.
  const std::vector<std::vector<int32_t>> bad = {{4, 100000, 3}};
  std::vector<TextResult> results;
  for (int i = 0; i < 2; ++i) {
    REQUIRE(cached.value()->TranslateIds(bad.data(), 1, DecodeOptions(), &results).ok());
    CHECK_FALSE(results[0].status.ok());
  }
}

#ifdef EDGEMT_WITH_SENTENCEPIECE
TEST_CASE("tokenizer: a document translated again comes from the document cache, the same text") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  const TestModel test = LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  TextTranslatorOptions options;
  options.translator.num_threads = 1;
  auto text = TextTranslator::Create(test.model, options);
  REQUIRE(text.ok());
  CHECK(text.value()->cache_stats().capacity_bytes == 0);  // off in the core
  CHECK(text.value()->document_cache_stats().capacity_bytes == options.document_cache_bytes);
  const std::string document = "a man is riding a bike. two women sit.\n\n  the quick brown fox!\r\n";
  DocumentResult first, second;
  REQUIRE(TranslateDocument(*text.value(), document, DecodeOptions(), &first).ok());
  const TranslationCacheStats middle = text.value()->document_cache_stats();
  REQUIRE(TranslateDocument(*text.value(), document, DecodeOptions(), &second).ok());
  const TranslationCacheStats after = text.value()->document_cache_stats();
  CHECK(first.text == second.text);
  CHECK(middle.misses == first.sentences);
  CHECK(after.hits - middle.hits == second.sentences);
  CHECK(after.misses == middle.misses);
  // The plain text layer does not touch it.
  std::vector<TextResult> results;
  const std::string line = "a man is riding a bike.";
  REQUIRE(text.value()->TranslateTexts(&line, 1, DecodeOptions(), &results).ok());
  CHECK(text.value()->document_cache_stats().hits == after.hits);
}

TEST_CASE("tokenizer: TranslateSentences goes through the cache it is given, and only that one") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  const TestModel test = LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  TextTranslatorOptions options;
  options.translator.num_threads = 1;
  options.cache_bytes = size_t{1} << 20;
  auto text = TextTranslator::Create(test.model, options);
  REQUIRE(text.ok());
  const std::vector<std::string> sentences = {"a man is riding a bike.", "two women sit."};
  std::vector<TextResult> expected;
  REQUIRE(text.value()->TranslateSentences(sentences.data(), sentences.size(), DecodeOptions(),
                                           TextTranslator::SentenceCache::kNone, &expected).ok());
  using Choice = TextTranslator::SentenceCache;
  for (Choice choice : {Choice::kNone, Choice::kTexts, Choice::kDocuments}) {
    CAPTURE(static_cast<int>(choice));
    const TranslationCacheStats texts_before = text.value()->cache_stats();
    const TranslationCacheStats documents_before = text.value()->document_cache_stats();
    for (int round = 0; round < 2; ++round) {
      std::vector<TextResult> results;
      REQUIRE(text.value()->TranslateSentences(sentences.data(), sentences.size(), DecodeOptions(), choice,
                                               &results).ok());
      REQUIRE(results.size() == expected.size());
      for (size_t s = 0; s < results.size(); ++s) CHECK(results[s].hypotheses == expected[s].hypotheses);
    }
    const TranslationCacheStats texts = text.value()->cache_stats();
    const TranslationCacheStats documents = text.value()->document_cache_stats();
    CHECK(texts.hits - texts_before.hits == (choice == Choice::kTexts ? sentences.size() : 0));
    CHECK(texts.misses - texts_before.misses == (choice == Choice::kTexts ? sentences.size() : 0));
    CHECK(documents.hits - documents_before.hits == (choice == Choice::kDocuments ? sentences.size() : 0));
    CHECK(documents.misses - documents_before.misses == (choice == Choice::kDocuments ? sentences.size() : 0));
  }
}
#endif
