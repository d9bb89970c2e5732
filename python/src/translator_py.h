// What the Python classes Model, Translator and TranslationResult hold: a
// TextTranslator (which serializes its calls), called without the GIL, with its statuses
// raised as Python exceptions (status_exception.h). Every method except
// the constructors expects the GIL on entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/text_translator.h"
#include "piece_stream.h"

namespace edgemt_python {

// A model file, memory-mapped and verified; the translators made from it
// share it and the weights packed for XNNPACK.
struct Model {
  explicit Model(const std::string& path);  // raises OSError / RuntimeError
  std::shared_ptr<const edgemt::Model> model;
};

// One source's translations, as Python sees them (hypotheses best first).
struct TranslationResult {
  std::vector<std::string> hypotheses;
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<float>> token_log_probs;
  std::vector<bool> ended_with_eos;
  std::vector<std::vector<int32_t>> alignments;
  std::vector<std::vector<std::pair<int32_t, int32_t>>> word_alignments;
  std::vector<float> confidences;
  std::vector<std::vector<float>> word_confidences;
  std::string warning;
};

class Translator {
 public:
  Translator(const Model& model, const edgemt::TextTranslatorOptions& options);  // raises

  // Results in order; a source that failed raises ("source N: ...", N
  // counting from first_index, so that a long stream names the line).
  // target_prefixes: empty, or one per source (TextTranslator's).
  std::vector<TranslationResult> TranslateTexts(const std::vector<std::string>& texts,
                                                const std::vector<std::string>& target_prefixes,
                                                const edgemt::DecodeOptions& decode, bool return_scores,
                                                size_t first_index, bool split_sentences);
  // Sources without </s> (it is added here).
  std::vector<TranslationResult> TranslateIds(std::vector<std::vector<int32_t>> sources,
                                              const std::vector<std::vector<int32_t>>& target_prefixes,
                                              const edgemt::DecodeOptions& decode, bool return_scores,
                                              size_t first_index);
  // Scores targets[i] as the translation of sources[i] (TextTranslator::ScoreTexts).
  std::vector<TranslationResult> ScoreTexts(const std::vector<std::string>& sources,
                                            const std::vector<std::string>& targets);
  std::vector<TranslationResult> ScoreIds(std::vector<std::vector<int32_t>> sources,
                                          const std::vector<std::vector<int32_t>>& targets);
  // A document (edgemt/document.h; html: edgemt/html.h): (its translation, how many sentences
  // failed, why the first did); raises for what concerns the whole document.
  std::tuple<std::string, size_t, std::string> TranslateDocument(const std::string& text,
                                                                 const edgemt::DecodeOptions& decode, bool html);
  // Starts translating text on a worker thread; its pieces come out of the
  // stream. The stream refers to this translator, which must outlive it.
  std::unique_ptr<PieceStream> StartStream(std::string text, const edgemt::DecodeOptions& decode,
                                           bool split_sentences);
  // A document's translation sentence by sentence (TranslateDocumentStreaming).
  std::unique_ptr<PieceStream> StartDocumentStream(std::string text, const edgemt::DecodeOptions& decode);

  const edgemt::TextTranslator& text_translator() const { return *translator_; }

 private:
  // One translation at a time: a second caller waits in it without the GIL.
  std::unique_ptr<edgemt::TextTranslator> translator_;
};

}  // namespace edgemt_python
