// CTranslate2's decoding options (DecodeOptions in edgemt/decode_options.h)
// on synthetic models: the logits processors on their own, target prefixes,
// alternatives and scoring given targets through the translator. Their
// agreement with CTranslate2 itself is tests/e2e/test_ctranslate2.py's.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "allocation_counter.h"
#include "decoding/logits_processors.h"
#include "hypothesis_copies.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

constexpr float kDisabled = std::numeric_limits<float>::lowest();

using Copy = edgemt::testing::HypothesisCopy;

std::unique_ptr<Translator> Make(const TestModel& test, int batch, int beam) {
  return edgemt::testing::MakeTranslator(test, batch, beam);
}

std::vector<Copy> Run(Translator& translator, const TokenIds* sources, size_t count, const DecodeOptions& decode) {
  return edgemt::testing::TranslateCopies(translator, sources, count, decode);
}

float NormalizedMean(const std::vector<float>& log_probs, size_t from, size_t length) {
  float sum = 0.0f;
  for (size_t i = from; i < log_probs.size(); ++i) sum += log_probs[i];
  return sum / static_cast<float>(length);
}

}  // namespace

TEST_CASE("the repetition penalty divides positive and multiplies negative logits of ids output, once each") {
  DecodeOptions options;
  options.repetition_penalty = 2.0f;
  const LogitsProcessors p = LogitsProcessors::Of(options, /*unk_id=*/-1);
  std::vector<float> logits = {4.0f, -3.0f, 1.0f, 0.5f};
  const int32_t history[] = {0, 1, 0, 0, 99, -1};  // repeats and ids outside the vocabulary
  ApplyLogitsProcessors(p, history, 6, logits.data(), OutputColumns{logits.size(), nullptr});
  CHECK(logits == std::vector<float>{2.0f, -6.0f, 1.0f, 0.5f});
}

TEST_CASE("no_repeat_ngram_size disables the ids that would repeat an n-gram of the output") {
  const int32_t history[] = {5, 6, 7, 5, 6, 8, 5, 6};
  auto disabled = [&](int n, size_t length) {
    DecodeOptions options;
    options.no_repeat_ngram_size = n;
    std::vector<float> logits(10, 0.0f);
    ApplyLogitsProcessors(LogitsProcessors::Of(options, -1), history, length, logits.data(), OutputColumns{logits.size(), nullptr});
    std::vector<int> ids;
    for (size_t v = 0; v < logits.size(); ++v) {
      if (logits[v] == kDisabled) ids.push_back(static_cast<int>(v));
    }
    return ids;
  };
  CHECK(disabled(1, 8) == std::vector<int>{5, 6, 7, 8});  // every id output
  CHECK(disabled(2, 8) == std::vector<int>{7, 8});        // what followed "6"
  CHECK(disabled(3, 8) == std::vector<int>{7, 8});        // what followed "5 6"
  CHECK(disabled(3, 2).empty());                          // shorter than n
  CHECK(disabled(4, 8).empty());                          // "8 5 6" never came before
}

TEST_CASE("disable_unk disables <unk> alone") {
  DecodeOptions options;
  options.disable_unk = true;
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  ApplyLogitsProcessors(LogitsProcessors::Of(options, 1), nullptr, 0, logits.data(), OutputColumns{logits.size(), nullptr});
  CHECK(logits == std::vector<float>{1.0f, kDisabled, 3.0f});
  CHECK_FALSE(LogitsProcessors::Of(DecodeOptions(), 1).active());
}

TEST_CASE("a target prefix is fed, scored 0, counted in the length, and decoding goes on from it") {
  for (bool marian : {false, true}) {  // and an SSRU decoder fed the prefix
    CAPTURE(marian);
    TestModelSpec spec;
    spec.marian = marian;
    const TestModel test = LoadTestModel(spec);
    auto translator = Make(test, 3, 4);
    const auto sources = SyntheticSources(3, 40, 3, 2, 11, 7);
    const auto views = Views(sources);
    for (int beam : {1, 4}) {
      CAPTURE(beam);
      DecodeOptions plain;
      plain.beam_size = beam;
      plain.max_length = 12;
      const std::vector<Copy> free_run = Run(*translator, views.data(), 1, plain);
      REQUIRE(free_run[0].ids.size() >= 3);
      // Forcing ids the search would not choose: the output starts with them.
      const std::vector<int32_t> forced = {7, 7, 9};
      DecodeOptions decode = plain;
      const TokenIds prefix{forced.data(), forced.size()};
      decode.target_prefixes = &prefix;
      const std::vector<Copy> run = Run(*translator, views.data(), 1, decode);
      REQUIRE(run[0].ids.size() >= forced.size());
      CHECK(std::vector<int32_t>(run[0].ids.begin(), run[0].ids.begin() + 3) == forced);
      for (size_t i = 0; i < forced.size(); ++i) CHECK(run[0].log_probs[i] == 0.0f);
      const size_t length = run[0].ids.size() + (run[0].eos ? 1 : 0);
      CHECK(run[0].score == doctest::Approx(NormalizedMean(run[0].log_probs, 0, length)).epsilon(1e-5));
      // A batch with and without prefixes gives each sentence's own result.
      const TokenIds prefixes[3] = {prefix, TokenIds{}, TokenIds{forced.data(), 1}};
      decode.target_prefixes = prefixes;
      const std::vector<Copy> batch = Run(*translator, views.data(), 3, decode);
      CHECK(batch[0].ids == run[0].ids);
      CHECK(batch[1].ids == Run(*translator, views.data() + 1, 1, plain)[0].ids);
      CHECK(batch[2].ids[0] == forced[0]);
      // A prefix longer than the length limit is cut there.
      decode = plain;
      decode.max_length = 2;
      decode.target_prefixes = &prefix;
      const std::vector<Copy> cut = Run(*translator, views.data(), 1, decode);
      CHECK(cut[0].ids == std::vector<int32_t>{7, 7});
      CHECK(cut[0].score == 0.0f);
    }
  }
}

TEST_CASE("target prefixes of ids outside the target vocabulary are refused") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto translator = Make(test, 1, 1);
  const auto sources = SyntheticSources(1, 40, 3, 2, 11, 7);
  const auto views = Views(sources);
  const int32_t bad[] = {3, test.model->config().target_vocab_size};
  const TokenIds prefix{bad, 2};
  DecodeOptions decode;
  decode.target_prefixes = &prefix;
  TokenIds output;
  const Status status = translator->Translate(views.data(), 1, &output, decode);
  CHECK(status.code() == StatusCode::kInvalidArgument);
  CHECK(status.message().find("target prefix 0") != std::string::npos);
}

TEST_CASE("alternatives: the most likely ids after the prefix, each completed, scored as CTranslate2's") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto translator = Make(test, 8, 2);
  const auto sources = SyntheticSources(2, 40, 3, 2, 11, 7);
  const auto views = Views(sources);
  const int32_t forced[] = {9};
  const TokenIds prefixes[2] = {TokenIds{forced, 1}, TokenIds{}};
  for (int beam : {1, 2}) {
    CAPTURE(beam);
    DecodeOptions decode;
    decode.beam_size = beam;
    decode.max_length = 10;
    decode.num_hypotheses = 4;  // more than the beam
    decode.return_alternatives = true;
    decode.target_prefixes = prefixes;
    const std::vector<Copy> batch = Run(*translator, views.data(), 2, decode);
    for (size_t s = 0; s < 2; ++s) {
      const size_t at = prefixes[s].size;  // the alternatives' position
      for (size_t k = 0; k < 4; ++k) {
        const Copy& h = batch[s * 4 + k];
        REQUIRE(h.ids.size() > at);
        if (at > 0) CHECK(h.ids[0] == forced[0]);
        CHECK(h.ids[at] != test.model->config().eos_id);
        // Ordered by the alternative id's log-probability, each id once.
        if (k > 0) {
          CHECK(h.log_probs[at] <= batch[s * 4 + k - 1].log_probs[at]);
          CHECK(h.ids[at] != batch[s * 4 + k - 1].ids[at]);
        }
        // Its log-probability, plus the completion's mean (length penalty 1).
        const size_t completion = h.ids.size() + (h.eos ? 1 : 0) - at - 1;
        const float expected =
            h.log_probs[at] + (completion == 0 ? 0.0f : NormalizedMean(h.log_probs, at + 1, completion));
        CHECK(h.score == doctest::Approx(expected).epsilon(1e-5));
      }
      // A sentence alone gives the same alternatives.
      DecodeOptions alone = decode;
      alone.target_prefixes = &prefixes[s];
      const std::vector<Copy> one = Run(*translator, views.data() + s, 1, alone);
      for (size_t k = 0; k < 4; ++k) CHECK(one[k].ids == batch[s * 4 + k].ids);
    }
    // Each completion is the search's own continuation of its alternative's id.
    for (size_t k = 0; k < 4; ++k) {
      DecodeOptions search;
      search.beam_size = beam;
      search.max_length = 10;
      const TokenIds first{batch[4 + k].ids.data(), 1};
      search.target_prefixes = &first;
      CHECK(Run(*translator, views.data() + 1, 1, search)[0].ids == batch[4 + k].ids);
    }
    // Alternatives below min_alternative_expansion_prob are left out: empty, at -inf.
    decode.min_alternative_expansion_prob = std::exp(batch[5].log_probs[0]) * 1.0001f;
    decode.target_prefixes = nullptr;
    const std::vector<Copy> cut = Run(*translator, views.data() + 1, 1, decode);
    CHECK(cut[0].ids == batch[4].ids);
    for (size_t k = 1; k < 4; ++k) {
      CHECK(cut[k].ids.empty());
      CHECK(cut[k].score == -std::numeric_limits<float>::infinity());
    }
  }
}

TEST_CASE("alternatives that do not fit the batch, or without hypotheses to return, are refused") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto translator = Make(test, 4, 1);
  const auto sources = SyntheticSources(2, 40, 3, 2, 11, 7);
  const auto views = Views(sources);
  DecodeOptions decode;
  decode.return_alternatives = true;
  decode.num_hypotheses = 3;
  std::vector<Hypothesis> hyps(6);
  CHECK(translator->Translate(views.data(), 2, hyps.data(), decode).code() == StatusCode::kInvalidArgument);
  CHECK(translator->Translate(views.data(), 1, hyps.data(), decode).ok());
  TokenIds output;
  CHECK(translator->Translate(views.data(), 1, &output, decode).code() == StatusCode::kInvalidArgument);
  decode.return_alternatives = false;
  decode.repetition_penalty = 0.0f;
  CHECK(translator->CheckOptions(decode).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("scoring a target gives the log-probabilities greedy decoding gives its own output") {
  for (int kind = 0; kind < 4; ++kind) {  // float32, int8; and each with an SSRU decoder
    CAPTURE(kind);
    TestModelSpec spec;
    spec.int8 = kind % 2 == 1;
    spec.marian = kind >= 2;
    const TestModel test = LoadTestModel(spec);
    auto translator = Make(test, 3, 1);
    const auto sources = SyntheticSources(3, 40, 3, 2, 11, 7);
    const auto views = Views(sources);
    DecodeOptions greedy;
    greedy.max_length = 12;
    const std::vector<Copy> decoded = Run(*translator, views.data(), 3, greedy);
    std::vector<TokenIds> targets;
    for (const Copy& c : decoded) targets.push_back(TokenIds{c.ids.data(), c.ids.size()});
    std::vector<Hypothesis> scored(3);
    REQUIRE(translator->Score(views.data(), targets.data(), 3, scored.data()).ok());
    for (size_t s = 0; s < 3; ++s) {
      CHECK(scored[s].ended_with_eos);
      CHECK(scored[s].ids.data == targets[s].data);
      // The greedy run's log-probabilities (its last id's </s> only when it ended with </s>).
      float sum = 0.0f;
      for (size_t i = 0; i < decoded[s].log_probs.size(); ++i)
        CHECK(scored[s].token_log_probs[i] == doctest::Approx(decoded[s].log_probs[i]).epsilon(1e-4));
      for (size_t i = 0; i <= targets[s].size; ++i) sum += scored[s].token_log_probs[i];
      CHECK(scored[s].score == doctest::Approx(sum).epsilon(1e-6));
      CHECK(scored[s].token_log_probs[targets[s].size] <= 0.0f);
    }
    // A target id outside the vocabulary, or a target too long, is refused.
    const int32_t bad[] = {test.model->config().target_vocab_size};
    const TokenIds bad_target{bad, 1};
    CHECK(translator->Score(views.data(), &bad_target, 1, scored.data()).code() == StatusCode::kInvalidArgument);
    const std::vector<int32_t> long_ids(64, 3);
    const TokenIds long_target{long_ids.data(), long_ids.size()};
    CHECK(translator->Score(views.data(), &long_target, 1, scored.data()).code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("prefixes, alternatives, processors and scoring allocate nothing") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto translator = Make(test, 8, 2);
  const auto sources = SyntheticSources(2, 40, 3, 2, 11, 7);
  const auto views = Views(sources);
  const int32_t forced[] = {9, 4};
  const TokenIds prefixes[2] = {TokenIds{forced, 2}, TokenIds{forced, 1}};
  DecodeOptions beam;
  beam.beam_size = 2;
  beam.num_hypotheses = 2;
  beam.target_prefixes = prefixes;
  beam.repetition_penalty = 1.5f;
  beam.no_repeat_ngram_size = 2;
  beam.disable_unk = true;
  DecodeOptions alternatives = beam;
  alternatives.num_hypotheses = 4;
  alternatives.return_alternatives = true;
  Hypothesis hyps[8];
  REQUIRE(translator->Translate(views.data(), 2, hyps, beam).ok());  // warm-up
  REQUIRE(translator->Translate(views.data(), 2, hyps, alternatives).ok());
  edgemt::testing::StartCountingAllocations();
  const Status a = translator->Translate(views.data(), 2, hyps, beam);
  const Status b = translator->Translate(views.data(), 2, hyps, alternatives);
  const Status c = translator->Score(views.data(), prefixes, 2, hyps);
  const size_t allocations = edgemt::testing::StopCountingAllocations();
  CHECK(a.ok());
  CHECK(b.ok());
  CHECK(c.ok());
  CHECK(allocations == 0);
}
