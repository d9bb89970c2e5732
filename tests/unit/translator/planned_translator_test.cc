// The text layer's memory plan fits the work (planned_translator.h): it
// starts far below the limits' arena, grows only when a call needs more,
// never past the limits, and gives exactly the translations, scores and
// refusals of a plan made at the limits.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "edgemt/text_translator.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;

namespace {

TextTranslatorOptions Limits(bool plan_for_work) {
  TextTranslatorOptions options;
  options.translator.max_batch_size = 16;
  options.translator.max_beam_size = 4;
  options.translator.num_threads = 1;
  options.plan_for_work = plan_for_work;
  return options;
}

std::unique_ptr<TextTranslator> Make(const std::shared_ptr<const Model>& model, const TextTranslatorOptions& options) {
  auto made = TextTranslator::Create(model, options);
  REQUIRE_MESSAGE(made.ok(), made.status().ToString());
  return std::move(made.value());
}

// `count` sources of `length` ids each, </s> last.
std::vector<std::vector<int32_t>> Sources(size_t count, size_t length) {
  std::vector<std::vector<int32_t>> sources(count);
  for (size_t s = 0; s < count; ++s) {
    for (size_t i = 0; i + 1 < length; ++i) sources[s].push_back(static_cast<int32_t>(4 + (s * 5 + i * 3) % 30));
    sources[s].push_back(3);
  }
  return sources;
}

std::vector<TextResult> Translate(TextTranslator& text, const std::vector<std::vector<int32_t>>& sources,
                                  const DecodeOptions& decode, bool scores = false) {
  std::vector<TextResult> results;
  REQUIRE(text.TranslateIds(sources.data(), sources.size(), decode, &results, scores).ok());
  return results;
}

}  // namespace

TEST_CASE("the plan starts small, grows with the work, and never passes the limits") {
  const TestModel test = LoadTestModel(TestModelSpec{});  // 64 positions
  auto at_limits = Translator::ArenaBytes(*test.model, Limits(false).translator);
  REQUIRE(at_limits.ok());
  auto text = Make(test.model, Limits(true));
  const size_t first = text->arena_bytes();
  CHECK(first > 0);
  CHECK(first * 4 < at_limits.value());

  Translate(*text, Sources(1, 5), DecodeOptions());
  CHECK(text->arena_bytes() == first);  // one short source: the first plan holds it

  Translate(*text, Sources(3, 5), DecodeOptions());
  const size_t three = text->arena_bytes();
  CHECK(three > first);                 // grown for 3 sentences (to 4)
  Translate(*text, Sources(4, 5), DecodeOptions());
  CHECK(text->arena_bytes() == three);  // 4 fit the plan already
  Translate(*text, Sources(1, 5), DecodeOptions());
  CHECK(text->arena_bytes() == three);  // it never shrinks

  DecodeOptions beam;
  beam.beam_size = 4;
  Translate(*text, Sources(2, 5), beam, true);
  CHECK(text->arena_bytes() > three);   // beams need room

  Translate(*text, Sources(16, 64), beam, true);
  CHECK(text->arena_bytes() == at_limits.value());  // all at once: the limits' plan, no more
  Translate(*text, Sources(40, 64), beam, true);
  CHECK(text->arena_bytes() == at_limits.value());
}

TEST_CASE("a plan that fits the work translates, scores and refuses as the limits' plan") {
  for (bool int8 : {false, true}) {
    CAPTURE(int8);
    TestModelSpec spec;
    spec.int8 = int8;
    const TestModel test = LoadTestModel(spec);
    auto fitted = Make(test.model, Limits(true));
    auto fixed = Make(test.model, Limits(false));
    CHECK(fitted->arena_bytes() < fixed->arena_bytes());

    DecodeOptions greedy, beam, nbest, alternatives, short_output;
    beam.beam_size = 3;
    nbest.beam_size = 4;
    nbest.num_hypotheses = 3;
    alternatives.return_alternatives = true;
    alternatives.num_hypotheses = 3;
    short_output.max_length = 5;
    // Growing calls in between: each plan gives the same as the limits' one.
    for (const auto& sources : {Sources(1, 4), Sources(7, 20), Sources(2, 60), Sources(16, 33), Sources(1, 64)}) {
      for (const DecodeOptions* decode : {&greedy, &beam, &nbest, &alternatives, &short_output}) {
        const std::vector<TextResult> a = Translate(*fitted, sources, *decode, true);
        const std::vector<TextResult> b = Translate(*fixed, sources, *decode, true);
        REQUIRE(a.size() == b.size());
        for (size_t s = 0; s < a.size(); ++s) {
          CAPTURE(s);
          REQUIRE(a[s].status.ok());
          REQUIRE(a[s].hypotheses.size() == b[s].hypotheses.size());
          for (size_t k = 0; k < a[s].hypotheses.size(); ++k) {
            CHECK(a[s].hypotheses[k].ids == b[s].hypotheses[k].ids);
            CHECK(a[s].hypotheses[k].score == b[s].hypotheses[k].score);
          }
        }
      }
    }
    // Scoring, and what the limits refuse, refused the same way.
    const auto sources = Sources(5, 9);
    const auto targets = Sources(5, 12);
    std::vector<TextResult> scored_a, scored_b;
    REQUIRE(fitted->ScoreIds(sources.data(), targets.data(), sources.size(), &scored_a).ok());
    REQUIRE(fixed->ScoreIds(sources.data(), targets.data(), sources.size(), &scored_b).ok());
    for (size_t s = 0; s < sources.size(); ++s) CHECK(scored_a[s].hypotheses[0].score == scored_b[s].hypotheses[0].score);
    DecodeOptions too_wide;
    too_wide.beam_size = 5;
    std::vector<TextResult> refused;
    const Status status = fitted->TranslateIds(sources.data(), sources.size(), too_wide, &refused);
    CHECK(status.code() == StatusCode::kInvalidArgument);
    CHECK(status.message() == fixed->TranslateIds(sources.data(), sources.size(), too_wide, &refused).message());
  }
}

TEST_CASE("a caller's arena, or plan_for_work false, is planned once at the limits") {
  const TestModel test = LoadTestModel(TestModelSpec{});
  auto bytes = Translator::ArenaBytes(*test.model, Limits(false).translator);
  REQUIRE(bytes.ok());
  std::vector<uint8_t> storage(bytes.value() + 64);
  TextTranslatorOptions options = Limits(true);
  options.translator.arena = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  options.translator.arena_size = bytes.value();
  auto text = Make(test.model, options);
  CHECK(text->arena_bytes() == bytes.value());
  Translate(*text, Sources(16, 64), DecodeOptions());
  CHECK(text->arena_bytes() == bytes.value());
  CHECK(Make(test.model, Limits(false))->arena_bytes() == bytes.value());
}
