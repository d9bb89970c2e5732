#include "translator_py.h"

#include <pybind11/pybind11.h>

#include <tuple>
#include <utility>

#include "edgemt/document.h"
#include "edgemt/html.h"

#include "status_exception.h"

namespace py = pybind11;

namespace edgemt_python {
namespace {

TranslationResult Convert(const edgemt::TextResult& result) {
  TranslationResult out;
  for (const edgemt::TextHypothesis& h : result.hypotheses) {
    out.hypotheses.push_back(h.text);
    out.scores.push_back(h.score);
    out.ids.push_back(h.ids);
    out.token_log_probs.push_back(h.token_log_probs);
    out.ended_with_eos.push_back(h.ended_with_eos);
    out.alignments.push_back(h.alignments);
    out.word_alignments.push_back(h.word_alignments);
    out.confidences.push_back(h.confidence);
    out.word_confidences.push_back(h.word_confidences);
  }
  out.warning = result.warning;
  return out;
}

// Raises the first failure: the call's own, else the first source's.
std::vector<TranslationResult> Collect(const edgemt::Status& status, const std::vector<edgemt::TextResult>& results,
                                       size_t first_index) {
  if (!status.ok()) RaiseStatus(status);
  std::vector<TranslationResult> out;
  out.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].status.ok()) RaiseStatus(results[i].status, "source " + std::to_string(first_index + i));
    out.push_back(Convert(results[i]));
  }
  return out;
}

}  // namespace

Model::Model(const std::string& path) {
  edgemt::Status status;
  {
    py::gil_scoped_release released;  // mapping and verifying a large file takes a while
    auto loaded = edgemt::Model::Load(path);
    if (loaded.ok()) model = std::move(loaded).value();
    else status = loaded.status();
  }
  if (!status.ok()) RaiseStatus(status);
}

namespace {

edgemt::Sentences SentencesOf(bool split_sentences) {
  return split_sentences ? edgemt::Sentences::kSplit : edgemt::Sentences::kOnePerText;
}

}  // namespace

Translator::Translator(const Model& model, const edgemt::TextTranslatorOptions& options) {
  edgemt::Status status;
  {
    py::gil_scoped_release released;  // packing the weights takes a while
    auto created = edgemt::TextTranslator::Create(model.model, options);
    if (created.ok()) translator_ = std::move(created).value();
    else status = created.status();
  }
  if (!status.ok()) RaiseStatus(status);
}

std::vector<TranslationResult> Translator::TranslateTexts(const std::vector<std::string>& texts,
                                                          const std::vector<std::string>& target_prefixes,
                                                          const edgemt::DecodeOptions& decode, bool return_scores,
                                                          size_t first_index, bool split_sentences) {
  std::vector<edgemt::TextResult> results;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = translator_->TranslateTexts(texts.data(), texts.size(), decode, &results, return_scores,
                                         target_prefixes.empty() ? nullptr : target_prefixes.data(),
                                         SentencesOf(split_sentences));
  }
  return Collect(status, results, first_index);
}

std::vector<TranslationResult> Translator::TranslateIds(std::vector<std::vector<int32_t>> sources,
                                                        const std::vector<std::vector<int32_t>>& target_prefixes,
                                                        const edgemt::DecodeOptions& decode, bool return_scores,
                                                        size_t first_index) {
  // Framed as a text's ids are; no ids: a blank source, as an empty text.
  for (std::vector<int32_t>& ids : sources) edgemt::FrameSource(translator_->model().config(), &ids);
  std::vector<edgemt::TextResult> results;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = translator_->TranslateIds(sources.data(), sources.size(), decode, &results, return_scores,
                                       target_prefixes.empty() ? nullptr : target_prefixes.data());
  }
  return Collect(status, results, first_index);
}

std::vector<TranslationResult> Translator::ScoreTexts(const std::vector<std::string>& sources,
                                                      const std::vector<std::string>& targets) {
  std::vector<edgemt::TextResult> results;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = translator_->ScoreTexts(sources.data(), targets.data(), sources.size(), &results);
  }
  return Collect(status, results, 0);
}

std::vector<TranslationResult> Translator::ScoreIds(std::vector<std::vector<int32_t>> sources,
                                                    const std::vector<std::vector<int32_t>>& targets) {
  for (std::vector<int32_t>& ids : sources) edgemt::FrameSource(translator_->model().config(), &ids);
  std::vector<edgemt::TextResult> results;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = translator_->ScoreIds(sources.data(), targets.data(), sources.size(), &results);
  }
  return Collect(status, results, 0);
}

std::tuple<std::string, size_t, std::string> Translator::TranslateDocument(const std::string& text,
                                                                           const edgemt::DecodeOptions& decode,
                                                                           bool html) {
  edgemt::DocumentResult result;
  edgemt::Status status;
  {
    py::gil_scoped_release released;
    status = html ? edgemt::TranslateHtml(*translator_, text, decode, &result)
                  : edgemt::TranslateDocument(*translator_, text, decode, &result);
  }
  if (!status.ok()) RaiseStatus(status);
  return {std::move(result.text), result.failed, result.first_failure.message()};
}

std::unique_ptr<PieceStream> Translator::StartStream(std::string text, const edgemt::DecodeOptions& decode,
                                                     bool split_sentences) {
  return std::make_unique<PieceStream>(
      [this, text = std::move(text), decode, split_sentences](const edgemt::PieceCallback& on_piece) {
        // On the worker: the translator is busy until the stream ends or stops.
        edgemt::TextResult result;  // its text is the pieces' concatenation, which the consumer has
        return translator_->TranslateStreaming(text, decode, on_piece, &result, SentencesOf(split_sentences));
      });
}

std::unique_ptr<PieceStream> Translator::StartDocumentStream(std::string text, const edgemt::DecodeOptions& decode) {
  return std::make_unique<PieceStream>(
      [this, text = std::move(text), decode](const edgemt::PieceCallback& on_piece) {
        edgemt::DocumentResult result;  // its text is the pieces' concatenation, which the consumer has
        return edgemt::TranslateDocumentStreaming(*translator_, text, decode, on_piece, &result);
      });
}

}  // namespace edgemt_python
