// The WebAssembly module's model sets (embind `CatalogSession`): models
// copied into the module's memory one by one, then one Catalog over them
// (edgemt/catalog.h), and CLD2's language detection. web/js/edgemt.mjs's
// Catalog builds on it; errors come back as values ({error: message}).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "edgemt/catalog.h"
#include "edgemt/language_id.h"
#include "edgemt/model.h"
#include "js_values.h"

namespace {

using emscripten::val;

using edgemt_js::ArrayOf;
using edgemt_js::Error;

class CatalogSession {
 public:
  CatalogSession() = default;
  ~CatalogSession() { Close(); }
  CatalogSession(const CatalogSession&) = delete;
  CatalogSession& operator=(const CatalogSession&) = delete;

  // A 64-byte aligned buffer for the next model's file (0: no room); JavaScript copies it there.
  uintptr_t Reserve(double size) {
    if (catalog_ != nullptr || !(size > 0) || size > static_cast<double>(SIZE_MAX - 64)) return 0;
    pending_size_ = static_cast<size_t>(size);
    void* bytes = std::aligned_alloc(64, (pending_size_ + 63) / 64 * 64);
    if (bytes != nullptr) buffers_.push_back(bytes);
    return reinterpret_cast<uintptr_t>(bytes);
  }

  // Reads the last reserved buffer as a model named `name`: {} or {error}.
  val Add(const std::string& name) {
    if (buffers_.size() != models_.size() + 1) return Error("no model bytes (reserve first)");
    auto model = edgemt::Model::FromBuffer(buffers_.back(), pending_size_);
    if (!model.ok()) {
      std::free(buffers_.back());
      buffers_.pop_back();
      return Error(name + ": " + model.status().message());
    }
    models_.push_back(model.value());
    names_.push_back(name);
    return val::object();
  }

  // The catalog over the models added: {} or {error}.
  val Finish(const val& options) {
    edgemt::CatalogOptions o;
    if (!options["pivotLanguage"].isUndefined()) o.pivot_language = options["pivotLanguage"].as<std::string>();
    o.translator.translator.num_threads = 1;
    if (!options["maxBatchSize"].isUndefined()) o.translator.translator.max_batch_size = options["maxBatchSize"].as<int>();
    else o.translator.translator.max_batch_size = 16;
    auto catalog = edgemt::Catalog::FromModels(models_, names_, o);
    if (!catalog.ok()) return Error(catalog.status().message());
    catalog_ = std::move(catalog.value());
    return val::object();
  }

  val Languages() const { return catalog_ ? ArrayOf(catalog_->languages()) : Error("no catalog"); }
  val Targets(const std::string& from) const { return catalog_ ? ArrayOf(catalog_->targets(from)) : Error("no catalog"); }

  val Route(const std::string& from, const std::string& to) const {
    if (!catalog_) return Error("no catalog");
    auto route = catalog_->Route(from, to);
    if (!route.ok()) return Error(route.status().message());
    std::vector<std::string> names;
    for (size_t index : route.value()) names.push_back(catalog_->models()[index].path);
    return ArrayOf(names);
  }

  // texts: an array of strings; format: 'text', 'document' or 'html'. {results: [...]} or {error}.
  val Translate(const val& texts, const std::string& from, const std::string& to, const std::string& format,
                int alternatives) {
    if (!catalog_) return Error("no catalog");
    if (format != "text" && format != "document" && format != "html")
      return Error("format is 'text', 'document' or 'html', not '" + format + "'");
    const std::vector<std::string> sources = emscripten::vecFromJSArray<std::string>(texts);
    edgemt::CatalogRequest request;
    request.from = from;
    request.to = to;
    request.format = format == "html"       ? edgemt::TextFormat::kHtml
                     : format == "document" ? edgemt::TextFormat::kDocument
                                            : edgemt::TextFormat::kText;
    request.alternatives = alternatives;
    std::vector<edgemt::CatalogResult> results;
    const edgemt::Status status = catalog_->Translate(sources.data(), sources.size(), request, &results);
    if (!status.ok()) return Error(status.message());
    val list = val::array();
    for (size_t i = 0; i < results.size(); ++i) {
      val item = val::object();
      if (!results[i].status.ok()) item.set("error", results[i].status.message());
      item.set("text", results[i].text);
      item.set("alternatives", ArrayOf(results[i].alternatives));
      item.set("sourceLanguage", results[i].source_language);
      item.set("languageConfidence", results[i].language_confidence);
      item.set("models", ArrayOf(results[i].models));
      if (!results[i].warning.empty()) item.set("warning", results[i].warning);
      list.set(i, item);
    }
    val out = val::object();
    out.set("results", list);
    return out;
  }

  // Releases the catalog, the models and their bytes (in that order).
  void Close() {
    catalog_.reset();
    models_.clear();
    names_.clear();
    for (void* bytes : buffers_) std::free(bytes);
    buffers_.clear();
  }

 private:
  std::vector<void*> buffers_;
  size_t pending_size_ = 0;
  std::vector<std::shared_ptr<const edgemt::Model>> models_;
  std::vector<std::string> names_;
  std::unique_ptr<edgemt::Catalog> catalog_;
};

// [{language, confidence}], best first; [] when the text is too short to tell.
val DetectLanguage(const std::string& text) {
  std::vector<edgemt::DetectedLanguage> candidates;
  const edgemt::Status status = edgemt::DetectLanguage(text, false, &candidates);
  if (!status.ok() && status.code() != edgemt::StatusCode::kNotFound) return Error(status.message());
  val out = val::array();
  for (size_t i = 0; i < candidates.size(); ++i) {
    val item = val::object();
    item.set("language", candidates[i].code);
    item.set("confidence", candidates[i].confidence);
    out.set(i, item);
  }
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(edgemt_catalog) {
  emscripten::class_<CatalogSession>("CatalogSession")
      .constructor<>()
      .function("reserve", &CatalogSession::Reserve)
      .function("add", &CatalogSession::Add)
      .function("finish", &CatalogSession::Finish)
      .function("languages", &CatalogSession::Languages)
      .function("targets", &CatalogSession::Targets)
      .function("route", &CatalogSession::Route)
      .function("translate", &CatalogSession::Translate)
      .function("close", &CatalogSession::Close);
  emscripten::function("detectLanguage", &DetectLanguage);
}
