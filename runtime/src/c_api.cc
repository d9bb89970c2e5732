// The C API (edgemt/edgemt.h) over the C++ one. Compiled with exceptions,
// unlike the rest of the library: every entry point catches everything
// (an allocation failing in the text layer) and turns it into a status.
#include "edgemt/edgemt.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/text_translator.h"
#ifdef EDGEMT_WITH_SENTENCEPIECE
#include "edgemt/tokenizer.h"
#endif
#include "edgemt/version.h"

// Each handle starts with a tag, so that a handle of the wrong kind (or a
// freed one, while its memory is untouched) is refused instead of used.
enum class HandleTag : uint32_t { kModel = 0x4d4f444c, kTokenizer = 0x544f4b4e, kTranslator = 0x5452414e,
                                  kResults = 0x52534c54, kFreed = 0 };

struct edgemt_model {
  HandleTag tag = HandleTag::kModel;
  std::shared_ptr<const edgemt::Model> model;
};

struct edgemt_tokenizer {
  HandleTag tag = HandleTag::kTokenizer;
  std::shared_ptr<const edgemt::Model> model;  // the tokenizer reads the model's bytes
#ifdef EDGEMT_WITH_SENTENCEPIECE
  std::unique_ptr<edgemt::Tokenizer> tokenizer;
#endif
};

struct edgemt_translator {
  HandleTag tag = HandleTag::kTranslator;
  std::mutex busy;  // one call at a time
  std::unique_ptr<edgemt::TextTranslator> translator;
};

struct edgemt_results {
  HandleTag tag = HandleTag::kResults;
  std::vector<edgemt::TextResult> results;
};

namespace {

thread_local std::string last_error;

edgemt_status StatusOf(edgemt::StatusCode code) {
  switch (code) {
    case edgemt::StatusCode::kOk: return EDGEMT_OK;
    case edgemt::StatusCode::kInvalidArgument: return EDGEMT_INVALID_ARGUMENT;
    case edgemt::StatusCode::kInvalidModel: return EDGEMT_INVALID_MODEL;
    case edgemt::StatusCode::kUnsupported: return EDGEMT_UNSUPPORTED;
    case edgemt::StatusCode::kNotFound: return EDGEMT_NOT_FOUND;
    case edgemt::StatusCode::kResourceExhausted: return EDGEMT_RESOURCE_EXHAUSTED;
    case edgemt::StatusCode::kInternal: return EDGEMT_INTERNAL;
  }
  return EDGEMT_INTERNAL;
}

edgemt_status Fail(edgemt_status status, const std::string& message) {
  last_error = message;
  return status;
}

edgemt_status Report(const edgemt::Status& status) {
  if (status.ok()) return EDGEMT_OK;
  return Fail(StatusOf(status.code()), status.message());
}

// Runs `body` (which returns an edgemt_status), turning exceptions into statuses.
template <typename Body>
edgemt_status Guard(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(EDGEMT_RESOURCE_EXHAUSTED, "out of memory");
  } catch (...) {
    return Fail(EDGEMT_INTERNAL, "an unexpected C++ exception");
  }
}

template <typename Handle>
bool Is(const Handle* handle, HandleTag tag) {
  return handle != nullptr && handle->tag == tag;
}

edgemt_status NotA(const char* argument, const char* kind) {
  return Fail(EDGEMT_INVALID_ARGUMENT, std::string(argument) + " is not " + kind + " handle (NULL, freed or another kind)");
}

edgemt_status Null(const char* argument) { return Fail(EDGEMT_INVALID_ARGUMENT, std::string(argument) + " is NULL"); }

// Options from a caller's struct of `struct_size` bytes: fields beyond it keep their defaults.
template <typename Options>
bool ReadOptions(const Options* given, void (*init)(Options*), Options* out) {
  init(out);
  if (given == nullptr) return true;
  if (given->struct_size < sizeof(size_t)) return false;
  std::memcpy(out, given, given->struct_size < sizeof(Options) ? given->struct_size : sizeof(Options));
  out->struct_size = sizeof(Options);
  return true;
}

edgemt::DecodeOptions DecodeOf(const edgemt_decode_options& o) {
  edgemt::DecodeOptions d;
  d.beam_size = o.beam_size;
  d.length_penalty = o.length_penalty;
  d.num_hypotheses = o.num_hypotheses;
  d.max_length = o.max_length;
  d.min_length = o.min_length;
  d.sampling_topk = o.sampling_topk;
  d.sampling_topp = o.sampling_topp;
  d.sampling_temperature = o.sampling_temperature;
  d.sampling_seed = o.sampling_seed;
  return d;
}

// Writes `text` NUL-terminated into buffer[0..capacity) when it fits.
edgemt_status CopyOut(const std::string& text, char* buffer, size_t capacity, size_t* length) {
  *length = text.size();
  if (buffer == nullptr || capacity < text.size() + 1)
    return Fail(EDGEMT_BUFFER_TOO_SMALL, "the output needs " + std::to_string(text.size() + 1) + " bytes, the buffer has " +
                                             std::to_string(buffer == nullptr ? 0 : capacity));
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return EDGEMT_OK;
}

edgemt_status Adopt(std::shared_ptr<const edgemt::Model>* loaded, edgemt::Result<std::shared_ptr<const edgemt::Model>> result,
                    edgemt_model** model) {
  if (!result.ok()) return Report(result.status());
  *loaded = std::move(result.value());
  std::unique_ptr<edgemt_model> handle(new edgemt_model);
  handle->model = *loaded;
  *model = handle.release();
  return EDGEMT_OK;
}

edgemt_status CheckResultsAccess(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults)) return NotA("results", "a results");
  if (index >= results->results.size())
    return Fail(EDGEMT_INVALID_ARGUMENT, "index " + std::to_string(index) + " is outside the " +
                                             std::to_string(results->results.size()) + " results");
  return EDGEMT_OK;
}

}  // namespace

extern "C" {

const char* edgemt_last_error(void) { return last_error.c_str(); }

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

void edgemt_model_free(edgemt_model* model) {
  if (!Is(model, HandleTag::kModel)) return;
  model->tag = HandleTag::kFreed;
  delete model;
}

edgemt_status edgemt_tokenizer_create(const edgemt_model* model, edgemt_side side, edgemt_tokenizer** tokenizer) {
  return Guard([&] {
    if (tokenizer == nullptr) return Null("tokenizer");
    *tokenizer = nullptr;
    if (!Is(model, HandleTag::kModel)) return NotA("model", "a model");
    if (side != EDGEMT_SOURCE && side != EDGEMT_TARGET)
      return Fail(EDGEMT_INVALID_ARGUMENT, "side is EDGEMT_SOURCE or EDGEMT_TARGET");
#ifdef EDGEMT_WITH_SENTENCEPIECE
    auto created = edgemt::Tokenizer::Create(
        *model->model, side == EDGEMT_SOURCE ? edgemt::Tokenizer::Side::kSource : edgemt::Tokenizer::Side::kTarget);
    if (!created.ok()) return Report(created.status());
    std::unique_ptr<edgemt_tokenizer> handle(new edgemt_tokenizer);
    handle->model = model->model;
    handle->tokenizer = std::move(created.value());
    *tokenizer = handle.release();
    return EDGEMT_OK;
#else
    return Fail(EDGEMT_UNSUPPORTED, "this build has no SentencePiece");
#endif
  });
}

edgemt_status edgemt_tokenizer_encode(const edgemt_tokenizer* tokenizer, const char* text, int32_t* ids,
                                      size_t capacity, size_t* count) {
  return Guard([&] {
    if (count == nullptr) return Null("count");
    *count = 0;
    if (!Is(tokenizer, HandleTag::kTokenizer)) return NotA("tokenizer", "a tokenizer");
    if (text == nullptr) return Null("text");
#ifdef EDGEMT_WITH_SENTENCEPIECE
    std::vector<int32_t> encoded;
    const edgemt::Status status = tokenizer->tokenizer->Encode(text, &encoded);
    if (!status.ok()) return Report(status);
    *count = encoded.size();
    if (ids == nullptr || capacity < encoded.size())
      return Fail(EDGEMT_BUFFER_TOO_SMALL, "the text has " + std::to_string(encoded.size()) + " ids, the buffer room for " +
                                               std::to_string(ids == nullptr ? 0 : capacity));
    std::memcpy(ids, encoded.data(), encoded.size() * sizeof(int32_t));
    return EDGEMT_OK;
#else
    (void)ids, (void)capacity;
    return Fail(EDGEMT_UNSUPPORTED, "this build has no SentencePiece");
#endif
  });
}

edgemt_status edgemt_tokenizer_decode(const edgemt_tokenizer* tokenizer, const int32_t* ids, size_t count, char* text,
                                      size_t capacity, size_t* length) {
  return Guard([&] {
    if (length == nullptr) return Null("length");
    *length = 0;
    if (!Is(tokenizer, HandleTag::kTokenizer)) return NotA("tokenizer", "a tokenizer");
    if (ids == nullptr && count > 0) return Null("ids");
#ifdef EDGEMT_WITH_SENTENCEPIECE
    std::string decoded;
    const edgemt::Status status = tokenizer->tokenizer->Decode(ids, count, &decoded);
    if (!status.ok()) return Report(status);
    return CopyOut(decoded, text, capacity, length);
#else
    (void)text, (void)capacity;
    return Fail(EDGEMT_UNSUPPORTED, "this build has no SentencePiece");
#endif
  });
}

void edgemt_tokenizer_free(edgemt_tokenizer* tokenizer) {
  if (!Is(tokenizer, HandleTag::kTokenizer)) return;
  tokenizer->tag = HandleTag::kFreed;
  delete tokenizer;
}

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
}

void edgemt_decode_options_init_for_model(const edgemt_model* model, edgemt_decode_options* options) {
  edgemt_decode_options_init(options);
  if (options == nullptr || !Is(model, HandleTag::kModel)) return;
  const edgemt::ModelConfig& config = model->model->config();
  if (config.default_beam_size > 0) options->beam_size = config.default_beam_size;
  options->max_length = config.default_max_length;
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
    edgemt::TextTranslatorOptions text_options;
    text_options.max_batch_tokens = static_cast<size_t>(o.max_batch_tokens);
    text_options.translator.num_threads = o.num_threads;
    text_options.translator.max_batch_size = o.max_batch_size;
    text_options.translator.max_beam_size = o.max_beam_size;
    text_options.translator.max_source_length = o.max_source_length;
    text_options.translator.max_target_length = o.max_target_length;
    if (o.packed_cache_dir != nullptr) text_options.translator.packed_cache_dir = o.packed_cache_dir;
    text_options.long_input = o.truncate_long_inputs ? edgemt::LongInput::kTruncate : edgemt::LongInput::kError;
    auto created = edgemt::TextTranslator::Create(model->model, text_options);
    if (!created.ok()) return Report(created.status());
    std::unique_ptr<edgemt_translator> handle(new edgemt_translator);
    handle->translator = std::move(created.value());
    *translator = handle.release();
    return EDGEMT_OK;
  });
}

void edgemt_translator_free(edgemt_translator* translator) {
  if (!Is(translator, HandleTag::kTranslator)) return;
  translator->tag = HandleTag::kFreed;
  delete translator;
}

edgemt_status edgemt_translate_text(edgemt_translator* translator, const char* text,
                                    const edgemt_decode_options* options, char* output, size_t capacity,
                                    size_t* length) {
  return Guard([&] {
    if (length == nullptr) return Null("length");
    *length = 0;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr) return Null("text");
    edgemt_decode_options o;
    if (!ReadOptions(options, edgemt_decode_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_decode_options_init)");
    std::vector<edgemt::TextResult> results;
    const std::string source(text);
    {
      std::lock_guard<std::mutex> lock(translator->busy);
      const edgemt::Status status =
          translator->translator->TranslateTexts(&source, 1, DecodeOf(o), &results, o.return_scores != 0);
      if (!status.ok()) return Report(status);
    }
    if (!results[0].status.ok()) return Report(results[0].status);
    return CopyOut(results[0].hypotheses[0].text, output, capacity, length);
  });
}

edgemt_status edgemt_translate_batch(edgemt_translator* translator, const char* const* texts, size_t count,
                                     const edgemt_decode_options* options, edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (texts == nullptr && count > 0) return Null("texts");
    edgemt_decode_options o;
    if (!ReadOptions(options, edgemt_decode_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_decode_options_init)");
    std::vector<std::string> sources(count);
    for (size_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr) return Null(("texts[" + std::to_string(i) + "]").c_str());
      sources[i] = texts[i];
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    {
      std::lock_guard<std::mutex> lock(translator->busy);
      const edgemt::Status status = translator->translator->TranslateTexts(sources.data(), count, DecodeOf(o),
                                                                          &handle->results, o.return_scores != 0);
      if (!status.ok()) return Report(status);
    }
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_translate_ids(edgemt_translator* translator, const int32_t* const* sources,
                                   const size_t* lengths, size_t count, const edgemt_decode_options* options,
                                   edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if ((sources == nullptr || lengths == nullptr) && count > 0) return Null(sources == nullptr ? "sources" : "lengths");
    edgemt_decode_options o;
    if (!ReadOptions(options, edgemt_decode_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_decode_options_init)");
    std::vector<std::vector<int32_t>> copies(count);
    for (size_t i = 0; i < count; ++i) {
      if (sources[i] == nullptr && lengths[i] > 0) return Null(("sources[" + std::to_string(i) + "]").c_str());
      if (lengths[i] > 0) copies[i].assign(sources[i], sources[i] + lengths[i]);
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    {
      std::lock_guard<std::mutex> lock(translator->busy);
      const edgemt::Status status = translator->translator->TranslateIds(copies.data(), count, DecodeOf(o),
                                                                        &handle->results, o.return_scores != 0);
      if (!status.ok()) return Report(status);
    }
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_translate_stream(edgemt_translator* translator, const char* text,
                                      const edgemt_decode_options* options, edgemt_piece_callback on_piece,
                                      void* user_data) {
  return Guard([&] {
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr) return Null("text");
    if (on_piece == nullptr) return Null("on_piece");
    edgemt_decode_options o;
    if (!ReadOptions(options, edgemt_decode_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_decode_options_init)");
    edgemt::TextResult result;
    std::lock_guard<std::mutex> lock(translator->busy);
    return Report(translator->translator->TranslateStreaming(
        text, DecodeOf(o),
        [&](std::string_view piece) { return on_piece(piece.data(), piece.size(), user_data) != 0; }, &result));
  });
}

size_t edgemt_results_count(const edgemt_results* results) {
  return Is(results, HandleTag::kResults) ? results->results.size() : 0;
}

edgemt_status edgemt_results_status(const edgemt_results* results, size_t index, const char** message) {
  if (message != nullptr) *message = "";
  const edgemt_status access = CheckResultsAccess(results, index);
  if (access != EDGEMT_OK) return access;
  const edgemt::Status& status = results->results[index].status;
  if (message != nullptr) *message = status.message().c_str();
  return StatusOf(status.code());
}

const char* edgemt_results_warning(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults) || index >= results->results.size()) return "";
  return results->results[index].warning.c_str();
}

size_t edgemt_results_num_hypotheses(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults) || index >= results->results.size()) return 0;
  return results->results[index].hypotheses.size();
}

edgemt_status edgemt_results_hypothesis(const edgemt_results* results, size_t index, size_t k,
                                        edgemt_hypothesis* hypothesis) {
  if (hypothesis == nullptr) return Null("hypothesis");
  if (hypothesis->struct_size < sizeof(size_t))
    return Fail(EDGEMT_INVALID_ARGUMENT, "hypothesis->struct_size is not set (sizeof(edgemt_hypothesis))");
  const edgemt_status access = CheckResultsAccess(results, index);
  if (access != EDGEMT_OK) return access;
  const auto& hypotheses = results->results[index].hypotheses;
  if (k >= hypotheses.size())
    return Fail(EDGEMT_INVALID_ARGUMENT, "hypothesis " + std::to_string(k) + " is outside the " +
                                             std::to_string(hypotheses.size()) + " of result " + std::to_string(index));
  const edgemt::TextHypothesis& h = hypotheses[k];
  edgemt_hypothesis out;
  out.struct_size = hypothesis->struct_size;
  out.text = h.text.c_str();
  out.ids = h.ids.data();
  out.num_ids = h.ids.size();
  out.score = h.score;
  out.token_log_probs = h.token_log_probs.empty() ? nullptr : h.token_log_probs.data();
  out.num_token_log_probs = h.token_log_probs.size();
  out.ended_with_eos = h.ended_with_eos ? 1 : 0;
  std::memcpy(hypothesis, &out, hypothesis->struct_size < sizeof(out) ? hypothesis->struct_size : sizeof(out));
  return EDGEMT_OK;
}

void edgemt_results_free(edgemt_results* results) {
  if (!Is(results, HandleTag::kResults)) return;
  results->tag = HandleTag::kFreed;
  delete results;
}

}  // extern "C"
