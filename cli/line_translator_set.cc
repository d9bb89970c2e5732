// LineTranslator over a model set (--models DIR --from --to): the same
// lines and documents, each through the Catalog's model or two models.
#include <cstdio>

#include "cli/line_translator.h"

namespace edgemt::cli {
namespace {

void Warn(size_t line_number, const std::string& message) {
  std::fprintf(stderr, "edgemt-translate: line %zu: %s\n", line_number, message.c_str());
}

}  // namespace

Result<std::unique_ptr<LineTranslator>> LineTranslator::CreateForSet(const Options& options) {
  std::unique_ptr<LineTranslator> self(new LineTranslator);
  self->options_ = options;
  CatalogOptions catalog_options;
  catalog_options.memory_budget_bytes = static_cast<size_t>(options.memory_budget_mb) << 20;
  TranslatorOptions& limits = catalog_options.translator.translator;
  limits.max_batch_size = options.batch_size;
  limits.num_threads = options.threads;
  limits.max_source_length = options.max_source_length;
  limits.packed_cache_dir = options.packed_cache_dir;
  catalog_options.translator.long_input = options.long_input;
  catalog_options.translator.max_batch_tokens = static_cast<size_t>(options.max_batch_tokens);
  if (options.cache_mb >= 0) {
    catalog_options.translator.cache_bytes = static_cast<size_t>(options.cache_mb) << 20;
    catalog_options.translator.document_cache_bytes = catalog_options.translator.cache_bytes;
  }
  auto catalog = Catalog::Open(options.models_dir, catalog_options);
  if (!catalog.ok()) return catalog.status();
  for (const std::string& skipped : catalog.value()->skipped())
    std::fprintf(stderr, "edgemt-translate: warning: left out %s\n", skipped.c_str());
  if (options.from != "auto") {
    auto route = catalog.value()->Route(options.from, options.to);
    if (!route.ok()) return route.status();
  }
  self->catalog_ = std::move(catalog.value());
  return self;
}

void LineTranslator::TranslateLinesOfSet(const std::vector<std::string>& lines, size_t first_line,
                                         std::vector<std::string>* outputs) {
  CatalogRequest request;
  request.from = options_.from;
  request.to = options_.to;
  std::vector<CatalogResult> results;
  catalog_->Translate(lines.data(), lines.size(), request, &results);
  outputs->assign(lines.size(), std::string());
  for (size_t i = 0; i < lines.size(); ++i) {
    // A blank line is a blank translation, whatever its language.
    if (lines[i].find_first_not_of(" \t") == std::string::npos) continue;
    if (!results[i].warning.empty()) Warn(first_line + i, results[i].warning);
    if (!results[i].status.ok()) {
      Warn(first_line + i, results[i].status.message());
      continue;
    }
    (*outputs)[i] = std::move(results[i].text);
  }
}

std::string LineTranslator::TranslateDocumentOfSet(const std::string& document, size_t first_line) {
  CatalogRequest request;
  request.from = options_.from;
  request.to = options_.to;
  request.format = options_.html ? TextFormat::kHtml : TextFormat::kDocument;
  std::vector<CatalogResult> results;
  catalog_->Translate(&document, 1, request, &results);
  if (!results[0].warning.empty()) Warn(first_line, "in the document starting here, " + results[0].warning);
  if (!results[0].status.ok()) {
    Warn(first_line, "the document starting here is not translated: " + results[0].status.message());
    return document;  // nothing is lost: the source stands in
  }
  return results[0].text;
}

std::string LineTranslator::SetMemoryReport() const {
  const CatalogStats stats = catalog_->stats();
  return std::to_string(stats.open_models) + " models open, " + std::to_string(stats.open_bytes) +
         " bytes (peak " + std::to_string(stats.peak_open_bytes) + "); " + std::to_string(stats.opens) +
         " opened, " + std::to_string(stats.closes) + " closed for the budget";
}

}  // namespace edgemt::cli
