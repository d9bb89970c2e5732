// The C API of model sets and language detection (edgemt/edgemt.h).
#include <algorithm>
#include <cstring>

#include "c_api/c_api_support.h"
#include "edgemt/language_id.h"

using namespace edgemt_c;

void edgemt_catalog_options_init(edgemt_catalog_options* options) {
  if (options == nullptr) return;
  *options = edgemt_catalog_options{};
  options->struct_size = sizeof(edgemt_catalog_options);
  options->pivot_language = "en";
  options->max_batch_size = 16;
}

edgemt_status edgemt_catalog_open(const char* directory, const edgemt_catalog_options* options,
                                  edgemt_catalog** catalog) {
  return Guard([&] {
    if (catalog == nullptr) return Null("catalog");
    *catalog = nullptr;
    if (directory == nullptr) return Null("directory");
    edgemt_catalog_options o;
    if (!ReadOptions(options, edgemt_catalog_options_init, &o))
      return Fail(EDGEMT_INVALID_ARGUMENT, "options->struct_size is not set (edgemt_catalog_options_init)");
    if (o.max_batch_size < 1 || o.num_threads < 0)
      return Fail(EDGEMT_INVALID_ARGUMENT, "max_batch_size must be at least 1 and num_threads at least 0");
    edgemt::CatalogOptions catalog_options;
    if (o.pivot_language != nullptr) catalog_options.pivot_language = o.pivot_language;
    catalog_options.memory_budget_bytes = o.memory_budget_bytes;
    catalog_options.translator.translator.num_threads = o.num_threads;
    catalog_options.translator.translator.max_batch_size = o.max_batch_size;
    auto opened = edgemt::Catalog::Open(directory, catalog_options);
    if (!opened.ok()) return Report(opened.status());
    auto handle = std::make_unique<edgemt_catalog>();
    handle->catalog = std::move(opened.value());
    handle->languages = handle->catalog->languages();
    *catalog = handle.release();
    return EDGEMT_OK;
  });
}

void edgemt_catalog_free(edgemt_catalog* catalog) { FreeHandle(catalog, HandleTag::kCatalog); }

size_t edgemt_catalog_num_languages(const edgemt_catalog* catalog) {
  return Is(catalog, HandleTag::kCatalog) ? catalog->languages.size() : 0;
}

const char* edgemt_catalog_language(const edgemt_catalog* catalog, size_t index) {
  if (!Is(catalog, HandleTag::kCatalog) || index >= catalog->languages.size()) return "";
  return catalog->languages[index].c_str();
}

edgemt_status edgemt_catalog_translate(edgemt_catalog* catalog, const char* const* texts, size_t count,
                                       const char* from, const char* to, edgemt_text_format format,
                                       edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(catalog, HandleTag::kCatalog)) return NotA("catalog", "a catalog");
    if (from == nullptr) return Null("from");
    if (to == nullptr) return Null("to");
    if (texts == nullptr && count > 0) return Null("texts");
    if (format != EDGEMT_FORMAT_TEXT && format != EDGEMT_FORMAT_DOCUMENT && format != EDGEMT_FORMAT_HTML)
      return Fail(EDGEMT_INVALID_ARGUMENT, "format is not an edgemt_text_format");
    std::vector<std::string> sources(count);
    for (size_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr) return Fail(EDGEMT_INVALID_ARGUMENT, "texts[" + std::to_string(i) + "] is NULL");
      sources[i] = texts[i];
    }
    edgemt::CatalogRequest request;
    request.from = from;
    request.to = to;
    request.format = format == EDGEMT_FORMAT_HTML       ? edgemt::TextFormat::kHtml
                     : format == EDGEMT_FORMAT_DOCUMENT ? edgemt::TextFormat::kDocument
                                                        : edgemt::TextFormat::kText;
    std::vector<edgemt::CatalogResult> translated;
    const edgemt::Status status = catalog->catalog->Translate(sources.data(), count, request, &translated);
    if (!status.ok()) return Report(status);
    auto handle = std::make_unique<edgemt_results>();
    for (edgemt::CatalogResult& result : translated) {
      edgemt::TextResult text;
      text.status = result.status;
      text.warning = result.warning;
      if (result.status.ok()) {
        edgemt::TextHypothesis hypothesis;
        hypothesis.text = std::move(result.text);
        hypothesis.ended_with_eos = true;
        text.hypotheses.push_back(std::move(hypothesis));
      }
      handle->results.push_back(std::move(text));
      handle->source_languages.push_back(result.source_language);
      handle->language_confidences.push_back(result.language_confidence);
      handle->models.push_back(result.models);
    }
    *results = handle.release();
    return EDGEMT_OK;
  });
}

const char* edgemt_results_source_language(const edgemt_results* results, size_t index, float* confidence) {
  if (confidence != nullptr) *confidence = 0;
  if (!Is(results, HandleTag::kResults) || index >= results->source_languages.size()) return "";
  if (confidence != nullptr) *confidence = results->language_confidences[index];
  return results->source_languages[index].c_str();
}

size_t edgemt_results_num_models(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults) || index >= results->models.size()) return 0;
  return results->models[index].size();
}

const char* edgemt_results_model(const edgemt_results* results, size_t index, size_t k) {
  if (!Is(results, HandleTag::kResults) || index >= results->models.size() || k >= results->models[index].size())
    return "";
  return results->models[index][k].c_str();
}

edgemt_status edgemt_detect_language(const char* text, size_t length, char* code, size_t capacity,
                                     float* confidence) {
  return Guard([&] {
    if (confidence != nullptr) *confidence = 0;
    if (text == nullptr && length > 0) return Null("text");
    if (code == nullptr || capacity == 0) return Fail(EDGEMT_INVALID_ARGUMENT, "code needs room for a NUL at least");
    code[0] = '\0';
    std::vector<edgemt::DetectedLanguage> candidates;
    const edgemt::Status status = edgemt::DetectLanguage(std::string_view(text == nullptr ? "" : text, length),
                                                         false, &candidates);
    if (!status.ok()) return Report(status);
    const std::string& best = candidates[0].code;
    if (best.size() + 1 > capacity) return Fail(EDGEMT_BUFFER_TOO_SMALL, "the language code needs " +
                                                                           std::to_string(best.size() + 1) + " bytes");
    std::memcpy(code, best.c_str(), best.size() + 1);
    if (confidence != nullptr) *confidence = candidates[0].confidence;
    return EDGEMT_OK;
  });
}
