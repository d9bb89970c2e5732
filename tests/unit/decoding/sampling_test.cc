// Sampling (DecodeOptions::sampling_*): the draw follows the tempered,
// truncated softmax; top-k 1 and a tiny top-p take the most likely id;
// banned ids are never drawn; the same seed and source give the same output
// in any batch and on any thread count; limits are refused; nothing is
// allocated.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "allocation_counter.h"
#include "decoding/sampling.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

std::vector<std::vector<int32_t>> Sources(int count, int vocab) { return SyntheticSources(count, vocab, 4, 1, 5, 3); }

using Outputs = std::vector<std::vector<int32_t>>;

Outputs Translate(Translator& translator, const std::vector<std::vector<int32_t>>& sources, size_t batch,
                  const DecodeOptions& decode) {
  Outputs out;
  for (size_t first = 0; first < sources.size(); first += batch) {
    const size_t n = std::min(batch, sources.size() - first);
    std::vector<TokenIds> in, results(n);
    for (size_t i = 0; i < n; ++i) in.push_back(TokenIds{sources[first + i].data(), sources[first + i].size()});
    const Status status = translator.Translate(in.data(), n, results.data(), decode);
    REQUIRE_MESSAGE(status.ok(), status.ToString());
    for (const TokenIds& r : results) out.emplace_back(r.data, r.data + r.size);
  }
  return out;
}

std::unique_ptr<Translator> Make(const TestModel& test, int batch, int threads) {
  TranslatorOptions options;
  options.max_batch_size = batch;
  options.num_threads = threads;
  auto translator = Translator::Create(test.model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

}  // namespace

TEST_CASE("a draw follows the tempered, truncated softmax and never a banned id") {
  const float logits[6] = {3.0f, 1.0f, 0.5f, 0.0f, -1.0f, 2.0f};
  std::vector<float> probs(6);
  std::vector<int32_t> ids(6);
  SamplingRule rule;
  rule.banned.Add(0);  // the most likely id
  rule.temperature = 2.0f;
  uint64_t state = SamplingSeed(7, nullptr, 0);
  std::vector<int> counts(6, 0);
  const int draws = 40000;
  for (int i = 0; i < draws; ++i) ++counts[static_cast<size_t>(SampleToken(logits, 6, rule, &state, probs.data(), ids.data()))];
  CHECK(counts[0] == 0);
  double total = 0.0;
  for (int v = 1; v < 6; ++v) total += std::exp(logits[v] / 2.0);
  for (int v = 1; v < 6; ++v) {
    const double expected = std::exp(logits[v] / 2.0) / total;
    INFO("id " << v);
    CHECK(std::fabs(counts[static_cast<size_t>(v)] / static_cast<double>(draws) - expected) < 0.01);
  }
  // top-k 2 leaves ids 5 and 1; top-p that the first reaches leaves id 5.
  rule.top_k = 2;
  for (int i = 0; i < 200; ++i) {
    const int32_t id = SampleToken(logits, 6, rule, &state, probs.data(), ids.data());
    CHECK((id == 5 || id == 1));
  }
  rule.top_k = 0;
  rule.top_p = 0.01f;
  for (int i = 0; i < 50; ++i) CHECK(SampleToken(logits, 6, rule, &state, probs.data(), ids.data()) == 5);
  rule.top_p = 1.0f;
  rule.top_k = 1;
  for (int i = 0; i < 50; ++i) CHECK(SampleToken(logits, 6, rule, &state, probs.data(), ids.data()) == 5);
}

TEST_CASE("the same seed and source give the same sample in any batch, on any thread count, every run") {
  for (bool marian : {false, true}) {  // and an SSRU decoder's cells
    CAPTURE(marian);
    TestModelSpec spec;
    spec.target_vocab = 20;
    spec.marian = marian;
    const TestModel test = LoadTestModel(spec);
    const auto sources = Sources(6, spec.source_vocab);
    DecodeOptions decode;
    decode.sampling_topk = 0;
    decode.sampling_temperature = 1.5f;
    decode.sampling_seed = 12345;
    auto one = Make(test, 6, 1);
    auto two = Make(test, 6, 2);
    const Outputs expected = Translate(*one, sources, 6, decode);
    CHECK(Translate(*one, sources, 6, decode) == expected);
    CHECK(Translate(*two, sources, 6, decode) == expected);
    CHECK(Translate(*one, sources, 1, decode) == expected);
    CHECK(Translate(*two, sources, 4, decode) == expected);
    for (const auto& output : expected) {
      for (int32_t id : output) CHECK((id > 3 && id < spec.target_vocab));  // never pad, unk, <s> (or </s>)
    }
    // Another seed draws other sentences; greedy is something else again.
    decode.sampling_seed = 54321;
    CHECK(Translate(*one, sources, 6, decode) != expected);
    CHECK(Translate(*one, sources, 6, DecodeOptions{}) != expected);
  }
}

TEST_CASE("sampling options outside their ranges are refused") {
  const TestModel test = LoadTestModel(TestModelSpec{});
  TranslatorOptions options;
  options.max_beam_size = 2;
  auto created = Translator::Create(test.model, options);
  REQUIRE(created.ok());
  const auto sources = Sources(1, 40);
  TokenIds in{sources[0].data(), sources[0].size()}, out;
  auto refused = [&](DecodeOptions decode, const char* needle) {
    const Status status = created.value()->Translate(&in, 1, &out, decode);
    CHECK(status.code() == StatusCode::kInvalidArgument);
    INFO(status.message());
    CHECK(status.message().find(needle) != std::string::npos);
  };
  DecodeOptions d;
  d.sampling_topk = -1;
  refused(d, "sampling_topk must not be negative");
  d = DecodeOptions{};
  d.sampling_topp = 0.0f;
  refused(d, "sampling_topp must be in (0, 1]");
  d.sampling_topp = 1.5f;
  refused(d, "sampling_topp must be in (0, 1]");
  d = DecodeOptions{};
  d.sampling_temperature = 0.0f;
  refused(d, "sampling_temperature must be a positive finite number");
  d.sampling_temperature = std::nanf("");
  refused(d, "sampling_temperature must be a positive finite number");
  d = DecodeOptions{};
  d.sampling_topk = 5;
  d.beam_size = 2;
  refused(d, "needs beam_size 1");
}

TEST_CASE("sampling allocates nothing") {
  const TestModel test = LoadTestModel(TestModelSpec{});
  auto translator = Make(test, 3, 2);
  const auto sources = Sources(3, 40);
  std::vector<TokenIds> in;
  for (const auto& s : sources) in.push_back(TokenIds{s.data(), s.size()});
  TokenIds out[3];
  Hypothesis hyps[3];
  DecodeOptions decode;
  decode.sampling_topk = 10;
  decode.sampling_topp = 0.9f;
  REQUIRE(translator->Translate(in.data(), 3, out, decode).ok());
  edgemt::testing::StartCountingAllocations();
  const Status a = translator->Translate(in.data(), 3, out, decode);
  decode.sampling_topk = 0;
  const Status b = translator->Translate(in.data(), 3, hyps, decode);
  const size_t allocations = edgemt::testing::StopCountingAllocations();
  CHECK(a.ok());
  CHECK(b.ok());
  CHECK(allocations == 0);
}
