// libFuzzer target over the whole path: one input picks a small model
// (float32, int8 or int4; with plain-token vocabularies, so that text works
// without SentencePiece; with a shortlist or not), up to two changes to any
// of its fields (model_edits.h), the decoding options (beam, n-best,
// sampling, lengths, penalties, alternatives, alignments, the shortlist, a
// target prefix) and up to three texts, and runs them through TextTranslator
// (a batch, streaming, scoring) and through the C API. Loading and every
// call may refuse with a Status; what they return must keep the runtime's
// promises, or the input is kept as a finding (abort). Built by
// tests/fuzz/run.sh.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "edgemt/edgemt.h"
#include "edgemt/text_translator.h"
#include "edgemt_generated.h"
#include "model_edits.h"
#include "test_model.h"

namespace {

using edgemt::DecodeOptions;
using edgemt::TextResult;

constexpr int kVocab = 40;
constexpr int kMaxSource = 12;
constexpr int kMaxTarget = 8;
constexpr int kMaxBeam = 3;

[[noreturn]] void Broken(const char* what) {
  std::fprintf(stderr, "fuzz_translate: %s\n", what);
  std::abort();
}

// Token i of both vocabularies is "t<i>": texts of such words become ids.
void AddVocabularies(edgemt::fb::ModelT& model) {
  model.tokenizer = std::make_unique<edgemt::fb::TokenizerT>();
  for (int i = 0; i < kVocab; ++i) {
    model.tokenizer->source_vocabulary.push_back("t" + std::to_string(i));
    model.tokenizer->target_vocabulary.push_back("t" + std::to_string(i));
  }
}

// The base model, its vocabularies, and the edits the input asks for.
std::vector<uint8_t> ModelBytes(FuzzedDataProvider& input) {
  edgemt::testing::TestModelSpec spec;
  spec.source_vocab = kVocab;
  spec.target_vocab = kVocab;
  spec.max_positions = 16;
  spec.encoder_layers = 1;
  spec.decoder_layers = 1;
  spec.seed = input.ConsumeIntegralInRange<uint32_t>(1, 4);
  switch (input.ConsumeIntegralInRange(0, 2)) {
    case 1: spec.int8 = true; break;
    case 2: spec.d_model = 32, spec.d_ff = 32, spec.int4_block = 32; break;
    default: break;
  }
  const bool shortlist = input.ConsumeBool();
  const int edits = input.ConsumeIntegralInRange(0, 2);
  const uint32_t edit_seed = input.ConsumeIntegral<uint32_t>();
  spec.mutate = [&](edgemt::fb::ModelT& model) {
    AddVocabularies(model);
    model.format_minor = std::max<uint16_t>(model.format_minor, 5);  // vocabularies 2.3, shortlists 2.5
    if (shortlist) {  // source id i may produce target ids i and i + 1 (and the frequent 4..7)
      auto list = std::make_unique<edgemt::fb::ShortlistT>();
      for (int i = 0; i < kVocab; ++i) {
        list->offsets.push_back(static_cast<uint32_t>(list->candidates.size()));
        for (int t : {i, (i + 1) % kVocab}) list->candidates.push_back(t);
      }
      list->offsets.push_back(static_cast<uint32_t>(list->candidates.size()));
      for (int t = 4; t < 8; ++t) list->frequent.push_back(t);
      model.shortlist = std::move(list);
    }
    std::mt19937 random(edit_seed);
    for (int e = 0; e < edits; ++e) edgemt::testing::EditModel(model, random);
  };
  return edgemt::testing::BuildTestModelFile(spec);
}

DecodeOptions Decoding(FuzzedDataProvider& input) {
  DecodeOptions d;
  d.beam_size = input.ConsumeIntegralInRange(0, kMaxBeam + 1);  // 0 and kMaxBeam + 1: refused
  d.num_hypotheses = input.ConsumeIntegralInRange(0, kMaxBeam + 1);
  d.max_length = input.ConsumeIntegralInRange(-1, kMaxTarget + 2);
  d.min_length = input.ConsumeIntegralInRange(-1, kMaxTarget + 2);
  d.length_penalty = input.ConsumeFloatingPointInRange(-1.0f, 3.0f);
  if (input.ConsumeBool()) {
    d.sampling_topk = input.ConsumeIntegralInRange(-1, kVocab + 1);
    d.sampling_topp = input.ConsumeFloatingPointInRange(-0.5f, 1.5f);
    d.sampling_temperature = input.ConsumeFloatingPointInRange(-1.0f, 4.0f);
    d.sampling_seed = input.ConsumeIntegral<uint64_t>();
  }
  d.repetition_penalty = input.ConsumeFloatingPointInRange(0.0f, 3.0f);
  d.no_repeat_ngram_size = input.ConsumeIntegralInRange(-1, 4);
  d.disable_unk = input.ConsumeBool();
  d.return_alternatives = input.ConsumeBool();
  d.min_alternative_expansion_prob = input.ConsumeProbability<float>();
  d.return_alignments = input.ConsumeBool();
  d.alignment_layer = input.ConsumeIntegralInRange(-3, 2);
  d.use_shortlist = input.ConsumeBool();
  return d;
}

// The promises of one call's results (each source one sentence: its outputs
// within the requested max_length, or the translator's limit).
void CheckResults(const std::vector<TextResult>& results, size_t count, const DecodeOptions& d, bool has_prefix) {
  if (results.size() != count) Broken("not one result per source");
  for (const TextResult& result : results) {
    if (!result.status.ok()) continue;
    if (result.hypotheses.size() > static_cast<size_t>(kMaxBeam) + static_cast<size_t>(kMaxTarget) * kVocab)
      Broken("too many hypotheses");
    if (!d.return_alternatives && d.num_hypotheses >= 1 && result.hypotheses.size() > static_cast<size_t>(d.num_hypotheses))
      Broken("more hypotheses than num_hypotheses");
    for (const auto& h : result.hypotheses) {
      if (d.max_length > 0 && !has_prefix && h.ids.size() > static_cast<size_t>(d.max_length)) {
        std::fprintf(stderr, "fuzz_translate: %zu ids, max_length %d\n", h.ids.size(), d.max_length);
        Broken("an output longer than the requested max_length");
      }
      if (h.ids.size() > static_cast<size_t>(kMaxTarget)) {
        std::fprintf(stderr, "fuzz_translate: %zu ids (beam %d, n %d, max_length %d, alternatives %d, sampling %d)\n",
                     h.ids.size(), d.beam_size, d.num_hypotheses, d.max_length, d.return_alternatives, d.sampling_topk);
        Broken("an output longer than max_target_length");
      }
      for (int32_t id : h.ids)
        if (id < 0 || id >= kVocab) Broken("an output id outside the vocabulary");
      if (!h.token_log_probs.empty() && h.token_log_probs.size() != h.ids.size() + (h.ended_with_eos ? 1 : 0))
        Broken("token log-probabilities do not match the ids");
      if (d.return_alignments && !h.alignments.empty() && h.alignments.size() != h.ids.size())
        Broken("alignments do not match the ids");
    }
  }
}

void ThroughTextTranslator(const std::shared_ptr<const edgemt::Model>& model, const std::vector<std::string>& texts,
                           const std::string& prefix, const DecodeOptions& d) {
  edgemt::TextTranslatorOptions options;
  options.translator.max_batch_size = 3;
  options.translator.max_beam_size = kMaxBeam;
  options.translator.max_source_length = kMaxSource;
  options.translator.max_target_length = kMaxTarget;
  options.translator.num_threads = 1;
  options.cache_bytes = 1 << 16;  // the cache's key and copies too
  auto created = edgemt::TextTranslator::Create(model, options);
  if (!created.ok()) return;
  edgemt::TextTranslator& translator = *created.value();
  std::vector<TextResult> results;
  const std::vector<std::string> prefixes(texts.size(), prefix);
  const bool scores = texts.size() % 2 == 1;
  std::vector<TextResult> first;
  for (int pass = 0; pass < 2; ++pass) {  // the second from the cache where it holds them
    (void)translator.TranslateTexts(texts.data(), texts.size(), d, &results, scores,
                                    prefix.empty() ? nullptr : prefixes.data(), edgemt::Sentences::kOnePerText);
    CheckResults(results, texts.size(), d, !prefix.empty());
    if (pass == 0) {
      first = results;
      continue;
    }
    // A hit returns exactly what translating gave (sampling too: its seed fixes it).
    for (size_t i = 0; i < results.size() && i < first.size(); ++i) {
      if (results[i].status.ToString() != first[i].status.ToString()) Broken("the second pass's status differs");
      if (results[i].hypotheses.size() != first[i].hypotheses.size()) Broken("the second pass's n-best differs");
      for (size_t k = 0; k < results[i].hypotheses.size() && k < first[i].hypotheses.size(); ++k) {
        if (results[i].hypotheses[k].ids != first[i].hypotheses[k].ids ||
            results[i].hypotheses[k].text != first[i].hypotheses[k].text)
          Broken("the second pass (from the cache) translates differently");
      }
    }
  }
  // Paragraphs: one result per text, each sentence within the limits (not checkable joined).
  (void)translator.TranslateTexts(texts.data(), texts.size(), d, &results, scores,
                                  prefix.empty() ? nullptr : prefixes.data());
  if (results.size() != texts.size()) Broken("not one result per paragraph");
  if (!texts.empty()) {
    std::string streamed;
    TextResult result;
    const edgemt::Status status = translator.TranslateStreaming(
        texts[0], d, [&](std::string_view piece) { streamed.append(piece); return true; }, &result);
    if (status.ok() && result.status.ok() && !result.hypotheses.empty() && streamed != result.hypotheses[0].text)
      Broken("the streamed pieces do not add up to the translation");
    // Each text scored against itself as a translation.
    (void)translator.ScoreTexts(texts.data(), texts.data(), texts.size(), &results);
    if (results.size() != texts.size()) Broken("not one score per source");
  }
}

void ThroughCApi(const std::vector<uint8_t>& file, const std::vector<std::string>& texts, const DecodeOptions& d) {
  const edgemt::testing::AlignedBytes bytes(file);
  edgemt_model* model = nullptr;
  if (edgemt_model_load_from_memory(bytes.data(), bytes.size(), &model) != EDGEMT_OK) return;
  edgemt_translator_options options;
  edgemt_translator_options_init(&options);
  options.max_batch_size = 3;
  options.max_beam_size = kMaxBeam;
  options.max_source_length = kMaxSource;
  options.max_target_length = kMaxTarget;
  options.num_threads = 1;
  edgemt_translator* translator = nullptr;
  if (edgemt_translator_create(model, &options, &translator) == EDGEMT_OK) {
    edgemt_decode_options c;
    edgemt_decode_options_init(&c);
    c.beam_size = d.beam_size;
    c.num_hypotheses = d.num_hypotheses;
    c.max_length = d.max_length;
    c.min_length = d.min_length;
    c.sampling_topk = d.sampling_topk;
    c.sampling_topp = d.sampling_topp;
    c.sampling_temperature = d.sampling_temperature;
    c.sampling_seed = d.sampling_seed;
    c.return_alternatives = d.return_alternatives;
    c.return_alignments = d.return_alignments;
    c.use_shortlist = d.use_shortlist;
    std::vector<const char*> pointers;
    for (const std::string& text : texts) pointers.push_back(text.c_str());
    edgemt_results* results = nullptr;
    std::string best;  // texts[0]'s best translation by the batch call, when it has one
    bool has_best = false;
    if (edgemt_translate_batch(translator, pointers.data(), pointers.size(), &c, &results) == EDGEMT_OK) {
      if (edgemt_results_count(results) != texts.size()) Broken("the C API gave not one result per source");
      edgemt_hypothesis h;
      h.struct_size = sizeof(h);
      if (!texts.empty() && edgemt_results_status(results, 0, nullptr) == EDGEMT_OK &&
          edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK) {
        best = h.text;
        has_best = true;
      }
      edgemt_results_free(results);
    }
    if (!texts.empty()) {
      char output[256];
      size_t length = 0;
      const edgemt_status status = edgemt_translate_text(translator, texts[0].c_str(), &c, output, sizeof(output),
                                                         &length);
      if (status == EDGEMT_OK && std::strlen(output) != length) Broken("edgemt_translate_text's length is not its output's");
      // Batching changes no output (sampled ones are left out of this check).
      if (status == EDGEMT_OK && has_best && c.sampling_topk == 1 && best != output)
        Broken("edgemt_translate_text's output is not the batch's best translation");
      if (status == EDGEMT_BUFFER_TOO_SMALL && length < sizeof(output))
        Broken("EDGEMT_BUFFER_TOO_SMALL with a length that fits");
    }
    edgemt_translator_free(translator);
  }
  edgemt_model_free(model);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const std::vector<uint8_t> file = ModelBytes(input);
  const DecodeOptions decode = Decoding(input);
  const bool use_c_api = input.ConsumeBool();
  std::string prefix = input.ConsumeBool() ? input.ConsumeRandomLengthString(24) : std::string();
  std::vector<std::string> texts;
  const int count = input.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < count; ++i) texts.push_back(input.ConsumeRandomLengthString(96));
  // C strings for the C API stop at a NUL: the same texts for both.
  for (std::string& text : texts) text = text.c_str();
  prefix = prefix.c_str();

  const edgemt::testing::AlignedBytes bytes(file);
  auto loaded = edgemt::Model::FromBuffer(bytes.data(), bytes.size());
  if (!loaded.ok()) return 0;
  ThroughTextTranslator(loaded.value(), texts, prefix, decode);
  if (use_c_api) ThroughCApi(file, texts, decode);
  return 0;
}
