// What the C API's files (c_api.cc, c_api_translate.cc) share: the handles
// behind edgemt/edgemt.h's opaque types, and turning C++ statuses and
// exceptions into C statuses and the thread's last error.
#pragma once

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "edgemt/catalog.h"
#include "edgemt/edgemt.h"
#include "edgemt/model.h"
#include "edgemt/text_translator.h"
#include "edgemt/tokenizer.h"

// Each handle starts with a tag, so that a handle of the wrong kind (or a
// freed one, while its memory is untouched) is refused instead of used.
enum class HandleTag : uint32_t { kModel = 0x4d4f444c, kTokenizer = 0x544f4b4e, kTranslator = 0x5452414e,
                                  kResults = 0x52534c54, kCatalog = 0x4341544c, kFreed = 0 };

struct edgemt_model {
  HandleTag tag = HandleTag::kModel;
  std::shared_ptr<const edgemt::Model> model;
};

struct edgemt_tokenizer {
  HandleTag tag = HandleTag::kTokenizer;
  std::shared_ptr<const edgemt::Model> model;  // the tokenizer reads the model's bytes
  std::unique_ptr<edgemt::Tokenizer> tokenizer;
};

struct edgemt_translator {
  HandleTag tag = HandleTag::kTranslator;
  std::unique_ptr<edgemt::TextTranslator> translator;  // serializes its calls
};

struct edgemt_results {
  HandleTag tag = HandleTag::kResults;
  std::vector<edgemt::TextResult> results;
  // A catalog's results only (else empty): per result, its source language,
  // that language's confidence and the model files it went through.
  std::vector<std::string> source_languages;
  std::vector<float> language_confidences;
  std::vector<std::vector<std::string>> models;
};

struct edgemt_catalog {
  HandleTag tag = HandleTag::kCatalog;
  std::unique_ptr<edgemt::Catalog> catalog;
  std::vector<std::string> languages;
};


namespace edgemt_c {

// The message edgemt_last_error() returns on this thread.
std::string& LastError();



inline edgemt_status StatusOf(edgemt::StatusCode code) {
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

inline edgemt_status Fail(edgemt_status status, const std::string& message) {
  LastError() = message;
  return status;
}

inline edgemt_status Report(const edgemt::Status& status) {
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

// Frees a handle of its kind; anything else (NULL, freed, another kind) is left alone.
template <typename Handle>
void FreeHandle(Handle* handle, HandleTag tag) {
  if (!Is(handle, tag)) return;
  handle->tag = HandleTag::kFreed;
  delete handle;
}

inline edgemt_status NotA(const char* argument, const char* kind) {
  return Fail(EDGEMT_INVALID_ARGUMENT, std::string(argument) + " is not " + kind + " handle (NULL, freed or another kind)");
}

inline edgemt_status Null(const char* argument) { return Fail(EDGEMT_INVALID_ARGUMENT, std::string(argument) + " is NULL"); }

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

// The caller's decode options (NULL: the defaults); false, with the last
// error set, when their struct_size is not.
inline bool ReadDecodeOptions(const edgemt_decode_options* given, edgemt_decode_options* out) {
  if (ReadOptions(given, edgemt_decode_options_init, out)) return true;
  Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_decode_options_init)");
  return false;
}

inline edgemt::Sentences SentencesOf(const edgemt_decode_options& o) {
  return o.split_sentences != 0 ? edgemt::Sentences::kSplit : edgemt::Sentences::kOnePerText;
}

inline edgemt::DecodeOptions DecodeOf(const edgemt_decode_options& o) {
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
  d.return_alternatives = o.return_alternatives != 0;
  d.min_alternative_expansion_prob = o.min_alternative_expansion_prob;
  d.repetition_penalty = o.repetition_penalty;
  d.no_repeat_ngram_size = o.no_repeat_ngram_size;
  d.disable_unk = o.disable_unk != 0;
  d.return_alignments = o.return_alignments != 0;
  d.alignment_layer = o.alignment_layer;
  d.use_shortlist = o.use_shortlist != 0;
  return d;  // target prefixes go to the text layer as arguments (TextPrefixes, IdPrefixes)
}

// The options' text prefixes for `count` sources, or an empty vector for none.
inline std::vector<std::string> TextPrefixes(const edgemt_decode_options& o, size_t count) {
  std::vector<std::string> prefixes;
  if (o.target_prefixes == nullptr) return prefixes;
  prefixes.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (o.target_prefixes[i] != nullptr) prefixes[i] = o.target_prefixes[i];
  }
  return prefixes;
}

// The options' id prefixes for `count` sources; false (with the error set) for a NULL array entry.
inline bool IdPrefixes(const edgemt_decode_options& o, size_t count, std::vector<std::vector<int32_t>>* prefixes) {
  prefixes->clear();
  if (o.target_prefix_ids == nullptr) return true;
  if (o.target_prefix_lengths == nullptr) {
    Fail(EDGEMT_INVALID_ARGUMENT, "options->target_prefix_lengths is NULL");
    return false;
  }
  prefixes->resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (o.target_prefix_lengths[i] == 0) continue;
    if (o.target_prefix_ids[i] == nullptr) {
      Fail(EDGEMT_INVALID_ARGUMENT, "options->target_prefix_ids[" + std::to_string(i) + "] is NULL");
      return false;
    }
    (*prefixes)[i].assign(o.target_prefix_ids[i], o.target_prefix_ids[i] + o.target_prefix_lengths[i]);
  }
  return true;
}

// Writes `text` NUL-terminated into buffer[0..capacity) when it fits.
inline edgemt_status CopyOut(const std::string& text, char* buffer, size_t capacity, size_t* length) {
  *length = text.size();
  if (buffer == nullptr || capacity < text.size() + 1)
    return Fail(EDGEMT_BUFFER_TOO_SMALL, "the output needs " + std::to_string(text.size() + 1) + " bytes, the buffer has " +
                                             std::to_string(buffer == nullptr ? 0 : capacity));
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return EDGEMT_OK;
}

inline edgemt_status Adopt(std::shared_ptr<const edgemt::Model>* loaded, edgemt::Result<std::shared_ptr<const edgemt::Model>> result,
                    edgemt_model** model) {
  if (!result.ok()) return Report(result.status());
  *loaded = std::move(result.value());
  std::unique_ptr<edgemt_model> handle(new edgemt_model);
  handle->model = *loaded;
  *model = handle.release();
  return EDGEMT_OK;
}

inline edgemt_status CheckResultsAccess(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults)) return NotA("results", "a results");
  if (index >= results->results.size())
    return Fail(EDGEMT_INVALID_ARGUMENT, "index " + std::to_string(index) + " is outside the " +
                                             std::to_string(results->results.size()) + " results");
  return EDGEMT_OK;
}


}  // namespace edgemt_c
