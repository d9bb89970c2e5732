// Alignments (DecodeOptions::return_alignments) and the word-level views of
// a translation (runtime/src/text/word_level.h): each output id gets a real
// source position other than </s>; a batch, a thread count or a beam's
// reordering change none; options out of range are refused; and words,
// word pairs and confidences follow their rules. (That the positions are
// the reference's attention argmax: tests/python/test_python_alignments.py.)
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "allocation_counter.h"
#include "edgemt/translator.h"
#include "test_model.h"
#include "text/word_level.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

struct Aligned {
  std::vector<int32_t> ids;
  std::vector<int32_t> alignments;
  bool operator==(const Aligned& o) const { return ids == o.ids && alignments == o.alignments; }
};

// Each sentence's hypotheses, translated `batch` sentences at a time.
std::vector<Aligned> Translate(Translator& translator, const std::vector<std::vector<int32_t>>& sources, size_t batch,
                               const DecodeOptions& decode) {
  std::vector<Aligned> out;
  const std::vector<TokenIds> views = Views(sources);
  const size_t n = static_cast<size_t>(decode.num_hypotheses);
  for (size_t first = 0; first < views.size(); first += batch) {
    const size_t count = std::min(batch, views.size() - first);
    std::vector<Hypothesis> hypotheses(count * n);
    REQUIRE(translator.Translate(views.data() + first, count, hypotheses.data(), decode).ok());
    for (const Hypothesis& h : hypotheses) {
      Aligned a;
      REQUIRE(h.alignments != nullptr);
      // Constructed, not assign()ed: GCC 12's -Wnonnull misreads vector::assign inlined here.
      a.ids = std::vector<int32_t>(h.ids.data, h.ids.data + h.ids.size);
      a.alignments = std::vector<int32_t>(h.alignments, h.alignments + h.ids.size);
      out.push_back(a);
    }
  }
  return out;
}

std::unique_ptr<Translator> Make(const TestModel& test, int batch, int threads) {
  TranslatorOptions options;
  options.max_batch_size = batch;
  options.max_beam_size = 3;
  options.num_threads = threads;
  auto translator = Translator::Create(test.model, options);
  REQUIRE(translator.ok());
  return std::move(translator.value());
}

}  // namespace

TEST_CASE("every output id aligns to a real source position other than </s>, in any batch and thread count") {
  for (bool marian : {false, true}) {  // and an SSRU decoder (its layers' cross-attention)
    CAPTURE(marian);
    TestModelSpec spec;
    spec.decoder_layers = 3;
    spec.marian = marian;
    const TestModel test = LoadTestModel(spec);
    const auto sources = SyntheticSources(7, spec.source_vocab, 3, 2, 7, 5);
    auto one = Make(test, 1, 1);
    auto many = Make(test, 4, 2);
    for (int beam : {1, 3}) {
      for (int layer : {-1, 0, 1, -3}) {
        CAPTURE(beam);
        CAPTURE(layer);
        DecodeOptions decode;
        decode.beam_size = beam;
        decode.num_hypotheses = beam;
        decode.min_length = 4;  // random models stop at once otherwise
        decode.return_alignments = true;
        decode.alignment_layer = layer;
        const std::vector<Aligned> alone = Translate(*one, sources, 1, decode);
        CHECK(Translate(*many, sources, 4, decode) == alone);
        for (size_t h = 0; h < alone.size(); ++h) {
          const size_t length = sources[h / static_cast<size_t>(beam)].size();
          REQUIRE(alone[h].alignments.size() == alone[h].ids.size());
          for (int32_t position : alone[h].alignments) {
            CHECK(position >= 0);
            CHECK(static_cast<size_t>(position) < length - 1);  // never the </s>
          }
        }
      }
    }
    // The layers differ (a random model's attention is not the same in each).
    DecodeOptions first, last;
    first.min_length = last.min_length = 6;
    first.return_alignments = last.return_alignments = true;
    first.alignment_layer = 0;
    last.alignment_layer = -1;
    CHECK_FALSE(Translate(*one, sources, 1, first) == Translate(*one, sources, 1, last));
  }
}

TEST_CASE("alignments: out-of-range layers and alternatives are refused; without them, no alignments") {
  const TestModel test = LoadTestModel(TestModelSpec());  // 2 decoder layers
  auto translator = Make(test, 2, 1);
  DecodeOptions decode;
  decode.return_alignments = true;
  for (int layer : {2, -3, 100}) {
    decode.alignment_layer = layer;
    const Status status = translator->CheckOptions(decode);
    CHECK(status.code() == StatusCode::kInvalidArgument);
    CHECK(status.message().find("alignment_layer") != std::string::npos);
  }
  decode.alignment_layer = -2;
  CHECK(translator->CheckOptions(decode).ok());
  decode.return_alternatives = true;
  CHECK(translator->CheckOptions(decode).message().find("alternatives") != std::string::npos);
  // Not asked for: null.
  const auto sources = SyntheticSources(2, 40, 3, 2, 7, 5);
  const auto views = Views(sources);
  Hypothesis h[2];
  REQUIRE(translator->Translate(views.data(), 2, h, DecodeOptions()).ok());
  CHECK(h[0].alignments == nullptr);
}

TEST_CASE("translating with alignments allocates nothing") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto translator = Make(test, 3, 2);
  const auto sources = SyntheticSources(3, 40, 4, 3, 7, 5);
  const auto views = Views(sources);
  std::vector<Hypothesis> h(9);
  DecodeOptions greedy, beam;
  greedy.return_alignments = beam.return_alignments = true;
  beam.beam_size = beam.num_hypotheses = 3;
  REQUIRE(translator->Translate(views.data(), 3, h.data(), beam).ok());  // warm-up
  edgemt::testing::StartCountingAllocations();
  const Status a = translator->Translate(views.data(), 3, h.data(), greedy);
  const Status b = translator->Translate(views.data(), 3, h.data(), beam);
  const size_t allocations = edgemt::testing::StopCountingAllocations();
  CHECK(a.ok());
  CHECK(b.ok());
  CHECK(allocations == 0);
}

TEST_CASE("words, word pairs and confidences") {
  // Ids 0..5: word starts at 0, 2, 5; id 3 is skipped (a framing id).
  const std::vector<uint8_t> starts = {1, 0, 1, 1, 0, 1}, skip = {0, 0, 0, 1, 0, 0};
  CHECK(WordsOf(starts) == std::vector<int32_t>{0, 0, 1, 2, 2, 3});
  CHECK(WordsOf(starts, &skip) == std::vector<int32_t>{0, 0, 1, -1, 1, 2});
  CHECK(WordsOf({0, 0, 1}) == std::vector<int32_t>{0, 0, 1});  // no start before the first id: word 0
  // Target ids of words 0,0,1,2 aligned to source positions 1,4,-1(none),3.
  const std::vector<int32_t> source_words = {0, 0, 1, -1, 1, 2};
  const auto pairs = WordAlignments(source_words, {0, 0, 1, 2}, {1, 4, 7, 3});
  CHECK(pairs == std::vector<std::pair<int32_t, int32_t>>{{0, 0}, {1, 0}});
  CHECK(WordAlignments(source_words, {0, 1, 1}, {5, 0, 2}) ==
        std::vector<std::pair<int32_t, int32_t>>{{2, 0}, {0, 1}, {1, 1}});
  const std::vector<float> log_probs = {-0.1f, -0.3f, -2.0f, -0.2f};  // 3 ids and </s>
  CHECK(SentenceConfidence(log_probs) == doctest::Approx(std::exp(-2.6 / 4)));
  const std::vector<float> words = WordConfidences(log_probs, {0, 0, 1}, 2);
  REQUIRE(words.size() == 2);
  CHECK(words[0] == doctest::Approx(std::exp(-0.2)));
  CHECK(words[1] == doctest::Approx(std::exp(-2.0)));
  CHECK(SentenceConfidence({}) == 0.0f);
}
