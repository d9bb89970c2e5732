// Documents through a model (edgemt/document.h): streamed sentence by
// sentence, the pieces add up to exactly the whole translation, in any
// batch size, and a callback can stop it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edgemt/document.h"
#include "edgemt/text_translator.h"
#include "test_model.h"
#include "test_spm.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;

#ifdef EDGEMT_WITH_SENTENCEPIECE
TEST_CASE("tokenizer: a streamed document is the document's translation, piece by piece") {
  const std::vector<uint8_t> spm = edgemt::testing::SentencePieceModelOrSkip();
  if (spm.empty()) return;
  const TestModel test = LoadTestModel(edgemt::testing::SpecWithTokenizer(spm));
  const std::string document =
      "a man is riding a bike. two women sit! the dog runs.\n\n  the quick brown fox; a man.\r\nthe end? yes.\n";
  DecodeOptions decode;
  decode.min_length = 2;
  for (int batch : {1, 2, 16}) {
    CAPTURE(batch);
    TextTranslatorOptions options;
    options.translator.max_batch_size = batch;
    options.translator.num_threads = 1;
    auto text = TextTranslator::Create(test.model, options);
    REQUIRE(text.ok());
    DocumentResult whole, streamed;
    REQUIRE(TranslateDocument(*text.value(), document, decode, &whole).ok());
    std::vector<std::string> pieces;
    REQUIRE(TranslateDocumentStreaming(*text.value(), document, decode, [&](std::string_view p) {
      pieces.emplace_back(p);
      return true;
    }, &streamed).ok());
    std::string joined;
    for (const std::string& p : pieces) joined += p;
    CHECK(joined == whole.text);
    CHECK(streamed.text == whole.text);
    CHECK(streamed.sentences == whole.sentences);
    CHECK(pieces.size() >= whole.sentences);  // at least one piece per sentence
    // Stopped at the first piece: nothing more comes.
    size_t calls = 0;
    DocumentResult stopped;
    REQUIRE(TranslateDocumentStreaming(*text.value(), document, decode, [&](std::string_view) {
      ++calls;
      return false;
    }, &stopped).ok());
    CHECK(calls == 1);
    CHECK(whole.text.compare(0, stopped.text.size(), stopped.text) == 0);
  }
}
#endif
