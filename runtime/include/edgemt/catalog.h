// A model set: a folder of model files, each one language pair, translated
// from any of their languages to any other. A Catalog reads every file's
// languages when it opens the folder, opens a model when a translation
// first needs it and closes the least recently used ones (never one in use)
// to keep the open models within a memory budget. A pair no file holds goes
// through a pivot language (English, as in Firefox and Argos Translate):
// source -> pivot -> target, each hop with its own model. Thread-safe:
// calls from many threads share the open models (each model's calls are
// serialized by its TextTranslator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt {

struct CatalogOptions {
  std::string pivot_language = "en";
  // The open models' cost (file + packed weights + arena) is kept under
  // this by closing the least recently used ones; a model in use stays
  // open, so a moment with several in use may pass it. 0: no limit.
  size_t memory_budget_bytes = 0;
  // Every model's text translator. Each model's own beam size and length
  // limit are added to these (ModelDecodeDefaults), as the CLI does.
  TextTranslatorOptions translator;
  // The most alternatives a request may ask (the last hop's n-best).
  int max_alternatives = 3;
};

// One model file of the set.
struct CatalogModel {
  std::string path;  // or, for a set of loaded models (Catalog::FromModels), the caller's name
  std::string source_language;
  std::string target_language;
  uint64_t file_size = 0;
  // FromModels: the model, loaded by the caller (it stays loaded; only its
  // translator is opened and closed). Null: opened from path.
  std::shared_ptr<const Model> loaded;
};

enum class TextFormat { kText, kDocument, kHtml };

struct CatalogRequest {
  std::string from;  // a language code, or "auto": each text's language is detected
  std::string to;
  // kText: a text (a paragraph, split into sentences); kDocument: whitespace
  // and lines kept; kHtml: tags kept (edgemt/html.h). Both hops alike.
  TextFormat format = TextFormat::kText;
  int alternatives = 0;  // kText: up to this many other translations
};

struct CatalogResult {
  Status status;
  std::string text;
  std::vector<std::string> alternatives;
  std::string source_language;     // the request's, or the detected one
  float language_confidence = 0;   // detected: 0-100 (DetectedLanguage); given: 100
  std::vector<std::string> models; // the files it went through, in order
  std::string warning;             // e.g. a source too long, translated in parts
};

struct CatalogStats {
  size_t open_models = 0;
  size_t open_bytes = 0;      // their cost, as the budget counts it
  size_t peak_open_bytes = 0;
  uint64_t opens = 0;         // models opened (again) since the catalog was
  uint64_t closes = 0;        // models closed for the budget
};

class Catalog {
 public:
  // Every *.edgemt file of `directory` (not its subfolders) with a source
  // and target language. A file without them, or that cannot be read, is
  // left out and named in skipped(); none at all is kNotFound.
  static Result<std::unique_ptr<Catalog>> Open(const std::string& directory, const CatalogOptions& options = {});
  // A set of models already loaded (from memory: WebAssembly, a model
  // shipped inside an app), named by `names` (same count) in results. A
  // model without a language pair is kInvalidArgument.
  static Result<std::unique_ptr<Catalog>> FromModels(const std::vector<std::shared_ptr<const Model>>& models,
                                                     const std::vector<std::string>& names,
                                                     const CatalogOptions& options = {});
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  const std::vector<CatalogModel>& models() const;
  const std::vector<std::string>& skipped() const;  // "FILE: why"
  // Every language some file reads or writes, sorted.
  std::vector<std::string> languages() const;
  // The languages `from` translates to, directly or through the pivot.
  std::vector<std::string> targets(std::string_view from) const;
  // The models (indices into models()) a translation goes through: the
  // direct one, else two through the pivot; kNotFound naming what is missing.
  Result<std::vector<size_t>> Route(std::string_view from, std::string_view to) const;

  // results->size() == count afterwards, each with its own status: one
  // text's failure (its language unknown, a model that cannot open) is its
  // own. The returned status fails only for a request no text can use
  // (e.g. alternatives over the limit).
  Status Translate(const std::string* texts, size_t count, const CatalogRequest& request,
                   std::vector<CatalogResult>* results);

  CatalogStats stats() const;
  const CatalogOptions& options() const;

 private:
  struct Impl;
  explicit Catalog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgemt
