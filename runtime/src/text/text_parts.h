// A source text that the text layer translates as several sources: a
// paragraph's sentences (sentence_splitter.h) or an over-long text's parts
// (long_text.h); how it is cut, and its result joined from the parts'.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edgemt/text_result.h"

namespace edgemt {

// What a text was cut into, and what goes between the parts' translations.
struct TextParts {
  size_t first = 0;  // the first part's index among the call's sources
  size_t count = 0;  // 0: the text was translated whole
  // A paragraph's: glue[k] before part k, glue[count] after the last (its
  // own whitespace, line breaks as spaces: a translation is one line).
  // Empty for a long text's parts: their non-empty translations are
  // joined with a space.
  std::vector<std::string> glue;
  // The words of each part's source text, as they stand in the text
  // (what spaces separate): the joined word alignments count from them.
  std::vector<size_t> words;
  // A paragraph's: a target-language token it starts with (">>deu<<", as
  // multilingual Marian models take one), put before each later sentence
  // too (one more word there, left out of the joined word alignments).
  std::string carried;
};

// A paragraph's sentences appended to `sentences`, with the whitespace
// around them (SplitTextSentences with the model's `language`); a text that
// is one sentence and nothing else (or blank) is appended whole, and
// parts->count stays 0: it is translated as it is.
void SplitParagraph(const std::string& text, std::string_view language, std::vector<std::string>* sentences,
                    TextParts* parts);

// results[parts.first ..+ parts.count) joined into *out: each hypothesis's
// texts joined (TextParts), its ids, log-probabilities and confidences
// one after the other, its score their sum, its confidence that of all
// its log-probabilities, its word alignments moved to the joined words
// (parts.words). Its token-level
// alignments are positions in the parts' source ids one after the other
// (part_ids[p]: part p's source ids as translated; null: they are left
// out). The first failed part's status fails the whole; the parts'
// warnings are kept, each once.
void JoinParts(const std::vector<TextResult>& results, const TextParts& parts, const std::vector<size_t>* part_ids,
               TextResult* out);

}  // namespace edgemt
