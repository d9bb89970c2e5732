// Turns input lines into output lines for edgemt-translate: parses ids or
// passes text to the library's TextTranslator (which the C API and Python
// use too), and formats the results so that every line gets exactly one
// output line (or --n-best lines): a bad line gets an empty line and a
// message, never the batch's fate.
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.h"
#include "cli/output.h"
#include "edgemt/catalog.h"
#include "edgemt/model.h"
#include "edgemt/text_translator.h"

namespace edgemt::cli {

class LineTranslator {
 public:
  // --model FILE, or --models DIR: a model set (line_translator_set.cc).
  static Result<std::unique_ptr<LineTranslator>> Create(const Options& options);

  // outputs->size() == lines.size() afterwards: each one line, or --n-best
  // N lines joined by '\n'. `first_line` numbers the lines in messages (1-based).
  void TranslateLines(const std::vector<std::string>& lines, size_t first_line, std::vector<std::string>* outputs);

  // --stream: one line, written to `out` piece by piece as it is produced
  // (the newline too); messages go to stderr as for TranslateLines. A
  // failed write stops decoding (out.failed()).
  void StreamLine(const std::string& line, size_t line_number, Output& out);

  // --document: a document's lines (with their line breaks) translated
  // sentence by sentence, with its own whitespace and lines; a sentence that
  // fails keeps its source text and gets a message. `first_line` as above.
  std::string TranslateDocument(const std::string& document, size_t first_line);
  // The same, written to `out` sentence by sentence as they are translated.
  void StreamDocument(const std::string& document, size_t first_line, Output& out);

  // --memory: the arena the work needed, and the one the limits would
  // (TextTranslatorOptions::plan_for_work), as one line for standard error.
  std::string MemoryReport() const;

 private:
  LineTranslator() = default;
  DecodeOptions Decoding() const;
  edgemt::Sentences Sentences() const;  // a line is a paragraph, unless --sentence-per-line
  // The output of input line `index` (0-based): one line, or --n-best lines.
  std::string Format(size_t index, const TextResult& result) const;
  // A hypothesis's text, or its ids with --output-ids.
  std::string TextOf(const TextHypothesis& h) const;
  // What a failed input line gives (no score).
  std::string Failed(size_t index) const;
  // What --alignments and --confidence append to a translation.
  std::string ExtrasOf(const TextHypothesis& h) const;
  // The next `count` lines of a side file (--target-prefix, --score), one
  // per input line; a line past its end fails with a message.
  void ReadSideLines(std::ifstream& file, const std::string& path, size_t count, size_t first_line,
                     std::vector<std::string>* lines, std::vector<Status>* missing);
  void ScoreLines(const std::vector<std::string>& lines, size_t first_line, std::vector<std::string>* outputs);
  // --models: the same calls through the set's Catalog.
  static Result<std::unique_ptr<LineTranslator>> CreateForSet(const Options& options);
  void TranslateLinesOfSet(const std::vector<std::string>& lines, size_t first_line,
                           std::vector<std::string>* outputs);
  std::string TranslateDocumentOfSet(const std::string& document, size_t first_line);
  std::string SetMemoryReport() const;

  Options options_;
  std::unique_ptr<TextTranslator> translator_;
  std::unique_ptr<Catalog> catalog_;  // --models
  std::ifstream prefixes_;  // --target-prefix
  std::ifstream targets_;   // --score
};

}  // namespace edgemt::cli
