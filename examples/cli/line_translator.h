// Turns input lines into output lines for edgemt-translate: tokenizes or
// parses ids, translates a batch, and gives every line exactly one output
// line: a bad line gets an empty line and a message, never the batch's fate.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/options.h"
#include "edgemt/model.h"
#include "edgemt/translator.h"
#ifdef EDGEMT_WITH_SENTENCEPIECE
#include "edgemt/tokenizer.h"
#endif

namespace edgemt::cli {

class LineTranslator {
 public:
  static Result<std::unique_ptr<LineTranslator>> Create(const Options& options);

  // outputs->size() == lines.size() afterwards: each one line, or --n-best
  // N lines joined by '\n'. `first_line` numbers the lines in messages (1-based).
  void TranslateLines(const std::vector<std::string>& lines, size_t first_line, std::vector<std::string>* outputs);

 private:
  LineTranslator() = default;
  Status SourceIds(const std::string& line, size_t line_number, std::vector<int32_t>* ids) const;
  Status OutputLine(const TokenIds& ids, std::string* line) const;
  // The output of input line `index` (0-based): one line, or --n-best lines.
  std::string Format(size_t index, const Hypothesis* hypotheses, size_t count, size_t line_number) const;
  // What a blank (score 0) or failed (no score) input line gives.
  std::string Empty(size_t index, bool failed) const;

  Options options_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Translator> translator_;
#ifdef EDGEMT_WITH_SENTENCEPIECE
  std::unique_ptr<Tokenizer> source_tokenizer_;
  std::unique_ptr<Tokenizer> target_tokenizer_;
#endif
};

}  // namespace edgemt::cli
