#include <doctest/doctest.h>

#include <memory>
#include <new>
#include <vector>

#include "allocation_counter.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

// Deterministic sources of different lengths, each ending with </s> (3).
std::vector<std::vector<int32_t>> MakeSources(int count, int vocab, int first_length) {
  return SyntheticSources(count, vocab, first_length, 3, 7, 5);
}


std::unique_ptr<Translator> MakeTranslator(const TestModel& test, TranslatorOptions options = {}) {
  auto translator = Translator::Create(test.model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

using Outputs = std::vector<std::vector<int32_t>>;

Outputs TranslateAll(Translator& translator, const std::vector<std::vector<int32_t>>& sources, size_t batch,
                     DecodeOptions decode = {}) {
  Outputs outputs;
  std::vector<TokenIds> views = Views(sources);
  for (size_t first = 0; first < views.size(); first += batch) {
    const size_t count = std::min(batch, views.size() - first);
    std::vector<TokenIds> results(count);
    Status status = translator.Translate(&views[first], count, results.data(), decode);
    REQUIRE_MESSAGE(status.ok(), status.ToString());
    for (const TokenIds& r : results) outputs.emplace_back(r.data, r.data + r.size);
  }
  return outputs;
}

std::vector<TestModelSpec> Variants() {
  std::vector<TestModelSpec> specs;
  // float32, int8, int4 (wider: XNNPACK's int4 blocks are multiples of 32 inputs)
  for (int kind : {0, 1, 2}) {
    TestModelSpec spec;
    spec.int8 = kind == 1;
    if (kind == 2) {
      spec.int4_block = 32;
      spec.d_model = 64;
      spec.d_ff = 128;
    }
    specs.push_back(spec);
    spec.norm = NormPlacement::kPreLN;
    spec.activation = Activation::kGELU;
    spec.positions = PositionEncoding::kSinusoidalHalves;
    spec.tied_output = true;
    specs.push_back(spec);
    spec.activation = Activation::kSiLU;
    spec.positions = PositionEncoding::kLearned;
    spec.tied_output = false;
    specs.push_back(spec);
  }
  // Marian's (Firefox Translations'): SSRU decoders, float32 and int8 with tied embeddings.
  for (bool int8 : {false, true}) {
    TestModelSpec spec;
    spec.marian = true;
    spec.int8 = int8;
    spec.tied_output = int8;
    specs.push_back(spec);
  }
  return specs;
}

}  // namespace

TEST_CASE("outputs are target ids without </s>, at most the reference's length") {
  for (const TestModelSpec& spec : Variants()) {
    TestModel test = LoadTestModel(spec);
    auto translator = MakeTranslator(test);
    const auto sources = MakeSources(3, spec.source_vocab, 2);
    Outputs outputs = TranslateAll(*translator, sources, 1);
    for (size_t s = 0; s < sources.size(); ++s) {
      CHECK(outputs[s].size() <= 2 * sources[s].size() + 10);
      for (int32_t id : outputs[s]) {
        CHECK(id >= 0);
        CHECK(id < spec.target_vocab);
        CHECK(id != 3);
      }
    }
  }
}

TEST_CASE("a batch gives exactly the outputs of its sentences one by one") {
  for (const TestModelSpec& spec : Variants()) {
    CAPTURE(spec.int8);
    CAPTURE(spec.marian);
    CAPTURE(static_cast<int>(spec.norm));
    TestModel test = LoadTestModel(spec);
    TranslatorOptions options;
    options.max_batch_size = 4;
    auto translator = MakeTranslator(test, options);
    const auto sources = MakeSources(7, spec.source_vocab, 1);
    const Outputs single = TranslateAll(*translator, sources, 1);
    const Outputs batched = TranslateAll(*translator, sources, 4);
    CHECK(single == batched);
  }
}

TEST_CASE("the output is the same with 1 and 2 threads") {
  // Large enough that the decoder's output projection (4 rows x 128 x 4000
  // multiply-adds) runs on the pool at every step: the profile counts it.
  for (bool int8 : {false, true}) {
    CAPTURE(int8);
    TestModelSpec spec;
    spec.d_model = 128;
    spec.num_heads = 4;
    spec.d_ff = 512;
    spec.source_vocab = 300;
    spec.target_vocab = 4000;
    spec.int8 = int8;
    TestModel test = LoadTestModel(spec);
    TranslatorOptions one, two;
    one.num_threads = 1;
    two.num_threads = 2;
    one.max_batch_size = two.max_batch_size = 4;
    one.profile = two.profile = true;
    auto single_thread = MakeTranslator(test, one);
    auto two_threads = MakeTranslator(test, two);
    const auto sources = MakeSources(4, spec.source_vocab, 30);
    CHECK(TranslateAll(*single_thread, sources, 4) == TranslateAll(*two_threads, sources, 4));
    CHECK(single_thread->profile().parallel_products == 0);
    REQUIRE(two_threads->profile().decoder_steps > 0);
    CHECK(two_threads->profile().parallel_products >= two_threads->profile().decoder_steps);
  }
}

TEST_CASE("translating allocates nothing") {
  for (const TestModelSpec& spec : Variants()) {
    TestModel test = LoadTestModel(spec);
    TranslatorOptions options;
    options.max_batch_size = 3;
    options.num_threads = 2;
    auto translator = MakeTranslator(test, options);
    const auto sources = MakeSources(3, spec.source_vocab, 4);
    std::vector<TokenIds> views = Views(sources);
    TokenIds results[3];
    REQUIRE(translator->Translate(views.data(), 3, results).ok());  // warm-up
    edgemt::testing::StartCountingAllocations();
    const Status batch = translator->Translate(views.data(), 3, results);
    const Status single = translator->Translate(views.data(), 1, results);
    DecodeOptions fixed;
    fixed.min_length = fixed.max_length = 20;
    const Status fixed_length = translator->Translate(views.data(), 2, results, fixed);
    const size_t allocations = edgemt::testing::StopCountingAllocations();
    CHECK(batch.ok());
    CHECK(single.ok());
    CHECK(fixed_length.ok());
    CHECK(allocations == 0);
  }
}

TEST_CASE("min_length and max_length bound the output") {
  TestModel test = LoadTestModel(TestModelSpec{});
  auto translator = MakeTranslator(test);
  const auto sources = MakeSources(3, 40, 2);
  DecodeOptions fixed;
  fixed.min_length = fixed.max_length = 17;
  for (const auto& output : TranslateAll(*translator, sources, 1, fixed)) {
    CHECK(output.size() == 17);
    for (int32_t id : output) CHECK(id != 3);
  }
  DecodeOptions short_output;
  short_output.max_length = 2;
  for (const auto& output : TranslateAll(*translator, sources, 1, short_output)) CHECK(output.size() <= 2);
}

TEST_CASE("Encode and DecodeStep give the logits Translate chooses from") {
  TestModel test = LoadTestModel(TestModelSpec{});
  auto translator = MakeTranslator(test);
  const auto sources = MakeSources(1, 40, 5);
  DecodeOptions fixed;
  fixed.min_length = fixed.max_length = 6;
  const Outputs expected = TranslateAll(*translator, sources, 1, fixed);
  const TokenIds source{sources[0].data(), sources[0].size()};
  REQUIRE(translator->Encode(&source, 1).ok());
  REQUIRE(translator->encoder_output(0) != nullptr);
  int32_t token = test.model->config().decoder_start_id;
  for (int step = 0; step < 6; ++step) {
    REQUIRE(translator->DecodeStep(&token).ok());
    const float* logits = translator->logits(0);
    int32_t best = -1;
    for (int i = 0; i < test.model->config().target_vocab_size; ++i) {
      if (i != 3 && (best < 0 || logits[i] > logits[best])) best = i;
    }
    CHECK(best == expected[0][static_cast<size_t>(step)]);
    token = best;
  }
}

TEST_CASE("requests over the limits are refused before anything runs") {
  TestModel test = LoadTestModel(TestModelSpec{});
  TranslatorOptions options;
  options.max_batch_size = 2;
  options.max_source_length = 8;
  options.max_target_length = 10;
  auto translator = MakeTranslator(test, options);
  std::vector<int32_t> ok_ids = {5, 6, 3}, long_ids(9, 5), bad_ids = {5, 40, 3}, negative_ids = {-1, 3};
  TokenIds out[3];
  TokenIds three[3] = {{ok_ids.data(), 3}, {ok_ids.data(), 3}, {ok_ids.data(), 3}};
  Status status = translator->Translate(three, 3, out);
  CHECK(status.code() == StatusCode::kInvalidArgument);
  CHECK(status.message() == "a batch of 3 is more than the translator's max_batch_size 2");

  TokenIds too_long{long_ids.data(), long_ids.size()};
  status = translator->Translate(&too_long, 1, out);
  CHECK(status.message() == "source 0 has 9 ids, more than the translator's max_source_length 8");

  TokenIds out_of_range{bad_ids.data(), bad_ids.size()};
  status = translator->Translate(&out_of_range, 1, out);
  CHECK(status.message() == "id 40 at position 1 of source 0 is outside the source vocabulary (0..39)");

  TokenIds negative{negative_ids.data(), negative_ids.size()};
  status = translator->Translate(&negative, 1, out);
  CHECK(status.message() == "id -1 at position 0 of source 0 is outside the source vocabulary (0..39)");

  TokenIds empty{ok_ids.data(), 0};
  status = translator->Translate(&empty, 1, out);
  CHECK(status.message() == "source 0 is empty (a source ends with </s>)");

  DecodeOptions too_many;
  too_many.max_length = 11;
  TokenIds fine{ok_ids.data(), 3};
  status = translator->Translate(&fine, 1, out, too_many);
  CHECK(status.message() == "max_length 11 is outside the translator's max_target_length 10");

  // Still usable afterwards.
  CHECK(translator->Translate(&fine, 1, out).ok());
}

TEST_CASE("the step API refuses requests over the translator's limits") {
  TestModel test = LoadTestModel(TestModelSpec{});
  TranslatorOptions options;
  options.max_source_length = 8;
  options.max_target_length = 3;
  auto translator = MakeTranslator(test, options);
  int32_t token = test.model->config().decoder_start_id;
  CHECK(translator->DecodeStep(&token).message() == "DecodeStep needs a successful Encode first");

  std::vector<int32_t> ok_ids = {5, 6, 3}, long_ids(9, 5);
  TokenIds too_long{long_ids.data(), long_ids.size()};
  CHECK(translator->Encode(&too_long, 1).message() ==
        "source 0 has 9 ids, more than the translator's max_source_length 8");
  TokenIds two[2] = {{ok_ids.data(), 3}, {ok_ids.data(), 3}};
  CHECK(translator->Encode(two, 2).message() == "a batch of 2 is more than the translator's max_batch_size 1");
  CHECK(translator->DecodeStep(&token).message() == "DecodeStep needs a successful Encode first");

  REQUIRE(translator->Encode(two, 1).ok());
  CHECK(translator->DecodeStep(nullptr).message() == "tokens must not be null");
  int32_t outside = 48, negative = -2;
  CHECK(translator->DecodeStep(&outside).message() == "target id 48 is outside the target vocabulary");
  CHECK(translator->DecodeStep(&negative).message() == "target id -2 is outside the target vocabulary");
  // Refused steps do not count: all three steps of max_target_length are still there.
  for (int step = 0; step < 3; ++step) CHECK(translator->DecodeStep(&token).ok());
  const Status over = translator->DecodeStep(&token);
  CHECK(over.code() == StatusCode::kInvalidArgument);
  CHECK(over.message() == "the translator's max_target_length 3 is reached");

  DecodeOptions negative_min;
  negative_min.min_length = -1;
  TokenIds out;
  CHECK(translator->Translate(two, 1, &out, negative_min).message() == "min_length must not be negative");
  CHECK(translator->Translate(two, 1, nullptr).message() == "outputs must not be null");
  CHECK(translator->Translate(nullptr, 1, &out).message() == "no sources to translate");
  CHECK(translator->Translate(two, 1, &out).ok());
}

TEST_CASE("limits beyond the model's positions are refused at creation") {
  TestModel test = LoadTestModel(TestModelSpec{});
  TranslatorOptions options;
  options.max_source_length = 65;
  auto translator = Translator::Create(test.model, options);
  REQUIRE_FALSE(translator.ok());
  CHECK(translator.status().message() == "max_source_length must be 1..64 (the model's positions), not 65");

  auto refused = [&](TranslatorOptions bad) {
    auto result = Translator::Create(test.model, bad);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == StatusCode::kInvalidArgument);
    return result.status().message();
  };
  TranslatorOptions target;
  target.max_target_length = 100;
  CHECK(refused(target) == "max_target_length must be 1..64 (the model's positions), not 100");
  TranslatorOptions batch;
  batch.max_batch_size = 0;
  CHECK(refused(batch) == "max_batch_size must be 1..65536, not 0");
  TranslatorOptions threads;
  threads.num_threads = -1;
  CHECK(refused(threads) == "num_threads must be 0..256, not -1");
  CHECK_FALSE(Translator::ArenaBytes(*test.model, target).ok());
}

TEST_CASE("a caller-provided arena is used, and a small one refused") {
  TestModel test = LoadTestModel(TestModelSpec{});
  TranslatorOptions options;
  options.max_batch_size = 2;
  auto bytes = Translator::ArenaBytes(*test.model, options);
  REQUIRE(bytes.ok());
  CHECK(bytes.value() > 0);
  struct Free {
    void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<uint8_t, Free> block(new (std::align_val_t(64)) uint8_t[bytes.value()]);

  TranslatorOptions too_small = options;
  too_small.arena = block.get();
  too_small.arena_size = bytes.value() - 1;
  auto refused = Translator::Create(test.model, too_small);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kResourceExhausted);

  TranslatorOptions caller = options;
  caller.arena = block.get();
  caller.arena_size = bytes.value();
  auto with_block = MakeTranslator(test, caller);
  auto own_block = MakeTranslator(test, options);
  CHECK(with_block->arena_bytes() == bytes.value());
  const auto sources = MakeSources(4, 40, 3);
  CHECK(TranslateAll(*with_block, sources, 2) == TranslateAll(*own_block, sources, 2));
}

TEST_CASE("sentences that finish at different steps leave the batch, with their one-by-one outputs") {
  // Sources from 1 to 40 ids: length limits from 12 steps to the 64 the
  // translator holds. A raised </s> logit ends some sentences earlier: the
  // first of a few raises with which some end with </s> and some at their
  // limit is used (random models differ in how likely </s> is).
  const std::vector<int> lengths = {1, 40, 3, 25, 2, 9};
  for (const TestModelSpec& variant : Variants()) {
    CAPTURE(variant.int8);
    CAPTURE(variant.int4_block);
    CAPTURE(static_cast<int>(variant.norm));
    std::vector<std::vector<int32_t>> sources;
    for (int length : lengths) sources.push_back(MakeSources(1, variant.source_vocab, length)[0]);
    std::vector<TokenIds> views = Views(sources);
    TranslatorOptions options;
    options.max_batch_size = static_cast<int>(lengths.size());
    options.profile = true;

    TestModel test;  // holds the model's bytes: it must outlive the translator
    std::unique_ptr<Translator> translator;
    std::vector<std::vector<int32_t>> expected(sources.size());
    long steps = 0;  // one by one: each sentence's ids, and </s> when it ended with one
    bool mixed = false;
    for (float eos_bias : {0.5f, 1.0f, 1.5f, 2.0f, 3.0f}) {
      TestModelSpec spec = variant;
      spec.mutate = [eos_bias](fb::ModelT& model) {
        reinterpret_cast<float*>(model.decoder->output_projection->bias->data.data())[3] += eos_bias;
      };
      translator.reset();
      test = LoadTestModel(spec);
      translator = MakeTranslator(test, options);
      steps = 0;
      bool some_eos = false, some_limit = false;
      for (size_t s = 0; s < sources.size(); ++s) {
        Hypothesis single;  // in the translator's memory until its next call
        REQUIRE(translator->Translate(&views[s], 1, &single, DecodeOptions()).ok());
        expected[s].assign(single.ids.data, single.ids.data + single.ids.size);
        steps += static_cast<long>(single.ids.size + (single.ended_with_eos ? 1 : 0));
        some_eos = some_eos || single.ended_with_eos;
        some_limit = some_limit || !single.ended_with_eos;
      }
      mixed = some_eos && some_limit;
      if (mixed) break;
    }
    REQUIRE(mixed);

    // Together: the same ids, and only unfinished sentences are computed.
    translator->ResetProfile();
    std::vector<TokenIds> batched(sources.size());
    edgemt::testing::StartCountingAllocations();
    const Status status = translator->Translate(views.data(), views.size(), batched.data());
    const size_t allocations = edgemt::testing::StopCountingAllocations();
    REQUIRE(status.ok());
    CHECK(allocations == 0);
    for (size_t s = 0; s < sources.size(); ++s) {
      CAPTURE(s);
      CHECK(std::vector<int32_t>(batched[s].data, batched[s].data + batched[s].size) == expected[s]);
    }
    CHECK(translator->profile().decoder_rows == steps);
  }
}
