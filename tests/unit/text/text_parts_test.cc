// A text translated as several sources (runtime/src/text/text_parts.h): a
// paragraph's sentences split off with the whitespace around them, their
// results joined back (texts with their glue, ids, log-probabilities,
// scores, confidences, alignments moved), a failed part failing the whole;
// and through TextTranslator: a paragraph gives its sentences' one-by-one
// translations joined, in every call that takes texts, with its own
// whitespace; calls whose results are per sentence take it whole and warn.
// Cases that need a SentencePiece model have "tokenizer" in their names.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edgemt/text_translator.h"
#include "edgemt/tokenizer.h"
#include "test_model.h"
#include "test_spm.h"
#include "text/text_parts.h"

using namespace edgemt;

namespace {

TextHypothesis MadeHypothesis(const std::string& text, std::vector<int32_t> ids, float score) {
  TextHypothesis h;
  h.text = text;
  h.ids = ids;
  h.score = score;
  for (size_t i = 0; i <= ids.size(); ++i) h.token_log_probs.push_back(-0.5f * static_cast<float>(i + 1));
  h.alignments.assign(ids.size(), 1);
  h.word_alignments = {{0, 0}};
  h.word_confidences = {0.25f};
  h.ended_with_eos = true;
  return h;
}

TextResult MadeResult(TextHypothesis h) {
  TextResult r;
  r.hypotheses.push_back(std::move(h));
  return r;
}

}  // namespace

TEST_CASE("text parts: a paragraph's sentences and the whitespace around them") {
  std::vector<std::string> sentences;
  TextParts parts;
  SplitParagraph("  A dog runs.  Two women sit.\r\nA cat! ", "en", &sentences, &parts);
  CHECK(parts.first == 0);
  REQUIRE(parts.count == 3);
  CHECK(sentences == std::vector<std::string>{"A dog runs.", "Two women sit.", "A cat!"});
  // Line breaks become spaces ("\r\n" one): the translation stays one line.
  CHECK(parts.glue == std::vector<std::string>{"  ", "  ", " ", " "});

  // One sentence and nothing else, or a blank text: translated as it is.
  for (const std::string text : {"A dog runs.", "", "   ", "Mr. Smith sees Dr. Who."}) {
    CAPTURE(text);
    TextParts whole;
    std::vector<std::string> appended = {"before"};
    SplitParagraph(text, "en", &appended, &whole);
    CHECK(whole.first == 1);
    CHECK(whole.count == 0);
    CHECK(appended.back() == text);
  }
  // A target-language token (multilingual Marian models) goes before every sentence.
  std::vector<std::string> tagged;
  TextParts token;
  SplitParagraph(">>deu<< A dog runs. A cat sleeps.", "en", &tagged, &token);
  CHECK(tagged == std::vector<std::string>{">>deu<< A dog runs.", ">>deu<< A cat sleeps."});
  CHECK(token.carried == ">>deu<< ");
  CHECK(token.words == std::vector<size_t>{4, 3});  // as the words stand in the text
  std::vector<std::string> untagged;
  TextParts plain;
  SplitParagraph(">> not a token << here. And more.", "en", &untagged, &plain);
  CHECK(plain.carried.empty());
  // One sentence with whitespace around it keeps that whitespace.
  TextParts spaced;
  std::vector<std::string> one;
  SplitParagraph(" A dog runs. ", "en", &one, &spaced);
  CHECK(spaced.count == 1);
  CHECK(spaced.glue == std::vector<std::string>{" ", " "});
}

TEST_CASE("text parts: results joined with the paragraph's glue, ids and alignments moved") {
  std::vector<TextResult> results = {MadeResult(MadeHypothesis("Ein Hund.", {5, 6}, -1.0f)),
                                     MadeResult(MadeHypothesis("Zwei Frauen sitzen.", {7, 8, 9}, -2.0f))};
  results[1].warning = "cut";
  TextParts parts;
  parts.first = 0;
  parts.count = 2;
  parts.glue = {" ", "  ", "!"};
  parts.words = {3, 3};
  const std::vector<size_t> ids = {4, 5};
  TextResult joined;
  JoinParts(results, parts, &ids, &joined);
  REQUIRE(joined.status.ok());
  REQUIRE(joined.hypotheses.size() == 1);
  const TextHypothesis& h = joined.hypotheses[0];
  CHECK(h.text == " Ein Hund.  Zwei Frauen sitzen.!");
  CHECK(h.ids == std::vector<int32_t>{5, 6, 7, 8, 9});
  CHECK(h.score == doctest::Approx(-3.0f));
  CHECK(h.token_log_probs.size() == 3 + 4);
  CHECK(h.alignments == std::vector<int32_t>{1, 1, 5, 5, 5});  // the second's positions after the first's 4 ids
  // The second sentence's words follow the first's 3 source and 2 target words.
  CHECK(h.word_alignments == std::vector<std::pair<int32_t, int32_t>>{{0, 0}, {3, 2}});
  CHECK(h.word_confidences == std::vector<float>{0.25f, 0.25f});
  CHECK(h.confidence > 0.0f);
  CHECK(h.ended_with_eos);
  CHECK(joined.warning == "cut");

  // A long text's parts (no glue): non-empty texts joined with a space,
  // token-level alignments left out without the parts' ids.
  TextParts long_parts;
  long_parts.count = 2;
  long_parts.words = {3, 3};
  TextResult long_joined;
  JoinParts(results, long_parts, nullptr, &long_joined);
  CHECK(long_joined.hypotheses[0].text == "Ein Hund. Zwei Frauen sitzen.");
  CHECK(long_joined.hypotheses[0].alignments.empty());

  // A failed part fails the whole, with its status.
  results[1].status = Status(StatusCode::kInvalidArgument, "too long");
  TextResult failed;
  JoinParts(results, parts, &ids, &failed);
  CHECK(failed.status.code() == StatusCode::kInvalidArgument);
  CHECK(failed.hypotheses.empty());
}

#ifdef EDGEMT_WITH_SENTENCEPIECE
namespace {

std::unique_ptr<TextTranslator> MakeTranslator(const std::shared_ptr<const Model>& model, size_t cache_bytes = 0) {
  TextTranslatorOptions options;
  options.translator.max_batch_size = 4;
  options.translator.max_beam_size = 2;
  options.translator.num_threads = 1;
  options.cache_bytes = cache_bytes;
  auto translator = TextTranslator::Create(model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

}  // namespace

TEST_CASE("tokenizer: a paragraph translates as its sentences one by one, joined with its whitespace") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  const edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  auto text = MakeTranslator(test.model);
  const std::vector<std::string> paragraphs = {"a man is riding a bike. Two women are sitting on a bench.",
                                               "  The quick brown fox!   A dog? Ein Mann fährt.  ",
                                               "one sentence only", "Line one.\nLine two."};
  const std::vector<std::vector<std::string>> sentences = {
      {"a man is riding a bike.", "Two women are sitting on a bench."},
      {"The quick brown fox!", "A dog?", "Ein Mann fährt."},
      {"one sentence only"},
      {"Line one.", "Line two."}};
  const std::vector<std::vector<std::string>> glue = {{"", " ", ""}, {"  ", "   ", " ", "  "}, {"", ""}, {"", " ", ""}};
  for (const bool scores : {false, true}) {
    DecodeOptions decode;
    decode.return_alignments = scores;
    std::vector<TextResult> results;
    REQUIRE(text->TranslateTexts(paragraphs.data(), paragraphs.size(), decode, &results, scores).ok());
    for (size_t p = 0; p < paragraphs.size(); ++p) {
      CAPTURE(p);
      REQUIRE(results[p].status.ok());
      CHECK(results[p].warning.empty());
      std::vector<TextResult> alone;
      REQUIRE(text->TranslateTexts(sentences[p].data(), sentences[p].size(), decode, &alone, scores, nullptr,
                                   Sentences::kOnePerText)
                  .ok());
      std::string expected = glue[p][0];
      std::vector<int32_t> ids;
      float score = 0.0f;
      size_t log_probs = 0;
      for (size_t k = 0; k < alone.size(); ++k) {
        REQUIRE(alone[k].status.ok());
        expected += alone[k].hypotheses[0].text + glue[p][k + 1];
        ids.insert(ids.end(), alone[k].hypotheses[0].ids.begin(), alone[k].hypotheses[0].ids.end());
        score += alone[k].hypotheses[0].score;
        log_probs += alone[k].hypotheses[0].token_log_probs.size();
      }
      const TextHypothesis& best = results[p].hypotheses[0];
      CHECK(best.text == expected);
      CHECK(best.ids == ids);
      if (!scores) continue;
      CHECK(best.score == doctest::Approx(score));
      CHECK(best.token_log_probs.size() == log_probs);
      CHECK(best.alignments.size() == best.ids.size());
      CHECK(best.confidence > 0.0f);
    }
  }
  // Streaming: the same text, sentence after sentence.
  for (const std::string& paragraph : paragraphs) {
    CAPTURE(paragraph);
    std::vector<TextResult> whole;
    REQUIRE(text->TranslateTexts(&paragraph, 1, DecodeOptions(), &whole).ok());
    std::string streamed;
    TextResult result;
    REQUIRE(text->TranslateStreaming(paragraph, DecodeOptions(), [&](std::string_view piece) {
      streamed += piece;
      return true;
    }, &result).ok());
    CHECK(streamed == whole[0].hypotheses[0].text);
    CHECK(result.hypotheses[0].text == streamed);
    CHECK(result.hypotheses[0].ids == whole[0].hypotheses[0].ids);
    // Stopped at the first piece: what was sent, and no more.
    std::string first;
    TextResult stopped;
    REQUIRE(text->TranslateStreaming(paragraph, DecodeOptions(), [&](std::string_view piece) {
      first = piece;
      return false;
    }, &stopped).ok());
    CHECK(stopped.hypotheses[0].text.rfind(first, 0) == 0);
    CHECK(stopped.hypotheses[0].text.size() <= streamed.size());
  }
}

TEST_CASE("tokenizer: one sentence per text translates it whole; per-sentence calls warn of a paragraph") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  const edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  auto text = MakeTranslator(test.model, size_t{1} << 20);
  const std::string paragraph = "a man is riding a bike. Two women are sitting on a bench.";
  // As given: the ids of the whole text, as TranslateIds translates them.
  auto tokenizer = Tokenizer::Create(*test.model, Tokenizer::Side::kSource);
  REQUIRE(tokenizer.ok());
  std::vector<int32_t> source;
  REQUIRE(tokenizer.value()->Encode(paragraph, &source).ok());
  FrameSource(test.model->config(), &source);
  std::vector<TextResult> by_ids, as_given;
  REQUIRE(text->TranslateIds(&source, 1, DecodeOptions(), &by_ids).ok());
  REQUIRE(text->TranslateTexts(&paragraph, 1, DecodeOptions(), &as_given, false, nullptr, Sentences::kOnePerText).ok());
  CHECK(as_given[0].hypotheses[0].ids == by_ids[0].hypotheses[0].ids);
  CHECK(as_given[0].warning.empty());
  // Ids are translated as given, with a warning naming the sentences.
  CHECK(by_ids[0].warning.find("holds 2 sentences") != std::string::npos);

  // n-best: the paragraph as one sentence, and a warning.
  DecodeOptions nbest;
  nbest.beam_size = 2;
  nbest.num_hypotheses = 2;
  std::vector<TextResult> listed, listed_whole;
  REQUIRE(text->TranslateTexts(&paragraph, 1, nbest, &listed).ok());
  REQUIRE(text->TranslateTexts(&paragraph, 1, nbest, &listed_whole, false, nullptr, Sentences::kOnePerText).ok());
  CHECK(listed[0].hypotheses.size() == 2);
  CHECK(listed[0].hypotheses[0].ids == listed_whole[0].hypotheses[0].ids);
  CHECK(listed[0].warning.find("holds 2 sentences, translated as one") != std::string::npos);
  CHECK(listed_whole[0].warning.empty());

  // The cache works per sentence: a paragraph of sentences seen before is all hits.
  const std::vector<std::string> alone = {"a man is riding a bike.", "Two women are sitting on a bench."};
  std::vector<TextResult> results;
  REQUIRE(text->TranslateTexts(alone.data(), alone.size(), DecodeOptions(), &results).ok());
  const uint64_t hits = text->cache_stats().hits;
  REQUIRE(text->TranslateTexts(&paragraph, 1, DecodeOptions(), &results).ok());
  CHECK(text->cache_stats().hits == hits + 2);
}
#endif
