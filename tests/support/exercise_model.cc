#include "exercise_model.h"

#include <algorithm>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "test_model.h"
#ifdef EDGEMT_WITH_SENTENCEPIECE
#include "edgemt/tokenizer.h"
#endif

namespace edgemt::testing {
namespace {

// Small limits keep every input fast, whatever dimensions the file declares.
constexpr int kMaxLength = 6;

// Checks the promises of Translate's outputs; "" when they hold.
std::string CheckOutputs(const TokenIds* outputs, size_t count, const ModelConfig& config, size_t max_length) {
  for (size_t s = 0; s < count; ++s) {
    if (outputs[s].size > max_length) return "an output is longer than max_target_length";
    for (size_t i = 0; i < outputs[s].size; ++i) {
      const int32_t id = outputs[s].data[i];
      if (id < 0 || id >= config.target_vocab_size) return "an output id is outside the target vocabulary";
      if (id == config.eos_id) return "an output contains </s>";
    }
  }
  return "";
}

}  // namespace

ExerciseResult ExerciseModelBytes(const uint8_t* data, size_t size) {
  ExerciseResult result;
  AlignedBytes bytes(data, size);
  auto loaded = Model::FromBuffer(bytes.data(), bytes.size());
  if (!loaded.ok()) {
    result.status = loaded.status();
    return result;
  }
  const std::shared_ptr<const Model> model = loaded.value();
  const ModelConfig& config = model->config();
  // Every accessor must stay inside the buffer.
  size_t touched = model->source_tokenizer().size() + model->target_tokenizer().size() +
                   model->source_language().size() + model->target_language().size() +
                   model->converter_version().size() + model->quantization_summary().size();
  (void)touched;
#ifdef EDGEMT_WITH_SENTENCEPIECE
  if (!model->source_tokenizer().empty()) {
    (void)Tokenizer::Create(*model, Tokenizer::Side::kSource);
    (void)Tokenizer::Create(*model, Tokenizer::Side::kTarget);
  }
#endif

  TranslatorOptions options;
  options.max_batch_size = 2;
  options.max_source_length = std::min(kMaxLength, config.max_positions);
  options.max_target_length = std::min(kMaxLength, config.max_positions);
  options.num_threads = 1;
  auto created = Translator::Create(model, options);
  if (!created.ok()) {
    result.status = created.status();
    // The reader accepted the file: only running out of memory may stop the translator now.
    if (result.status.code() != StatusCode::kResourceExhausted)
      result.broken = "Translator::Create failed on a model that loaded: " + result.status.ToString();
    return result;
  }
  Translator& translator = *created.value();

  // Two sources ending with </s>, ids spread over the vocabulary.
  std::vector<int32_t> first, second;
  const size_t length = static_cast<size_t>(options.max_source_length);
  for (size_t i = 0; i + 1 < length; ++i) first.push_back(static_cast<int32_t>((i * 7 + 4) % config.source_vocab_size));
  first.push_back(config.eos_id);
  second.push_back(config.eos_id);
  const TokenIds sources[2] = {{first.data(), first.size()}, {second.data(), second.size()}};
  const size_t max_target = static_cast<size_t>(options.max_target_length);

  TokenIds outputs[2];
  DecodeOptions fixed;
  fixed.min_length = fixed.max_length = options.max_target_length;
  for (const DecodeOptions& decode : {DecodeOptions(), fixed}) {
    result.status = translator.Translate(sources, 1, outputs, decode);
    if (result.status.ok()) {
      result.broken = CheckOutputs(outputs, 1, config, max_target);
      if (result.broken.empty()) result.status = translator.Translate(sources, 2, outputs, decode);
    }
    if (!result.status.ok()) {
      result.broken = "Translate failed on a model that loaded: " + result.status.ToString();
      return result;
    }
    // The batch is held to the same promises, not to the sentence's output
    // alone: damaged weights can tie two scores to the last bit, where ARM's
    // one-row and many-row kernels round apart (undamaged models' batches are
    // checked against their sentences in unit/text/word_level_test.cc and tests/e2e).
    if (result.broken.empty()) result.broken = CheckOutputs(outputs, 2, config, max_target);
    if (!result.broken.empty()) return result;
  }
  return result;
}

}  // namespace edgemt::testing
