// Documents: any text (paragraphs, line breaks, blank lines, indentation,
// CRLF, Unicode spaces) translated sentence by sentence and put back with
// the document's own whitespace and line structure.
//
// Every line is split into sentences (SplitSentences' rules, with the
// model's source language for abbreviations); the sentences of the whole
// document are translated in one TextTranslator call (so in length-sorted
// batches), and each takes its source's place. Everything that is not a
// sentence stays byte for byte: line breaks ("\n", "\r\n"), blank lines,
// each line's leading and trailing whitespace, the whitespace between two
// sentences. A translation is one line, so the output has exactly the
// input's lines. A sentence is translated as it would be alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgemt/decode_options.h"
#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt {

struct DocumentResult {
  std::string text;       // the translated document
  size_t sentences = 0;   // how many sentences it had
  // Sentences whose translation failed (e.g. too long with LongInput::kError):
  // their source text stands in their place, so nothing is lost.
  size_t failed = 0;
  Status first_failure;   // the first of them, ok when none
};

// The status fails only for what concerns the whole document (no tokenizer,
// decoding options the translator refuses); then result->text is empty.
// The best hypothesis of each sentence is used; target prefixes and
// alternatives do not apply to documents (kInvalidArgument).
Status TranslateDocument(TextTranslator& translator, std::string_view document, const DecodeOptions& decode,
                         DocumentResult* result);

// The same, sentence by sentence: the sentences are translated in document
// order, max_batch_size at a time, and on_piece gets the output as it is
// ready (kept text, translations, failed sentences' sources), in order;
// the pieces add up to exactly TranslateDocument's text (result->text has
// them too). When on_piece returns false, translation stops there.
Status TranslateDocumentStreaming(TextTranslator& translator, std::string_view document, const DecodeOptions& decode,
                                  const PieceCallback& on_piece, DocumentResult* result);

}  // namespace edgemt
