// The C API (edgemt/edgemt.h) over the C++ one: errors, versions, models,
// tokenizers and options (translating: c_api_translate.cc). Compiled with
// exceptions, unlike the rest of the library: every entry point catches
// everything (an allocation failing in the text layer) and turns it into a
// status.
#include <climits>

#include "c_api/c_api_support.h"
#include "edgemt/version.h"

namespace edgemt_c {

std::string& LastError() {
  thread_local std::string last_error;
  return last_error;
}

}  // namespace edgemt_c

using namespace edgemt_c;

extern "C" {

const char* edgemt_last_error(void) { return LastError().c_str(); }


const char* edgemt_status_name(edgemt_status status) {
  switch (status) {
    case EDGEMT_OK: return "OK";
    case EDGEMT_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case EDGEMT_INVALID_MODEL: return "INVALID_MODEL";
    case EDGEMT_UNSUPPORTED: return "UNSUPPORTED";
    case EDGEMT_NOT_FOUND: return "NOT_FOUND";
    case EDGEMT_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case EDGEMT_INTERNAL: return "INTERNAL";
    case EDGEMT_BUFFER_TOO_SMALL: return "BUFFER_TOO_SMALL";
    case EDGEMT_STATUS_MAX_ENUM: break;
  }
  return "UNKNOWN";
}

const char* edgemt_version(void) { return edgemt::Version(); }

const char* edgemt_model_formats(void) { return edgemt::ModelFormats(); }

edgemt_status edgemt_model_load(const char* path, edgemt_model** model) {
  return Guard([&] {
    if (model == nullptr) return Null("model");
    *model = nullptr;
    if (path == nullptr) return Null("path");
    std::shared_ptr<const edgemt::Model> loaded;
    return Adopt(&loaded, edgemt::Model::Load(path), model);
  });
}

edgemt_status edgemt_model_load_from_memory(const void* data, size_t size, edgemt_model** model) {
  return Guard([&] {
    if (model == nullptr) return Null("model");
    *model = nullptr;
    if (data == nullptr) return Null("data");
    std::shared_ptr<const edgemt::Model> loaded;
    return Adopt(&loaded, edgemt::Model::FromBuffer(data, size), model);
  });
}

void edgemt_model_free(edgemt_model* model) { FreeHandle(model, HandleTag::kModel); }

edgemt_status edgemt_tokenizer_create(const edgemt_model* model, edgemt_side side, edgemt_tokenizer** tokenizer) {
  return Guard([&] {
    if (tokenizer == nullptr) return Null("tokenizer");
    *tokenizer = nullptr;
    if (!Is(model, HandleTag::kModel)) return NotA("model", "a model");
    if (side != EDGEMT_SOURCE && side != EDGEMT_TARGET)
      return Fail(EDGEMT_INVALID_ARGUMENT, "side is EDGEMT_SOURCE or EDGEMT_TARGET");
    auto created = edgemt::Tokenizer::Create(
        *model->model, side == EDGEMT_SOURCE ? edgemt::Tokenizer::Side::kSource : edgemt::Tokenizer::Side::kTarget);
    if (!created.ok()) return Report(created.status());
    std::unique_ptr<edgemt_tokenizer> handle(new edgemt_tokenizer);
    handle->model = model->model;
    handle->tokenizer = std::move(created.value());
    *tokenizer = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_tokenizer_encode(const edgemt_tokenizer* tokenizer, const char* text, int32_t* ids,
                                      size_t capacity, size_t* count) {
  return Guard([&] {
    if (count == nullptr) return Null("count");
    *count = 0;
    if (!Is(tokenizer, HandleTag::kTokenizer)) return NotA("tokenizer", "a tokenizer");
    if (text == nullptr) return Null("text");
    std::vector<int32_t> encoded;
    const edgemt::Status status = tokenizer->tokenizer->Encode(text, &encoded);
    if (!status.ok()) return Report(status);
    *count = encoded.size();
    if (ids == nullptr || capacity < encoded.size())
      return Fail(EDGEMT_BUFFER_TOO_SMALL, "the text has " + std::to_string(encoded.size()) + " ids, the buffer room for " +
                                               std::to_string(ids == nullptr ? 0 : capacity));
    std::memcpy(ids, encoded.data(), encoded.size() * sizeof(int32_t));
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_tokenizer_decode(const edgemt_tokenizer* tokenizer, const int32_t* ids, size_t count, char* text,
                                      size_t capacity, size_t* length) {
  return Guard([&] {
    if (length == nullptr) return Null("length");
    *length = 0;
    if (!Is(tokenizer, HandleTag::kTokenizer)) return NotA("tokenizer", "a tokenizer");
    if (ids == nullptr && count > 0) return Null("ids");
    std::string decoded;
    const edgemt::Status status = tokenizer->tokenizer->Decode(ids, count, &decoded);
    if (!status.ok()) return Report(status);
    return CopyOut(decoded, text, capacity, length);
  });
}

void edgemt_tokenizer_free(edgemt_tokenizer* tokenizer) { FreeHandle(tokenizer, HandleTag::kTokenizer); }

void edgemt_translator_options_init(edgemt_translator_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  const edgemt::TranslatorOptions defaults;
  options->num_threads = defaults.num_threads;
  options->max_batch_size = defaults.max_batch_size;
  options->max_beam_size = defaults.max_beam_size;
  options->max_source_length = defaults.max_source_length;
  options->max_target_length = defaults.max_target_length;
  options->truncate_long_inputs = 1;
  options->packed_cache_dir = nullptr;
  options->max_batch_tokens = 0;
  const edgemt::TextTranslatorOptions text_defaults;
  options->cache_bytes = static_cast<int64_t>(text_defaults.cache_bytes);
  options->document_cache_bytes = static_cast<int64_t>(text_defaults.document_cache_bytes);
}

void edgemt_decode_options_init(edgemt_decode_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  const edgemt::DecodeOptions defaults;
  options->beam_size = defaults.beam_size;
  options->length_penalty = defaults.length_penalty;
  options->num_hypotheses = defaults.num_hypotheses;
  options->max_length = defaults.max_length;
  options->min_length = defaults.min_length;
  options->return_scores = 0;
  options->sampling_topk = defaults.sampling_topk;
  options->sampling_topp = defaults.sampling_topp;
  options->sampling_temperature = defaults.sampling_temperature;
  options->sampling_seed = defaults.sampling_seed;
  options->target_prefixes = nullptr;
  options->target_prefix_ids = nullptr;
  options->target_prefix_lengths = nullptr;
  options->return_alternatives = 0;
  options->min_alternative_expansion_prob = defaults.min_alternative_expansion_prob;
  options->repetition_penalty = defaults.repetition_penalty;
  options->no_repeat_ngram_size = defaults.no_repeat_ngram_size;
  options->disable_unk = 0;
  options->return_alignments = 0;
  options->alignment_layer = defaults.alignment_layer;
  options->use_shortlist = defaults.use_shortlist ? 1 : 0;
  options->split_sentences = 1;
}

void edgemt_decode_options_init_for_model(const edgemt_model* model, edgemt_decode_options* options) {
  edgemt_decode_options_init(options);
  if (options == nullptr || !Is(model, HandleTag::kModel)) return;
  const edgemt::DecodeOptions defaults = edgemt::ModelDecodeDefaults(model->model->config(), INT_MAX);
  options->beam_size = defaults.beam_size;
  options->max_length = defaults.max_length;
}

edgemt_status edgemt_translator_create(const edgemt_model* model, const edgemt_translator_options* options,
                                       edgemt_translator** translator) {
  return Guard([&] {
    if (translator == nullptr) return Null("translator");
    *translator = nullptr;
    if (!Is(model, HandleTag::kModel)) return NotA("model", "a model");
    edgemt_translator_options o;
    if (!ReadOptions(options, edgemt_translator_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_translator_options_init)");
    if (o.max_batch_tokens < 0) return Fail(EDGEMT_INVALID_ARGUMENT, "max_batch_tokens must not be negative");
    if (o.cache_bytes < 0 || o.document_cache_bytes < 0)
      return Fail(EDGEMT_INVALID_ARGUMENT, "cache sizes must not be negative");
    edgemt::TextTranslatorOptions text_options;
    text_options.cache_bytes = static_cast<size_t>(o.cache_bytes);
    text_options.document_cache_bytes = static_cast<size_t>(o.document_cache_bytes);
    text_options.max_batch_tokens = static_cast<size_t>(o.max_batch_tokens);
    text_options.translator.num_threads = o.num_threads;
    text_options.translator.max_batch_size = o.max_batch_size;
    text_options.translator.max_beam_size = o.max_beam_size;
    text_options.translator.max_source_length = o.max_source_length;
    text_options.translator.max_target_length = o.max_target_length;
    if (o.packed_cache_dir != nullptr) text_options.translator.packed_cache_dir = o.packed_cache_dir;
    if (o.truncate_long_inputs < 0 || o.truncate_long_inputs > 2)
      return Fail(EDGEMT_INVALID_ARGUMENT, "truncate_long_inputs is 0, 1 or 2");
    text_options.long_input = o.truncate_long_inputs == 0   ? edgemt::LongInput::kError
                              : o.truncate_long_inputs == 2 ? edgemt::LongInput::kSplit
                                                            : edgemt::LongInput::kTruncate;
    auto created = edgemt::TextTranslator::Create(model->model, text_options);
    if (!created.ok()) return Report(created.status());
    std::unique_ptr<edgemt_translator> handle(new edgemt_translator);
    handle->translator = std::move(created.value());
    *translator = handle.release();
    return EDGEMT_OK;
  });
}

void edgemt_translator_free(edgemt_translator* translator) { FreeHandle(translator, HandleTag::kTranslator); }

}  // extern "C"
