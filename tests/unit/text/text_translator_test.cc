// TextTranslator (edgemt/text_translator.h), the layer the CLI, the C API
// and Python share: results equal the core Translator's, batches are split
// at max_batch_size, one bad source fails alone, long sources are truncated
// or refused, options are refused for all; and streaming (SettledText):
// pieces are whole characters adding up to exactly the final text, and a
// callback can stop decoding. Test cases that need a SentencePiece model
// have "tokenizer" in their names (CTest runs them with one).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "edgemt/text_translator.h"
#include "text/settled_text.h"
#include "test_model.h"
#include "test_spm.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;

namespace {

std::unique_ptr<TextTranslator> Make(const std::shared_ptr<const Model>& model, int batch, int source_limit = 0,
                                     LongInput long_input = LongInput::kTruncate) {
  TextTranslatorOptions options;
  options.translator.max_batch_size = batch;
  options.translator.max_beam_size = 2;
  options.translator.num_threads = 1;
  options.translator.max_source_length = source_limit;
  options.long_input = long_input;
  auto translator = TextTranslator::Create(model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

std::vector<std::vector<int32_t>> Sources(int count) {
  std::vector<std::vector<int32_t>> sources;
  for (int s = 0; s < count; ++s) {
    std::vector<int32_t> ids;
    for (int i = 0; i < 2 + s % 5; ++i) ids.push_back(4 + (s * 7 + i * 3) % 30);
    ids.push_back(3);  // </s>
    sources.push_back(ids);
  }
  return sources;
}

// The pieces a SettledText sends for ids whose texts are given.
struct Stream {
  std::vector<std::string> pieces;
  std::string all;
};

}  // namespace

TEST_CASE("TranslateIds gives the core translator's outputs, in batches of at most max_batch_size") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto text = Make(test.model, 3);
  const auto sources = Sources(8);  // three batches
  std::vector<TextResult> results;
  REQUIRE(text->TranslateIds(sources.data(), sources.size(), DecodeOptions(), &results).ok());
  REQUIRE(results.size() == sources.size());
  TranslatorOptions options;
  options.num_threads = 1;
  auto core = Translator::Create(test.model, options);
  REQUIRE(core.ok());
  for (size_t s = 0; s < sources.size(); ++s) {
    const TokenIds input{sources[s].data(), sources[s].size()};
    TokenIds output;
    REQUIRE(core.value()->Translate(&input, 1, &output).ok());
    REQUIRE(results[s].status.ok());
    REQUIRE(results[s].hypotheses.size() == 1);
    CHECK(results[s].hypotheses[0].ids == std::vector<int32_t>(output.data, output.data + output.size));
    CHECK(results[s].hypotheses[0].text.empty());  // no tokenizer in this model
  }
}

TEST_CASE("sources are sorted by length into batches, max_batch_tokens bounds them, results keep the caller's order") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto sources = Sources(9);  // 3 to 7 ids, not in order of length
  sources.push_back(std::vector<int32_t>(20, 7));  // the longest, in the middle of nowhere
  sources.back().back() = 3;
  std::swap(sources.front(), sources.back());
  TranslatorOptions core_options;
  core_options.num_threads = 1;
  auto core = Translator::Create(test.model, core_options);
  REQUIRE(core.ok());
  std::vector<std::vector<int32_t>> expected;
  long steps_alone = 0;  // decoder steps when every source is its own batch
  for (const auto& source : sources) {
    const TokenIds input{source.data(), source.size()};
    Hypothesis h;
    REQUIRE(core.value()->Translate(&input, 1, &h, DecodeOptions()).ok());
    expected.emplace_back(h.ids.data, h.ids.data + h.ids.size);
    steps_alone += static_cast<long>(h.ids.size + (h.ended_with_eos ? 1 : 0));
  }
  for (size_t max_tokens : {size_t{0}, size_t{24}, size_t{1}}) {
    CAPTURE(max_tokens);
    TextTranslatorOptions options;
    options.translator.max_batch_size = 4;
    options.translator.num_threads = 1;
    options.translator.profile = true;
    options.max_batch_tokens = max_tokens;
    auto text = TextTranslator::Create(test.model, options);
    REQUIRE(text.ok());
    std::vector<TextResult> results;
    REQUIRE(text.value()->TranslateIds(sources.data(), sources.size(), DecodeOptions(), &results).ok());
    for (size_t s = 0; s < sources.size(); ++s) {
      CAPTURE(s);
      REQUIRE(results[s].status.ok());
      CHECK(results[s].hypotheses[0].ids == expected[s]);
    }
    const long steps = text.value()->translator()->profile().decoder_steps;
    if (max_tokens == 1) {
      CHECK(steps == steps_alone);  // no two sources fit in 1 token: one by one
    } else {
      CHECK(steps < steps_alone);   // batches of up to 4 share their steps
    }
  }
}

TEST_CASE("one bad source fails alone; blank sources give empty translations") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto text = Make(test.model, 4);
  auto sources = Sources(4);
  sources[1] = {5, 999, 3};  // outside the source vocabulary (40)
  sources[2].clear();
  std::vector<TextResult> results, alone;
  DecodeOptions decode;
  decode.beam_size = 2;
  decode.num_hypotheses = 2;
  REQUIRE(text->TranslateIds(sources.data(), sources.size(), decode, &results).ok());
  CHECK(results[1].status.code() == StatusCode::kInvalidArgument);
  CHECK(results[1].status.message() == "id 999 is outside the source vocabulary (0..39)");
  CHECK(results[1].hypotheses.empty());
  REQUIRE(results[2].status.ok());
  REQUIRE(results[2].hypotheses.size() == 2);
  CHECK(results[2].hypotheses[0].ids.empty());
  CHECK(results[2].hypotheses[0].score == 0.0f);
  for (size_t s : {size_t{0}, size_t{3}}) {
    REQUIRE(text->TranslateIds(&sources[s], 1, decode, &alone).ok());
    REQUIRE(results[s].status.ok());
    REQUIRE(results[s].hypotheses.size() == 2);
    for (size_t k = 0; k < 2; ++k) {
      CHECK(results[s].hypotheses[k].ids == alone[0].hypotheses[k].ids);
      CHECK(results[s].hypotheses[k].score == alone[0].hypotheses[k].score);
      CHECK(results[s].hypotheses[k].score < 0.0f);
    }
  }
}

TEST_CASE("a blank source's translations are its target prefix, cut at the length limit") {
  // Found by tests/fuzz/fuzz_translate.cc: the prefix came back whole, longer than max_length.
  const TestModel test = LoadTestModel(TestModelSpec());
  auto text = Make(test.model, 2);
  const std::vector<std::vector<int32_t>> sources = {{}};
  const std::vector<std::vector<int32_t>> prefixes = {{5, 6, 7, 8, 9, 10, 11, 12, 13}};
  std::vector<TextResult> results;
  DecodeOptions decode;
  decode.beam_size = 2;
  decode.num_hypotheses = 2;
  for (const int max_length : {0, 4}) {
    CAPTURE(max_length);
    decode.max_length = max_length;
    REQUIRE(text->TranslateIds(sources.data(), 1, decode, &results, false, prefixes.data()).ok());
    REQUIRE(results[0].status.ok());
    REQUIRE(results[0].hypotheses.size() == 2);
    const size_t expected = max_length == 4 ? 4 : 9;  // 0: the default limit, 10 ids past the prefix
    for (const TextHypothesis& h : results[0].hypotheses) {
      CHECK(h.ids == std::vector<int32_t>(prefixes[0].begin(), prefixes[0].begin() + expected));
      CHECK(h.token_log_probs.size() == expected);
    }
  }
}

TEST_CASE("long sources are truncated with a warning, or refused") {
  const TestModel test = LoadTestModel(TestModelSpec());
  const std::vector<std::vector<int32_t>> sources = {{4, 5, 6, 7, 8, 9, 10, 3}};
  std::vector<TextResult> results;
  auto truncating = Make(test.model, 1, 4);
  REQUIRE(truncating->TranslateIds(sources.data(), 1, DecodeOptions(), &results).ok());
  REQUIRE(results[0].status.ok());
  CHECK(results[0].warning == "the source has 8 tokens, more than the limit of 4: translating its first 4");
  std::vector<TextResult> cut;
  const std::vector<std::vector<int32_t>> first = {{4, 5, 6, 3}};
  REQUIRE(truncating->TranslateIds(first.data(), 1, DecodeOptions(), &cut).ok());
  CHECK(results[0].hypotheses[0].ids == cut[0].hypotheses[0].ids);
  auto refusing = Make(test.model, 1, 4, LongInput::kError);
  REQUIRE(refusing->TranslateIds(sources.data(), 1, DecodeOptions(), &results).ok());
  CHECK(results[0].status.message() == "the source has 8 tokens, more than the limit of 4");
}

TEST_CASE("options the translator refuses fail the call and every result") {
  const TestModel test = LoadTestModel(TestModelSpec());
  auto text = Make(test.model, 2);
  const auto sources = Sources(2);
  std::vector<TextResult> results;
  DecodeOptions decode;
  decode.beam_size = 3;  // max_beam_size is 2
  const Status status = text->TranslateIds(sources.data(), 2, decode, &results);
  CHECK(status.code() == StatusCode::kInvalidArgument);
  REQUIRE(results.size() == 2);
  for (const TextResult& r : results) CHECK(r.status.message() == status.message());
  // Texts need a tokenizer, which this model has not.
  const std::string texts[] = {"a dog"};
  CHECK(text->TranslateTexts(texts, 1, DecodeOptions(), &results).code() == StatusCode::kNotFound);
  TextResult streamed;
  CHECK(text->TranslateStreaming("a dog", DecodeOptions(), [](std::string_view) { return true; }, &streamed).code() ==
        StatusCode::kNotFound);
}

TEST_CASE("SettledLength holds back a cut-short character and trailing U+FFFD") {
  CHECK(SettledLength("") == 0);
  CHECK(SettledLength("Haus") == 4);
  CHECK(SettledLength("Stra\xC3\x9F") == 6);                // ß whole
  CHECK(SettledLength("Stra\xC3") == 4);                    // ß's first byte only
  CHECK(SettledLength("\xE2\x82") == 0);                    // two of €'s three bytes
  CHECK(SettledLength("ok \xF0\x9F\x98\x80") == 7);         // an emoji whole
  CHECK(SettledLength("ok \xF0\x9F\x98") == 3);
  CHECK(SettledLength("a\xEF\xBF\xBD\xEF\xBF\xBD") == 1);   // stand-ins for bytes still to come
  CHECK(SettledLength("a\xEF\xBF\xBD" "b") == 5);           // one inside the text stays
}

TEST_CASE("streamed pieces are whole characters that add up to the final text") {
  // Fake detokenization: each id adds the bytes of one string; the text of
  // ids so far shows an incomplete UTF-8 sequence as U+FFFD, as SentencePiece's
  // byte fallback does.
  const std::vector<std::string> bytes = {"Ein", " gro", "\xC3", "\x9F" "er", " Hund", "\xE2\x82", "\xAC", "!"};
  auto text_of = [&bytes](const int32_t* ids, size_t count, std::string* text) {
    std::string raw;
    for (size_t i = 0; i < count; ++i) raw += bytes[static_cast<size_t>(ids[i])];
    const size_t settled = SettledLength(raw);
    *text = raw.substr(0, settled);
    for (size_t i = settled; i < raw.size(); ++i) *text += "\xEF\xBF\xBD";
    return Status::Ok();
  };
  std::string final_text;
  for (const std::string& b : bytes) final_text += b;
  for (size_t stop_after : {size_t{0}, size_t{2}}) {  // 0: never stop
    CAPTURE(stop_after);
    std::vector<std::string> pieces;
    const PieceCallback on_piece = [&](std::string_view piece) {
      pieces.emplace_back(piece);
      return stop_after == 0 || pieces.size() < stop_after;
    };
    SettledText stream(text_of, on_piece);
    size_t added = 0;
    for (int32_t id = 0; id < static_cast<int32_t>(bytes.size()); ++id) {
      ++added;
      if (!stream.Add(id)) break;
    }
    std::string joined;
    for (const std::string& p : pieces) {
      CHECK(SettledLength(p) == p.size());  // whole characters, no stand-ins
      CHECK_FALSE(p.empty());
      joined += p;
    }
    if (stop_after == 0) {
      CHECK(added == bytes.size());
      REQUIRE(stream.Finish(final_text).ok());
      CHECK(pieces.back() == "!");
      std::string all;
      for (const std::string& p : pieces) all += p;
      CHECK(all == final_text);
    } else {
      CHECK(stream.stopped());
      CHECK(pieces.size() == stop_after);
      CHECK(added < bytes.size());
      CHECK(final_text.rfind(joined, 0) == 0);
    }
  }
}

#ifdef EDGEMT_WITH_SENTENCEPIECE
TEST_CASE("tokenizer: texts, ids and streaming agree, and a stream stops when asked") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  // A random model over the tokenizer's vocabulary: arbitrary output ids,
  // which is what the streaming rule must hold for.
  const TestModel test = LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  auto text = Make(test.model, 4);
  REQUIRE(text->has_tokenizer());
  const std::vector<std::string> lines = {"a man is riding a bike", "", "two women are sitting on a bench",
                                          "the quick brown fox", "ein mann fährt mit dem fahrrad"};
  std::vector<TextResult> results;
  REQUIRE(text->TranslateTexts(lines.data(), lines.size(), DecodeOptions(), &results).ok());
  for (size_t i = 0; i < lines.size(); ++i) {
    CAPTURE(i);
    REQUIRE(results[i].status.ok());
    const TextHypothesis& best = results[i].hypotheses[0];
    if (lines[i].empty()) {
      CHECK(best.text.empty());
      continue;
    }
    CHECK_FALSE(best.ids.empty());
    std::vector<std::string> pieces;
    TextResult streamed;
    REQUIRE(text->TranslateStreaming(lines[i], DecodeOptions(), [&](std::string_view p) {
      pieces.emplace_back(p);
      return true;
    }, &streamed).ok());
    std::string joined;
    for (const std::string& p : pieces) joined += p;
    CHECK(joined == best.text);
    CHECK(streamed.hypotheses[0].text == best.text);
    CHECK(streamed.hypotheses[0].ids == best.ids);
    // Stopped after the first piece: fewer ids, their text starts with that piece.
    std::vector<std::string> first;
    TextResult stopped;
    REQUIRE(text->TranslateStreaming(lines[i], DecodeOptions(), [&](std::string_view p) {
      first.emplace_back(p);
      return false;
    }, &stopped).ok());
    REQUIRE(first.size() == 1);
    CHECK_FALSE(stopped.hypotheses[0].ended_with_eos);
    CHECK(stopped.hypotheses[0].ids.size() <= best.ids.size());
    CHECK(stopped.hypotheses[0].text.rfind(first[0], 0) == 0);
    if (best.ids.size() > 1) CHECK(stopped.hypotheses[0].ids.size() < best.ids.size());
  }
  // Beams do not stream.
  DecodeOptions beam;
  beam.beam_size = 2;
  TextResult refused;
  CHECK(text->TranslateStreaming("a dog", beam, [](std::string_view) { return true; }, &refused).code() ==
        StatusCode::kInvalidArgument);
}
#endif

// edgemt.h compiles as C++ too (tests/c_api/c_api_test.c is its C99 test).
extern "C" {
#include "edgemt/edgemt.h"
}

TEST_CASE("the C API header compiles as C++ and its statuses match the C++ codes") {
  CHECK(std::string(edgemt_status_name(EDGEMT_INVALID_MODEL)) == "INVALID_MODEL");
  edgemt_model* model = nullptr;
  CHECK(edgemt_model_load("/nonexistent.edgemt", &model) == EDGEMT_NOT_FOUND);
  CHECK(std::string(edgemt_last_error()).find("/nonexistent.edgemt") != std::string::npos);
}

TEST_CASE("C API: two threads on one translator take turns (run under TSan too)") {
  const TestModel test = LoadTestModel(TestModelSpec());
  const std::string path = "/tmp/edgemt_c_api_thread_test_" + std::to_string(::getpid()) + ".edgemt";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(test.bytes->data()), static_cast<std::streamsize>(test.bytes->size()));
  }
  edgemt_model* model = nullptr;
  REQUIRE(edgemt_model_load(path.c_str(), &model) == EDGEMT_OK);
  std::remove(path.c_str());  // mapped: the file can go
  edgemt_translator* translator = nullptr;
  REQUIRE(edgemt_translator_create(model, nullptr, &translator) == EDGEMT_OK);
  edgemt_model_free(model);
  const auto sources = Sources(6);
  std::vector<std::vector<int32_t>> outputs[2];
  auto work = [&](int t) {
    for (int round = 0; round < 5; ++round) {
      for (const auto& s : sources) {
        const int32_t* data = s.data();
        const size_t length = s.size();
        edgemt_results* results = nullptr;
        if (edgemt_translate_ids(translator, &data, &length, 1, nullptr, &results) != EDGEMT_OK) return;
        edgemt_hypothesis h;
        h.struct_size = sizeof h;
        if (edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK)
          outputs[t].emplace_back(h.ids, h.ids + h.num_ids);
        edgemt_results_free(results);
      }
    }
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  edgemt_translator_free(translator);
  REQUIRE(outputs[0].size() == 5 * sources.size());
  CHECK(outputs[0] == outputs[1]);
}
