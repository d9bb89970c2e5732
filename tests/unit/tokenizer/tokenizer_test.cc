// Tokenizers a model file carries (runtime/src/tokenizer/tokenizer.cc,
// edgemt/tokenizer.h): none, one that is no SentencePiece model, one whose
// vocabulary disagrees with the model, and one shared by both sides.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edgemt/model.h"
#include "test_model.h"
#include "test_spm.h"
#ifdef EDGEMT_WITH_SENTENCEPIECE
#include <sentencepiece_processor.h>

#include "edgemt/tokenizer.h"
#endif

using namespace edgemt;
using edgemt::testing::SentencePieceModelOrSkip;
using edgemt::testing::TestModelSpec;

#ifdef EDGEMT_WITH_SENTENCEPIECE
TEST_CASE("a model without a tokenizer") {
  edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(TestModelSpec{});
  for (auto side : {Tokenizer::Side::kSource, Tokenizer::Side::kTarget}) {
    auto tokenizer = Tokenizer::Create(*test.model, side);
    REQUIRE_FALSE(tokenizer.ok());
    CHECK(tokenizer.status().code() == StatusCode::kNotFound);
    CHECK(tokenizer.status().message() ==
          "the model has no tokenizer: translate token ids instead (--input-ids, --output-ids)");
  }
}

TEST_CASE("a tokenizer that is not a SentencePiece model") {
  TestModelSpec spec;
  spec.mutate = [](fb::ModelT& m) {
    m.tokenizer = std::make_unique<fb::TokenizerT>();
    m.tokenizer->source_model = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  };
  edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(spec);
  auto tokenizer = Tokenizer::Create(*test.model, Tokenizer::Side::kSource);
  REQUIRE_FALSE(tokenizer.ok());
  CHECK(tokenizer.status().code() == StatusCode::kInvalidModel);
  CHECK(tokenizer.status().message().rfind("the source tokenizer cannot be loaded: ", 0) == 0);
}

TEST_CASE("a tokenizer whose vocabulary disagrees with the model") {
  const std::vector<uint8_t> spm = SentencePieceModelOrSkip();
  if (spm.empty()) return;
  // Vocabulary sizes no tokenizer used here has (the tiny one has 48 pieces, Multi30k's 8000).
  TestModelSpec spec;
  spec.source_vocab = 30;
  spec.target_vocab = 31;
  spec.mutate = [&spm](fb::ModelT& m) {
    m.tokenizer = std::make_unique<fb::TokenizerT>();
    m.tokenizer->source_model = spm;
  };
  edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(spec);
  auto source = Tokenizer::Create(*test.model, Tokenizer::Side::kSource);
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == StatusCode::kInvalidModel);
  // "the source tokenizer has N pieces, the model's vocabulary has 30"
  const std::string& message = source.status().message();
  CHECK(message.rfind("the source tokenizer has ", 0) == 0);
  CHECK(message.find(" pieces, the model's vocabulary has 30") != std::string::npos);
  // One SentencePiece model serves both sides.
  auto target = Tokenizer::Create(*test.model, Tokenizer::Side::kTarget);
  REQUIRE_FALSE(target.ok());
  CHECK(target.status().message().rfind("the target tokenizer has ", 0) == 0);
  CHECK(target.status().message().find(" pieces, the model's vocabulary has 31") != std::string::npos);
}

TEST_CASE("a target tokenizer can share the source's SentencePiece model") {
  const std::vector<uint8_t> spm = SentencePieceModelOrSkip();
  if (spm.empty()) return;
  sentencepiece::SentencePieceProcessor reference;
  REQUIRE(reference.LoadFromSerializedProto(absl::string_view(reinterpret_cast<const char*>(spm.data()), spm.size())).ok());
  const int pieces = reference.GetPieceSize();
  // Sizes that fit the tokenizer exactly, and one that does not.
  for (int target_vocab : {pieces, pieces - 1}) {
    CAPTURE(target_vocab);
    TestModelSpec spec;
    spec.source_vocab = pieces;
    spec.target_vocab = target_vocab;
    spec.mutate = [&spm](fb::ModelT& m) {
      m.tokenizer = std::make_unique<fb::TokenizerT>();
      m.tokenizer->source_model = spm;  // no target_model: one model serves both sides
    };
    edgemt::testing::TestModel test = edgemt::testing::LoadTestModel(spec);
    auto source = Tokenizer::Create(*test.model, Tokenizer::Side::kSource);
    REQUIRE_MESSAGE(source.ok(), source.status().ToString());
    auto shared = Tokenizer::Create(*test.model, Tokenizer::Side::kTarget, source.value().get());
    auto own = Tokenizer::Create(*test.model, Tokenizer::Side::kTarget);
    // Sharing skips loading, not the checks against the model.
    REQUIRE(shared.ok() == own.ok());
    if (!own.ok()) {
      CHECK(shared.status().message() == own.status().message());
      continue;
    }
    std::vector<int32_t> ids;
    REQUIRE(source.value()->Encode("Two dogs play in the snow.", &ids).ok());
    std::string from_shared, from_own;
    REQUIRE(shared.value()->Decode(ids.data(), ids.size(), &from_shared).ok());
    REQUIRE(own.value()->Decode(ids.data(), ids.size(), &from_own).ok());
    CHECK(from_shared.find("dogs") != std::string::npos);
    CHECK(from_shared == from_own);
    // The source tokenizer may go first: the shared model lives on.
    source.value().reset();
    REQUIRE(shared.value()->Decode(ids.data(), ids.size(), &from_shared).ok());
    CHECK(from_shared == from_own);
  }
}
#endif
