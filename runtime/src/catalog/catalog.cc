#include "edgemt/catalog.h"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "catalog/open_models.h"
#include "catalog/route.h"
#include "edgemt/document.h"
#include "edgemt/html.h"
#include "edgemt/language_id.h"

namespace edgemt {
namespace {

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

bool EndsWith(const std::string& name, std::string_view tail) {
  return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

// Texts going through the same hops: indices into the request's texts.
struct Group {
  std::vector<size_t> items;
  std::vector<std::string> texts;
};

}  // namespace

struct Catalog::Impl {
  CatalogOptions options;
  std::vector<CatalogModel> models;
  std::vector<std::string> skipped;
  std::unique_ptr<OpenModels> open;

  // One hop: every text of `group` through model `index`; a text that
  // fails leaves the group (its result says why).
  void Hop(size_t index, const CatalogRequest& request, bool last, Group* group,
           std::vector<CatalogResult>* results);
  void HopTexts(OpenModels::Lease& lease, const CatalogRequest& request, bool last, Group* group,
                std::vector<CatalogResult>* results);
};

Catalog::Catalog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Catalog::~Catalog() = default;

Result<std::unique_ptr<Catalog>> Catalog::Open(const std::string& directory, const CatalogOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->options.pivot_language = Lowercase(options.pivot_language);
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) return Status(StatusCode::kNotFound, "cannot open the model folder " + directory);
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (EndsWith(name, ".edgemt")) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = directory + "/" + name;
    Result<std::shared_ptr<const Model>> model = Model::Load(path);
    if (!model.ok()) {
      impl->skipped.push_back(name + ": " + model.status().message());
      continue;
    }
    CatalogModel entry;
    entry.path = path;
    entry.source_language = Lowercase(model.value()->source_language());
    entry.target_language = Lowercase(model.value()->target_language());
    entry.file_size = model.value()->file_size();
    if (entry.source_language.empty() || entry.target_language.empty()) {
      impl->skipped.push_back(name + ": the file names no language pair (edgemt-convert --amend sets it)");
      continue;
    }
    impl->models.push_back(std::move(entry));
  }
  if (impl->models.empty())
    return Status(StatusCode::kNotFound, "no model file with a language pair in " + directory);
  impl->open = std::make_unique<OpenModels>(impl->models, impl->options);
  return std::unique_ptr<Catalog>(new Catalog(std::move(impl)));
}

Result<std::unique_ptr<Catalog>> Catalog::FromModels(const std::vector<std::shared_ptr<const Model>>& models,
                                                     const std::vector<std::string>& names,
                                                     const CatalogOptions& options) {
  if (models.size() != names.size()) return Status(StatusCode::kInvalidArgument, "one name per model");
  if (models.empty()) return Status(StatusCode::kInvalidArgument, "no model");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->options.pivot_language = Lowercase(options.pivot_language);
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i] == nullptr) return Status(StatusCode::kInvalidArgument, names[i] + ": no model");
    CatalogModel entry;
    entry.path = names[i];
    entry.source_language = Lowercase(models[i]->source_language());
    entry.target_language = Lowercase(models[i]->target_language());
    entry.file_size = models[i]->file_size();
    entry.loaded = models[i];
    if (entry.source_language.empty() || entry.target_language.empty())
      return Status(StatusCode::kInvalidArgument, names[i] + ": the model names no language pair");
    impl->models.push_back(std::move(entry));
  }
  impl->open = std::make_unique<OpenModels>(impl->models, impl->options);
  return std::unique_ptr<Catalog>(new Catalog(std::move(impl)));
}

const std::vector<CatalogModel>& Catalog::models() const { return impl_->models; }
const std::vector<std::string>& Catalog::skipped() const { return impl_->skipped; }
const CatalogOptions& Catalog::options() const { return impl_->options; }
CatalogStats Catalog::stats() const { return impl_->open->stats(); }

std::vector<std::string> Catalog::languages() const {
  std::set<std::string> languages;
  for (const CatalogModel& model : impl_->models) {
    languages.insert(model.source_language);
    languages.insert(model.target_language);
  }
  return {languages.begin(), languages.end()};
}

std::vector<std::string> Catalog::targets(std::string_view from) const {
  std::vector<std::string> targets;
  for (const std::string& to : languages()) {
    if (to != from && FindRoute(impl_->models, impl_->options.pivot_language, from, to).ok()) targets.push_back(to);
  }
  return targets;
}

Result<std::vector<size_t>> Catalog::Route(std::string_view from, std::string_view to) const {
  return FindRoute(impl_->models, impl_->options.pivot_language, Lowercase(from), Lowercase(to));
}

void Catalog::Impl::HopTexts(OpenModels::Lease& lease, const CatalogRequest& request, bool last, Group* group,
                             std::vector<CatalogResult>* results) {
  DecodeOptions decode = lease.decode();
  const bool alternatives = last && request.alternatives > 0;
  if (alternatives) {
    decode.num_hypotheses = request.alternatives + 1;
    decode.beam_size = std::max(decode.beam_size, decode.num_hypotheses);
  }
  std::vector<TextResult> translated;
  lease.translator().TranslateTexts(group->texts.data(), group->texts.size(), decode, &translated);
  Group next;
  for (size_t i = 0; i < group->items.size(); ++i) {
    CatalogResult& result = (*results)[group->items[i]];
    const TextResult& text = translated[i];
    if (!text.warning.empty()) result.warning = text.warning;
    if (!text.status.ok() || text.hypotheses.empty()) {
      result.status = text.status.ok() ? Status(StatusCode::kInternal, "no translation") : text.status;
      continue;
    }
    if (alternatives) {
      for (size_t h = 1; h < text.hypotheses.size(); ++h) result.alternatives.push_back(text.hypotheses[h].text);
    }
    next.items.push_back(group->items[i]);
    next.texts.push_back(text.hypotheses[0].text);
  }
  *group = std::move(next);
}

void Catalog::Impl::Hop(size_t index, const CatalogRequest& request, bool last, Group* group,
                        std::vector<CatalogResult>* results) {
  Result<OpenModels::Lease> lease = open->Acquire(index);
  if (!lease.ok()) {
    for (size_t item : group->items) (*results)[item].status = lease.status();
    group->items.clear();
    group->texts.clear();
    return;
  }
  for (size_t item : group->items) (*results)[item].models.push_back(models[index].path);
  if (request.format == TextFormat::kText) {
    HopTexts(lease.value(), request, last, group, results);
    return;
  }
  for (size_t i = 0; i < group->items.size(); ++i) {
    DocumentResult document;
    const Status status = request.format == TextFormat::kHtml
                              ? TranslateHtml(lease.value().translator(), group->texts[i], lease.value().decode(), &document)
                              : TranslateDocument(lease.value().translator(), group->texts[i], lease.value().decode(),
                                                  &document);
    CatalogResult& result = (*results)[group->items[i]];
    if (!status.ok()) {
      result.status = status;
      continue;
    }
    if (document.failed > 0)
      result.warning = std::to_string(document.failed) + " of " + std::to_string(document.sentences) +
                       " sentences kept their source text: " + document.first_failure.message();
    group->texts[i] = std::move(document.text);
  }
  Group next;
  for (size_t i = 0; i < group->items.size(); ++i) {
    if (!(*results)[group->items[i]].status.ok()) continue;
    next.items.push_back(group->items[i]);
    next.texts.push_back(std::move(group->texts[i]));
  }
  *group = std::move(next);
}

Status Catalog::Translate(const std::string* texts, size_t count, const CatalogRequest& request,
                          std::vector<CatalogResult>* results) {
  results->assign(count, CatalogResult{});
  if (request.alternatives < 0 || request.alternatives > impl_->options.max_alternatives) {
    const Status status(StatusCode::kInvalidArgument, "alternatives must be between 0 and " +
                                                          std::to_string(impl_->options.max_alternatives));
    for (CatalogResult& result : *results) result.status = status;
    return status;
  }
  const std::string from = Lowercase(request.from), to = Lowercase(request.to);
  std::map<std::string, Group> groups;  // by source language
  for (size_t i = 0; i < count; ++i) {
    CatalogResult& result = (*results)[i];
    if (from != "auto") {
      result.source_language = from;
      result.language_confidence = 100;
    } else {
      std::vector<DetectedLanguage> detected;
      const Status status = DetectLanguage(texts[i], request.format == TextFormat::kHtml, &detected);
      if (!status.ok()) {
        result.status = status;
        continue;
      }
      result.source_language = detected[0].code;
      result.language_confidence = detected[0].confidence;
    }
    Group& group = groups[result.source_language];
    group.items.push_back(i);
    group.texts.push_back(texts[i]);
  }
  for (auto& [source, group] : groups) {
    Result<std::vector<size_t>> route = Route(source, to);
    if (!route.ok()) {
      for (size_t item : group.items) (*results)[item].status = route.status();
      continue;
    }
    for (size_t hop = 0; hop < route.value().size() && !group.items.empty(); ++hop)
      impl_->Hop(route.value()[hop], request, hop + 1 == route.value().size(), &group, results);
    for (size_t i = 0; i < group.items.size(); ++i) (*results)[group.items[i]].text = std::move(group.texts[i]);
  }
  return Status::Ok();
}

}  // namespace edgemt
