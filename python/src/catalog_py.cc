#include "catalog_py.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "edgemt/catalog.h"
#include "edgemt/language_id.h"
#include "status_exception.h"

namespace py = pybind11;

namespace edgemt_python {
namespace {

edgemt::TextFormat FormatOf(const std::string& format) {
  if (format == "text") return edgemt::TextFormat::kText;
  if (format == "document") return edgemt::TextFormat::kDocument;
  if (format == "html") return edgemt::TextFormat::kHtml;
  throw py::value_error("format is 'text', 'document' or 'html', not '" + format + "'");
}

std::unique_ptr<edgemt::Catalog> OpenCatalog(const std::string& directory, const std::string& pivot,
                                             double memory_budget_mb, int threads, int max_batch_size) {
  if (!(memory_budget_mb >= 0)) throw py::value_error("memory_budget_mb must not be negative");
  if (threads < 0 || max_batch_size < 1) throw py::value_error("threads >= 0 and max_batch_size >= 1");
  edgemt::CatalogOptions options;
  options.pivot_language = pivot;
  options.memory_budget_bytes = static_cast<size_t>(memory_budget_mb * (1 << 20));
  options.translator.translator.num_threads = threads;
  options.translator.translator.max_batch_size = max_batch_size;
  auto catalog = edgemt::Catalog::Open(directory, options);
  if (!catalog.ok()) RaiseStatus(catalog.status());
  return std::move(catalog.value());
}

// Texts in, results out; a text's failure is its result's `error`.
std::vector<edgemt::CatalogResult> Translate(edgemt::Catalog& catalog, const std::vector<std::string>& texts,
                                             const std::string& from, const std::string& to,
                                             const std::string& format, int alternatives) {
  edgemt::CatalogRequest request;
  request.from = from;
  request.to = to;
  request.format = FormatOf(format);
  request.alternatives = alternatives;
  std::vector<edgemt::CatalogResult> results;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = catalog.Translate(texts.data(), texts.size(), request, &results);
  }
  if (!status.ok()) RaiseStatus(status);
  return results;
}

}  // namespace

void BindCatalog(py::module_& m) {
  py::class_<edgemt::CatalogResult>(m, "CatalogResult", "One text's translation through a model set.")
      .def_readonly("text", &edgemt::CatalogResult::text)
      .def_readonly("alternatives", &edgemt::CatalogResult::alternatives)
      .def_readonly("source_language", &edgemt::CatalogResult::source_language,
                    "The language given, or the one detected with from_='auto'.")
      .def_readonly("language_confidence", &edgemt::CatalogResult::language_confidence, "0-100; 100 when given.")
      .def_readonly("models", &edgemt::CatalogResult::models, "The model files it went through, in order.")
      .def_readonly("warning", &edgemt::CatalogResult::warning)
      .def_property_readonly(
          "error", [](const edgemt::CatalogResult& r) { return r.status.ok() ? std::string() : r.status.message(); },
          "Why this text failed ('' when it did not).")
      .def("__repr__", [](const edgemt::CatalogResult& r) {
        return "CatalogResult(" + py::repr(py::str(r.text)).cast<std::string>() + ", " + r.source_language + ")";
      });
  py::class_<edgemt::Catalog>(m, "Catalog",
                              "A folder of model files, each a language pair (edgemt/catalog.h): translate(texts,\n"
                              "from_, to) through the pair's model, or two through the pivot language.")
      .def(py::init(&OpenCatalog), py::arg("directory"), py::arg("pivot_language") = "en",
           py::arg("memory_budget_mb") = 0.0, py::arg("threads") = 0, py::arg("max_batch_size") = 16)
      .def("languages", &edgemt::Catalog::languages, "Every language some file reads or writes, sorted.")
      .def(
          "targets", [](const edgemt::Catalog& c, const std::string& from) { return c.targets(from); },
          py::arg("from_"), "The languages from_ translates to, directly or through the pivot.")
      .def(
          "route",
          [](const edgemt::Catalog& c, const std::string& from, const std::string& to) {
            auto route = c.Route(from, to);
            if (!route.ok()) RaiseStatus(route.status());
            std::vector<std::string> paths;
            for (size_t index : route.value()) paths.push_back(c.models()[index].path);
            return paths;
          },
          py::arg("from_"), py::arg("to"), "The model files from_ -> to goes through (OSError when none).")
      .def(
          "models",
          [](const edgemt::Catalog& c) {
            py::list models;
            for (const edgemt::CatalogModel& model : c.models()) {
              py::dict d;
              d["path"] = model.path;
              d["source_language"] = model.source_language;
              d["target_language"] = model.target_language;
              d["file_size"] = model.file_size;
              models.append(d);
            }
            return models;
          },
          "The set's files: path, source_language, target_language, file_size.")
      .def("translate_batch", &Translate, py::arg("texts"), py::arg("from_"), py::arg("to"),
           py::arg("format") = "text", py::arg("alternatives") = 0,
           "Texts to CatalogResults; format 'text' (a paragraph), 'document' (lines kept) or 'html'.")
      .def(
          "translate",
          [](edgemt::Catalog& c, const std::string& text, const std::string& from, const std::string& to,
             const std::string& format) {
            auto results = Translate(c, {text}, from, to, format, 0);
            if (!results[0].status.ok()) RaiseStatus(results[0].status);
            return results[0].text;
          },
          py::arg("text"), py::arg("from_"), py::arg("to"), py::arg("format") = "text",
          "One text to its translation (raises what it failed with).")
      .def(
          "stats",
          [](const edgemt::Catalog& c) {
            const edgemt::CatalogStats s = c.stats();
            py::dict d;
            d["open_models"] = s.open_models;
            d["open_bytes"] = s.open_bytes;
            d["peak_open_bytes"] = s.peak_open_bytes;
            d["opens"] = s.opens;
            d["closes"] = s.closes;
            return d;
          },
          "open_models, open_bytes, peak_open_bytes, opens, closes (for the memory budget).");
  m.def(
      "detect_language",
      [](const std::string& text, bool html) {
        std::vector<edgemt::DetectedLanguage> candidates;
        const edgemt::Status status = edgemt::DetectLanguage(text, html, &candidates);
        if (!status.ok() && status.code() != edgemt::StatusCode::kNotFound) RaiseStatus(status);
        py::list out;
        for (const auto& c : candidates) out.append(py::make_tuple(c.code, c.confidence));
        return out;
      },
      py::arg("text"), py::arg("html") = false,
      "The text's likely languages, best first: [(code, confidence 0-100)], [] when it cannot tell.");
}

}  // namespace edgemt_python
