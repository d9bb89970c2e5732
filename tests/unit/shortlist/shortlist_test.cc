// Vocabulary shortlists (docs/shortlist.md): every output id is in its
// sentence's shortlist (greedy, beam search, sampling, alternatives, n-best);
// a shortlist of every id decodes as the whole vocabulary does; a sentence's
// output does not depend on its batch or thread count, nor on whether its
// weight rows were gathered; use_shortlist =
// false ignores it; translating allocates nothing; a broken shortlist is
// refused at load; format 2.7's output sums bring log-probabilities nearer
// the whole vocabulary's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "allocation_counter.h"
#include "edgemt/translator.h"
#include "shortlist/shortlist.h"
#include "shortlist/shortlisted_projection.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::BuildTestModelFile;
using edgemt::testing::LoadTestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModel;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

// Format 2.7's sums of a float32 or int8 output projection (not tied), as
// the converter writes them.
void AddOutputSums(fb::ModelT& model) {
  const fb::LinearT& projection = *model.decoder->output_projection;
  const fb::TensorT& w = *projection.weight;
  const size_t rows = w.shape[0], cols = w.shape[1];
  std::vector<double> sum(cols, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      float value;
      if (w.type == fb::TensorType::Float32) {
        std::memcpy(&value, w.data.data() + (r * cols + c) * sizeof(float), sizeof(float));
      } else {
        REQUIRE(w.type == fb::TensorType::Int8);
        value = static_cast<float>(static_cast<int8_t>(w.data[r * cols + c])) * w.scales[r];
      }
      sum[c] += value;
    }
  }
  auto& list = *model.shortlist;
  list.output_row_sum.assign(sum.begin(), sum.end());
  list.output_bias_sum = 0.0;
  if (projection.bias != nullptr) {
    for (size_t r = 0; r < rows; ++r) {
      float b;
      std::memcpy(&b, projection.bias->data.data() + r * sizeof(float), sizeof(float));
      list.output_bias_sum += b;
    }
  }
  model.format_minor = 7;
}

// A shortlist for `spec`: source id i's candidates are `per_source` ids
// spread over the target vocabulary from (7 * i) on, plus `frequent`.
// every_id: each source id lists the whole target vocabulary; sums: with
// format 2.7's sums of the output projection.
void AddShortlist(TestModelSpec* spec, int per_source, std::vector<int32_t> frequent, bool every_id = false,
                  bool sums = false) {
  const int sources = spec->source_vocab;
  const int targets = spec->target_vocab;
  spec->mutate = [=](fb::ModelT& model) {
    auto list = std::make_unique<fb::ShortlistT>();
    list->frequent = frequent;
    list->offsets.push_back(0);
    for (int i = 0; i < sources; ++i) {
      std::set<int32_t> ids;
      if (every_id) {
        for (int t = 0; t < targets; ++t) ids.insert(t);
      } else {
        for (int k = 0; k < per_source; ++k) ids.insert((7 * i + 5 * k) % targets);
      }
      list->candidates.insert(list->candidates.end(), ids.begin(), ids.end());
      list->offsets.push_back(static_cast<uint32_t>(list->candidates.size()));
    }
    model.shortlist = std::move(list);
    model.format_minor = 5;
    if (sums) AddOutputSums(model);
  };
}

// The shortlist the runtime should give a source (its rule, restated).
std::set<int32_t> ShortlistOf(const TestModelSpec& spec, const std::vector<int32_t>& source, int per_source,
                              const std::vector<int32_t>& frequent) {
  std::set<int32_t> ids(frequent.begin(), frequent.end());
  ids.insert(3);  // </s>
  for (int32_t id : source) {
    for (int k = 0; k < per_source; ++k) ids.insert((7 * id + 5 * k) % spec.target_vocab);
  }
  return ids;
}

// Room for `batch` sentences with 3 alternatives each.
std::unique_ptr<Translator> Make(const TestModel& test, int batch, int threads, int beam = 4) {
  TranslatorOptions options;
  options.max_batch_size = 3 * batch;
  options.max_beam_size = beam;
  options.num_threads = threads;
  auto translator = Translator::Create(test.model, options);
  REQUIRE(translator.ok());
  return std::move(translator.value());
}

struct Output {
  std::vector<int32_t> ids;
  float score = 0.0f;
  std::vector<float> log_probs;
};

std::vector<Output> Translate(Translator& translator, const std::vector<std::vector<int32_t>>& sources, size_t batch,
                              const DecodeOptions& decode) {
  std::vector<Output> out;
  const std::vector<TokenIds> views = Views(sources);
  const size_t n = static_cast<size_t>(decode.num_hypotheses);
  for (size_t first = 0; first < views.size(); first += batch) {
    const size_t count = std::min(batch, views.size() - first);
    std::vector<Hypothesis> hypotheses(count * n);
    const Status status = translator.Translate(views.data() + first, count, hypotheses.data(), decode);
    REQUIRE_MESSAGE(status.ok(), status.message());
    for (const Hypothesis& h : hypotheses) {
      Output o;
      o.ids.assign(h.ids.data, h.ids.data + h.ids.size);
      o.score = h.score;
      if (h.token_log_probs != nullptr)
        o.log_probs.assign(h.token_log_probs, h.token_log_probs + h.ids.size + (h.ended_with_eos ? 1 : 0));
      out.push_back(o);
    }
  }
  return out;
}

std::vector<DecodeOptions> Modes() {
  std::vector<DecodeOptions> modes;
  DecodeOptions greedy;
  greedy.min_length = 5;  // random models stop at once otherwise
  modes.push_back(greedy);
  DecodeOptions beam = greedy;
  beam.beam_size = 4;
  beam.num_hypotheses = 3;
  modes.push_back(beam);
  DecodeOptions sampling = greedy;
  sampling.sampling_topk = 0;
  sampling.sampling_seed = 11;
  modes.push_back(sampling);
  DecodeOptions processors = beam;
  processors.repetition_penalty = 1.3f;
  processors.no_repeat_ngram_size = 2;
  processors.disable_unk = true;
  modes.push_back(processors);
  DecodeOptions alternatives = greedy;
  alternatives.return_alternatives = true;
  alternatives.num_hypotheses = 3;
  modes.push_back(alternatives);
  return modes;
}

}  // namespace

TEST_CASE("every output id is in its sentence's shortlist, in every decoding mode and weight type") {
  const std::vector<int32_t> frequent = {4, 9};
  const int per_source = 3;
  for (int kind = 0; kind < 4; ++kind) {  // float32, int8, int4; int8 with an SSRU decoder (Firefox's)
    TestModelSpec spec;
    spec.d_model = 32;
    spec.d_ff = 64;
    spec.target_vocab = 97;
    spec.int8 = kind == 1 || kind == 3;
    spec.int4_block = kind == 2 ? 32 : 0;
    spec.marian = kind == 3;
    spec.tied_output = kind == 3;
    AddShortlist(&spec, per_source, frequent);
    const TestModel test = LoadTestModel(spec);
    const auto sources = SyntheticSources(6, spec.source_vocab, 2, 1, 5, 3);
    auto translator = Make(test, 6, 1);
    for (const DecodeOptions& decode : Modes()) {
      CAPTURE(kind);
      CAPTURE(decode.beam_size);
      CAPTURE(decode.sampling_topk);
      CAPTURE(decode.return_alternatives);
      const auto outputs = Translate(*translator, sources, 6, decode);
      const size_t n = outputs.size() / sources.size();
      size_t produced = 0;
      for (size_t i = 0; i < outputs.size(); ++i) {
        const std::set<int32_t> allowed = ShortlistOf(spec, sources[i / n], per_source, frequent);
        for (int32_t id : outputs[i].ids) CHECK(allowed.count(id) == 1);
        produced += outputs[i].ids.size();
        // Log-probabilities over the shortlist: each at most 0, finite.
        for (float p : outputs[i].log_probs) CHECK((p <= 0.0f && std::isfinite(p)));
      }
      CHECK(produced >= sources.size() * 5);
    }
  }
}

TEST_CASE("a shortlist of every id decodes as the whole vocabulary does") {
  for (int kind = 0; kind < 3; ++kind) {
    TestModelSpec plain;
    // Two int4 blocks per row and lists of several column tiles with a
    // short last one (ops/shortlisted_projection.cc).
    plain.d_model = 64;
    plain.d_ff = 64;
    plain.target_vocab = 300;
    plain.int8 = kind == 1;
    plain.int4_block = kind == 2 ? 32 : 0;
    TestModelSpec listed = plain;
    AddShortlist(&listed, 0, {}, /*every_id=*/true);
    const TestModel a = LoadTestModel(plain);
    const TestModel b = LoadTestModel(listed);
    const auto sources = SyntheticSources(8, plain.source_vocab, 3, 1, 7, 5);
    auto full = Make(a, 4, 1);
    auto shortlisted = Make(b, 4, 1);
    for (const DecodeOptions& decode : Modes()) {
      CAPTURE(kind);
      CAPTURE(decode.beam_size);
      const auto x = Translate(*full, sources, 4, decode);
      const auto y = Translate(*shortlisted, sources, 4, decode);
      REQUIRE(x.size() == y.size());
      for (size_t i = 0; i < x.size(); ++i) {
        CHECK(x[i].ids == y[i].ids);
        // The same logits but for the rounding of the last float operations.
        CHECK(std::fabs(x[i].score - y[i].score) <= 1e-4f * (1.0f + std::fabs(x[i].score)));
      }
    }
  }
}

TEST_CASE("with a shortlist a sentence's output does not depend on its batch or thread count") {
  TestModelSpec spec;
  spec.d_model = 32;
  spec.d_ff = 64;
  spec.target_vocab = 97;
  spec.int8 = true;
  AddShortlist(&spec, 4, {4, 9, 20});
  const TestModel test = LoadTestModel(spec);
  const auto sources = SyntheticSources(9, spec.source_vocab, 2, 2, 5, 3);
  auto one = Make(test, 1, 1);
  auto many = Make(test, 9, 2);
  for (const DecodeOptions& decode : Modes()) {
    if (decode.return_alternatives) continue;  // a batch of count x n: checked by the first test
    CAPTURE(decode.beam_size);
    const auto alone = Translate(*one, sources, 1, decode);
    const auto batched = Translate(*many, sources, 9, decode);
    REQUIRE(alone.size() == batched.size());
    for (size_t i = 0; i < alone.size(); ++i) {
      CHECK(alone[i].ids == batched[i].ids);
      // The shortlist is the source's alone; the scores may differ in the
      // last bits on ARM, where XNNPACK's one-row and multi-row int8
      // kernels round the layers before the projection differently.
      CHECK(alone[i].score == doctest::Approx(batched[i].score).epsilon(1e-5));
    }
  }
}

TEST_CASE("a batch whose shortlisted rows outgrow the room to gather them translates as one by one") {
  // d_model 512 and lists of hundreds of ids: the first sentences' rows are
  // gathered into the arena, the rest read in place (docs/shortlist.md).
  TestModelSpec spec;
  spec.d_model = 512;
  spec.d_ff = 64;
  spec.encoder_layers = 1;
  spec.decoder_layers = 1;
  spec.target_vocab = 2000;
  spec.int8 = true;
  const int per_source = 300;
  const std::vector<int32_t> frequent = {4, 9, 20};
  AddShortlist(&spec, per_source, frequent);
  const TestModel test = LoadTestModel(spec);
  const auto sources = SyntheticSources(9, spec.source_vocab, 2, 2, 5, 3);
  // The lists' weight bytes alone outgrow the room; the first list's rows,
  // scales, biases and padding fit in it.
  size_t weight_bytes = 0;
  for (const auto& source : sources) weight_bytes += ShortlistOf(spec, source, per_source, frequent).size() * 512;
  REQUIRE(weight_bytes > kMaxGatheredShortlistBytes);
  REQUIRE(ShortlistOf(spec, sources[0], per_source, frequent).size() * (512 + 8) + 3 * 64 < kMaxGatheredShortlistBytes);
  auto one = Make(test, 1, 1);
  auto many = Make(test, 9, 2);
  for (const DecodeOptions& mode : Modes()) {
    if (mode.return_alternatives) continue;
    DecodeOptions decode = mode;
    decode.max_length = 12;
    CAPTURE(decode.beam_size);
    const auto alone = Translate(*one, sources, 1, decode);
    const auto batched = Translate(*many, sources, 9, decode);
    REQUIRE(alone.size() == batched.size());
    for (size_t i = 0; i < alone.size(); ++i) {
      CAPTURE(i);
      CHECK(alone[i].ids == batched[i].ids);
      // As in the test above, ARM's one-row and multi-row kernels round the
      // layers differently, here over sums of 512 (5e-5 apart under qemu's arm64).
      CHECK(alone[i].score == doctest::Approx(batched[i].score).epsilon(2e-4));
    }
  }
}

TEST_CASE("use_shortlist = false decodes over the whole vocabulary, as a file without a shortlist") {
  TestModelSpec plain;
  plain.int8 = true;
  TestModelSpec listed = plain;
  AddShortlist(&listed, 2, {5});
  const TestModel a = LoadTestModel(plain);
  const TestModel b = LoadTestModel(listed);
  const auto sources = SyntheticSources(5, plain.source_vocab, 3, 1, 7, 5);
  auto full = Make(a, 5, 1);
  auto shortlisted = Make(b, 5, 1);
  bool any_differs = false;
  for (DecodeOptions decode : Modes()) {
    const auto x = Translate(*full, sources, 5, decode);
    const auto restricted = Translate(*shortlisted, sources, 5, decode);
    decode.use_shortlist = false;
    const auto y = Translate(*shortlisted, sources, 5, decode);
    for (size_t i = 0; i < x.size(); ++i) {
      CHECK(x[i].ids == y[i].ids);
      CHECK(x[i].score == y[i].score);
      any_differs = any_differs || x[i].ids != restricted[i].ids;
    }
  }
  CHECK(any_differs);  // the shortlist did restrict something
}

TEST_CASE("translating with a shortlist allocates nothing") {
  TestModelSpec spec;
  spec.int8 = true;
  spec.target_vocab = 97;
  AddShortlist(&spec, 4, {4, 9});
  const TestModel test = LoadTestModel(spec);
  const auto sources = SyntheticSources(4, spec.source_vocab, 3, 2, 5, 3);
  const std::vector<TokenIds> views = Views(sources);
  auto translator = Make(test, 4, 2);
  for (const DecodeOptions& decode : Modes()) {
    std::vector<Hypothesis> hypotheses(views.size() * static_cast<size_t>(decode.num_hypotheses));
    REQUIRE(translator->Translate(views.data(), views.size(), hypotheses.data(), decode).ok());  // warm
    edgemt::testing::StartCountingAllocations();
    const Status status = translator->Translate(views.data(), views.size(), hypotheses.data(), decode);
    const size_t allocations = edgemt::testing::StopCountingAllocations();
    CHECK(status.ok());
    CAPTURE(decode.beam_size);
    CHECK(allocations == 0);
  }
}

TEST_CASE("a broken shortlist is refused when the model loads") {
  struct Case {
    const char* what;
    std::function<void(fb::ShortlistT&)> breaks;
  };
  const std::vector<Case> cases = {
      {"an offset too few", [](fb::ShortlistT& s) { s.offsets.pop_back(); }},
      {"offsets out of order", [](fb::ShortlistT& s) { std::swap(s.offsets[2], s.offsets[3]); }},
      {"a candidate outside the target vocabulary", [](fb::ShortlistT& s) { s.candidates.back() = 1000; }},
      {"a negative candidate", [](fb::ShortlistT& s) { s.candidates.front() = -1; }},
      {"candidates not ascending", [](fb::ShortlistT& s) { std::swap(s.candidates[0], s.candidates[1]); }},
      {"the last offset short of the candidates", [](fb::ShortlistT& s) { s.candidates.push_back(1); }},
      {"frequent ids repeated", [](fb::ShortlistT& s) { s.frequent = {4, 4}; }},
      {"a frequent id outside the vocabulary", [](fb::ShortlistT& s) { s.frequent = {4, 48}; }},
      {"no offsets", [](fb::ShortlistT& s) { s.offsets.clear(); }},
      {"output sums of another length than d_model", [](fb::ShortlistT& s) { s.output_row_sum.assign(15, 1.0f); }},
      {"an output sum that is NaN",
       [](fb::ShortlistT& s) {
         s.output_row_sum.assign(16, 1.0f);
         s.output_row_sum[4] = std::nanf("");
       }},
      {"padding to a multiple of more than 64", [](fb::ShortlistT& s) { s.pad_multiple = 65; }},
      {"padding from a negative id", [](fb::ShortlistT& s) { s.pad_multiple = 8, s.pad_from = -1; }},
      {"padding from beyond the vocabulary", [](fb::ShortlistT& s) { s.pad_multiple = 8, s.pad_from = 1000; }},
      {"64 unlisted ids counted", [](fb::ShortlistT& s) { s.pad_multiple = 8, s.pad_uncounted = 64; }},
      {"an infinite bias sum",
       [](fb::ShortlistT& s) {
         s.output_row_sum.assign(16, 1.0f);
         s.output_bias_sum = HUGE_VAL;
       }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    TestModelSpec spec;
    AddShortlist(&spec, 3, {4});
    auto add = spec.mutate;
    spec.mutate = [&](fb::ModelT& model) {
      add(model);
      c.breaks(*model.shortlist);
    };
    const std::vector<uint8_t> file = BuildTestModelFile(spec);
    const edgemt::testing::AlignedBytes bytes(file);
    auto model = Model::FromBuffer(bytes.data(), bytes.size());
    REQUIRE(!model.ok());
    CHECK(model.status().code() == StatusCode::kInvalidModel);
    CHECK(model.status().message().find("shortlist") != std::string::npos);
  }
}

TEST_CASE("the output sums bring a shortlist's log-probabilities nearer the whole vocabulary's") {
  // Greedy choices do not depend on the normalizer: with and without the
  // sums the ids are the same, and each token's log-probability lies
  // between the list's own (without the sums, the highest) and the whole
  // vocabulary's where the whole vocabulary chose the same ids.
  for (const bool int8 : {false, true}) {
    CAPTURE(int8);
    TestModelSpec base;
    base.int8 = int8;
    base.target_vocab = 97;
    TestModelSpec plain = base, summed = base;
    AddShortlist(&plain, 4, {4, 9, 20, 30});
    AddShortlist(&summed, 4, {4, 9, 20, 30}, /*every_id=*/false, /*sums=*/true);
    const TestModel a = LoadTestModel(plain);
    const TestModel b = LoadTestModel(summed);
    const auto sources = SyntheticSources(12, base.source_vocab, 3, 2, 6, 5);
    auto without_sums = Make(a, 4, 1);
    auto with_sums = Make(b, 4, 1);
    DecodeOptions decode;
    decode.min_length = 5;
    const auto own = Translate(*without_sums, sources, 4, decode);
    const auto estimated = Translate(*with_sums, sources, 4, decode);
    decode.use_shortlist = false;
    const auto whole = Translate(*with_sums, sources, 4, decode);
    size_t compared = 0;
    double own_error = 0.0, estimated_error = 0.0;
    for (size_t i = 0; i < sources.size(); ++i) {
      REQUIRE(own[i].ids == estimated[i].ids);
      REQUIRE(own[i].log_probs.size() == estimated[i].log_probs.size());
      for (size_t t = 0; t < own[i].log_probs.size(); ++t) {
        CHECK(estimated[i].log_probs[t] < own[i].log_probs[t]);  // lists of at most 29 of 97 ids
        // The same prefix and the same choice over the whole vocabulary.
        if (t >= own[i].ids.size() || t >= whole[i].ids.size()) continue;
        if (!std::equal(own[i].ids.begin(), own[i].ids.begin() + static_cast<std::ptrdiff_t>(t + 1),
                        whole[i].ids.begin()))
          continue;
        CHECK(estimated[i].log_probs[t] >= whole[i].log_probs[t] - 1e-4f);
        own_error += own[i].log_probs[t] - whole[i].log_probs[t];
        estimated_error += estimated[i].log_probs[t] - whole[i].log_probs[t];
        ++compared;
      }
    }
    CAPTURE(own_error);
    CAPTURE(estimated_error);
    CHECK(compared >= 10);
    CHECK(estimated_error < 0.7 * own_error);
  }
}

TEST_CASE("Marian's padding completes a source's set with the lowest missing ids from pad_from") {
  // Three source ids; the set of source {0, 2} before padding is {0, 1, 2, 3, 4} (frequent), 9, 12
  // and </s> = 6: 8 ids, and 1 unlisted id (Marian's <unk>) makes 9.
  const std::vector<int32_t> frequent = {0, 1, 2, 3, 4};
  const std::vector<uint32_t> offsets = {0, 2, 3, 4};
  const std::vector<int32_t> candidates = {9, 12, 20, 6};
  ShortlistView view;
  view.frequent = frequent.data();
  view.frequent_count = frequent.size();
  view.offsets = offsets.data();
  view.candidates = candidates.data();
  view.longest = 2;
  view.pad_multiple = 8;
  view.pad_from = 5;
  view.pad_uncounted = 1;
  const size_t vocab = 40;
  std::vector<uint8_t> seen(vocab, 0);
  std::vector<int32_t> out(ShortlistCapacity(view, 2, vocab), -1);
  const std::vector<int32_t> source = {0, 2};
  const TokenIds ids{source.data(), source.size()};
  const size_t count = SourceShortlist(view, ids, 6, vocab, seen.data(), out.data());
  // 9 counted: pad with 5, 7, 8, 10, 11, 13, 14 (6, 9, 12 are there) to 16 counted.
  const std::vector<int32_t> expected = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  CHECK(std::vector<int32_t>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count)) == expected);
  CHECK((count + view.pad_uncounted) % 8 == 0);
  CHECK(count <= out.size());
  CHECK(std::all_of(seen.begin(), seen.end(), [](uint8_t f) { return f == 0; }));

  SUBCASE("without padding the set is the union alone") {
    view.pad_multiple = 0;
    const size_t plain = SourceShortlist(view, ids, 6, vocab, seen.data(), out.data());
    CHECK(std::vector<int32_t>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(plain)) ==
          std::vector<int32_t>{0, 1, 2, 3, 4, 6, 9, 12});
  }
  SUBCASE("a set already a multiple is not padded") {
    view.pad_uncounted = 0;
    CHECK(SourceShortlist(view, ids, 6, vocab, seen.data(), out.data()) == 8);
  }
  SUBCASE("the padding stops at the end of the vocabulary") {
    view.pad_from = 36;
    const size_t short_of = SourceShortlist(view, ids, 6, vocab, seen.data(), out.data());
    CHECK(short_of == 12);  // 36 .. 39 added, 13 counted
    CHECK(out[short_of - 1] == 39);
  }
}

TEST_CASE("with padding every output id is in its sentence's padded set") {
  const std::vector<int32_t> frequent = {4, 9};
  const int per_source = 3;
  TestModelSpec spec;
  spec.d_model = 32;
  spec.d_ff = 64;
  spec.target_vocab = 97;
  AddShortlist(&spec, per_source, frequent);
  auto add = spec.mutate;
  spec.mutate = [&](fb::ModelT& model) {
    add(model);
    model.shortlist->pad_multiple = 8;
    model.shortlist->pad_from = 40;
    model.format_minor = 9;
  };
  const TestModel test = LoadTestModel(spec);
  const auto sources = SyntheticSources(6, spec.source_vocab, 2, 1, 5, 3);
  auto translator = Make(test, 6, 1);
  bool used_padding = false;
  for (const DecodeOptions& decode : Modes()) {
    CAPTURE(decode.beam_size);
    CAPTURE(decode.sampling_topk);
    const auto outputs = Translate(*translator, sources, 6, decode);
    const size_t n = outputs.size() / sources.size();
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::set<int32_t> allowed = ShortlistOf(spec, sources[i / n], per_source, frequent);
      const std::set<int32_t> listed = allowed;
      for (int32_t id = 40; allowed.size() % 8 != 0; ++id) allowed.insert(id);
      for (int32_t id : outputs[i].ids) {
        CHECK(allowed.count(id) == 1);
        used_padding |= listed.count(id) == 0;
      }
    }
  }
  CHECK(used_padding);  // sampling picks a padded id now and then
}
