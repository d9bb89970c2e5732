// Beam search, n-best lists and scores (DecodeOptions in edgemt/translator.h):
// beam 1 is greedy, a batch gives its sentences' one-by-one results, scores
// are the normalized sums of the returned log-probabilities, banned ids and
// length limits hold, limits are refused, and nothing is allocated.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "allocation_counter.h"
#include "hypothesis_copies.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

std::vector<std::vector<int32_t>> Sources(int count, int vocab) { return SyntheticSources(count, vocab, 3, 2, 11, 7); }


using Copy = edgemt::testing::HypothesisCopy;

std::unique_ptr<Translator> Make(const TestModel& test, int batch, int beam) {
  return edgemt::testing::MakeTranslator(test, batch, beam);
}

std::vector<Copy> Run(Translator& translator, const std::vector<TokenIds>& views, size_t first, size_t count,
                      const DecodeOptions& decode) {
  return edgemt::testing::TranslateCopies(translator, &views[first], count, decode);
}

std::vector<TestModelSpec> Specs() {
  TestModelSpec float_model;
  TestModelSpec int8_model;
  int8_model.int8 = true;
  int8_model.norm = NormPlacement::kPreLN;
  int8_model.tied_output = true;
  TestModelSpec int4_model;
  int4_model.int4_block = 32;
  int4_model.d_model = 32;
  int4_model.d_ff = 64;
  // SSRU decoders: their cells are copied with the beam, and Marian's beam shrinks.
  TestModelSpec marian_model;
  marian_model.marian = true;
  TestModelSpec marian_int8_model = marian_model;
  marian_int8_model.int8 = true;
  marian_int8_model.tied_output = true;
  return {float_model, int8_model, int4_model, marian_model, marian_int8_model};
}

}  // namespace

TEST_CASE("beam size 1 is greedy, with the scores of its tokens") {
  for (const TestModelSpec& spec : Specs()) {
    const TestModel test = LoadTestModel(spec);
    auto translator = Make(test, 4, 1);
    const auto sources = Sources(4, spec.source_vocab);
    const auto views = Views(sources);
    std::vector<TokenIds> greedy(4);
    REQUIRE(translator->Translate(views.data(), 4, greedy.data()).ok());
    std::vector<std::vector<int32_t>> expected;
    for (const TokenIds& g : greedy) expected.emplace_back(g.data, g.data + g.size);
    DecodeOptions decode;
    decode.length_penalty = 0.5f;
    const std::vector<Copy> hyps = Run(*translator, views, 0, 4, decode);
    for (size_t s = 0; s < 4; ++s) {
      CHECK(hyps[s].ids == expected[s]);
      float sum = 0.0f;
      for (float lp : hyps[s].log_probs) {
        CHECK(lp <= 0.0f);
        sum += lp;
      }
      const float length = static_cast<float>(hyps[s].log_probs.size());
      CHECK(hyps[s].score == doctest::Approx(sum / std::pow(length, 0.5f)).epsilon(1e-6));
    }
  }
}

TEST_CASE("with beams, a batch gives exactly the hypotheses of its sentences one by one") {
  for (const TestModelSpec& spec : Specs()) {
    const TestModel test = LoadTestModel(spec);
    auto translator = Make(test, 5, 4);
    const auto sources = Sources(5, spec.source_vocab);
    const auto views = Views(sources);
    for (int beam : {2, 4}) {
      for (int n : {1, beam}) {  // n < beam can stop early, sentences at different steps
        DecodeOptions decode;
        decode.beam_size = beam;
        decode.num_hypotheses = n;
        decode.length_penalty = 0.6f;
        const std::vector<Copy> batch = Run(*translator, views, 0, 5, decode);
        for (size_t s = 0; s < 5; ++s) {
          const std::vector<Copy> single = Run(*translator, views, s, 1, decode);
          for (int k = 0; k < n; ++k) CHECK(single[static_cast<size_t>(k)] == batch[s * n + k]);
        }
      }
    }
  }
}

TEST_CASE("n-best lists are ranked, distinct, scored as documented, and never use pad, unk or <s>") {
  TestModelSpec spec;
  spec.target_vocab = 12;  // few ids: banned ones would come up
  const TestModel test = LoadTestModel(spec);
  auto translator = Make(test, 3, 6);
  const auto sources = Sources(3, spec.source_vocab);
  const auto views = Views(sources);
  const ModelConfig& config = test.model->config();
  for (float penalty : {0.0f, 1.0f, 2.0f}) {
    DecodeOptions decode;
    decode.beam_size = 6;
    decode.num_hypotheses = 6;
    decode.length_penalty = penalty;
    const std::vector<Copy> hyps = Run(*translator, views, 0, 3, decode);
    for (size_t s = 0; s < 3; ++s) {
      for (size_t k = 0; k < 6; ++k) {
        const Copy& h = hyps[s * 6 + k];
        if (k > 0) {
          CHECK(h.score <= hyps[s * 6 + k - 1].score);
          CHECK_FALSE(h.ids == hyps[s * 6 + k - 1].ids);
        }
        for (int32_t id : h.ids) {
          CHECK(id != config.pad_id);
          CHECK(id != config.unk_id);
          CHECK(id != config.bos_id);
          CHECK(id != config.eos_id);
        }
        float sum = 0.0f;
        for (float lp : h.log_probs) sum += lp;
        const double length = static_cast<double>(h.log_probs.size());
        CHECK(h.score == doctest::Approx(sum / std::pow(length, static_cast<double>(penalty))).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("beam search keeps min_length and max_length") {
  const TestModel test = LoadTestModel(TestModelSpec{});
  auto translator = Make(test, 3, 3);
  const auto sources = Sources(3, 40);
  const auto views = Views(sources);
  DecodeOptions decode;
  decode.beam_size = 3;
  decode.num_hypotheses = 3;
  decode.min_length = decode.max_length = 9;
  for (const Copy& h : Run(*translator, views, 0, 3, decode)) {
    CHECK(h.ids.size() == 9);
    CHECK_FALSE(h.eos);
  }
  decode.min_length = 0;
  decode.max_length = 2;
  for (const Copy& h : Run(*translator, views, 0, 3, decode)) CHECK(h.ids.size() <= 2);
}

TEST_CASE("beam options outside the translator's limits are refused") {
  const TestModel test = LoadTestModel(TestModelSpec{});
  auto translator = Make(test, 2, 3);
  const auto sources = Sources(1, 40);
  const auto views = Views(sources);
  std::vector<Hypothesis> hyps(8);
  auto refused = [&](DecodeOptions decode, const char* needle) {
    const Status status = translator->Translate(views.data(), 1, hyps.data(), decode);
    CHECK(status.code() == StatusCode::kInvalidArgument);
    INFO(status.message());
    CHECK(status.message().find(needle) != std::string::npos);
  };
  DecodeOptions too_wide;
  too_wide.beam_size = 4;
  refused(too_wide, "beam_size 4 is outside 1..the translator's max_beam_size 3");
  DecodeOptions zero;
  zero.beam_size = 0;
  refused(zero, "beam_size 0");
  DecodeOptions too_many;
  too_many.beam_size = 2;
  too_many.num_hypotheses = 3;
  refused(too_many, "num_hypotheses 3 is outside 1..beam_size 2");
  DecodeOptions nan_penalty;
  nan_penalty.beam_size = 2;
  nan_penalty.length_penalty = std::nanf("");
  refused(nan_penalty, "length_penalty must be a finite number");
  CHECK(translator->Translate(views.data(), 1, static_cast<Hypothesis*>(nullptr), DecodeOptions{}).code() ==
        StatusCode::kInvalidArgument);
  for (int beam : {0, 257}) {
    TranslatorOptions options;
    options.max_beam_size = beam;
    auto created = Translator::Create(test.model, options);
    CHECK(created.status().code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("beam search allocates nothing") {
  for (const TestModelSpec& spec : Specs()) {
    const TestModel test = LoadTestModel(spec);
    TranslatorOptions options;
    options.max_batch_size = 3;
    options.max_beam_size = 4;
    options.num_threads = 2;
    auto created = Translator::Create(test.model, options);
    REQUIRE(created.ok());
    Translator& translator = *created.value();
    const auto sources = Sources(3, spec.source_vocab);
    const auto views = Views(sources);
    Hypothesis hyps[12];
    TokenIds ids[3];
    DecodeOptions decode;
    decode.beam_size = 4;
    decode.num_hypotheses = 4;
    REQUIRE(translator.Translate(views.data(), 3, hyps, decode).ok());  // warm-up
    edgemt::testing::StartCountingAllocations();
    const Status nbest = translator.Translate(views.data(), 3, hyps, decode);
    const Status best = translator.Translate(views.data(), 2, ids, decode);
    DecodeOptions greedy_scores;
    const Status greedy = translator.Translate(views.data(), 3, hyps, greedy_scores);
    const size_t allocations = edgemt::testing::StopCountingAllocations();
    CHECK(nbest.ok());
    CHECK(best.ok());
    CHECK(greedy.ok());
    CHECK(allocations == 0);
  }
}

