// What the document and HTML layers (document.cc, html.cc) use of the
// text layer beyond its public calls: the document cache, and documents'
// rule for long sentences (split, unless LongInput::kError).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edgemt/decode_options.h"
#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt {

struct DocumentAccess {
  static Status TranslateSentences(TextTranslator& translator, const std::string* sentences, size_t count,
                                   const DecodeOptions& decode, std::vector<TextResult>* results) {
    return translator.TranslateTextsCached(sentences, count, decode, results, /*return_scores=*/false,
                                           /*target_prefixes=*/nullptr, translator.document_cache(),
                                           /*document=*/true, Sentences::kOnePerText);
  }
};

}  // namespace edgemt
