// Word-level views of a translation (TextHypothesis): which source words
// each target word aligns to, and how confident the model was, per word
// and per sentence. Words are what spaces separate in the texts: a
// tokenizer says which ids begin one (Tokenizer::WordStarts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "text/sentence_splitter.h"

namespace edgemt {

// The words of a text (what Unicode spaces separate), as byte spans.
std::vector<TextSpan> WordSpans(std::string_view text);

// The word of each id given which ids begin a word; ids marked in `skip`
// (null: none) belong to no word (-1). An id before any start opens word 0.
std::vector<int32_t> WordsOf(const std::vector<uint8_t>& starts, const std::vector<uint8_t>* skip = nullptr);

// (source word, target word) for each target id's aligned source id, both
// on words, without repeats, sorted by target word then source word (the
// order of Moses' and fast_align's "i-j" lists is by source there; these
// pairs are printed source first). Ids of no word are left out.
std::vector<std::pair<int32_t, int32_t>> WordAlignments(const std::vector<int32_t>& source_words,
                                                        const std::vector<int32_t>& target_words,
                                                        const std::vector<int32_t>& alignments);

// exp(mean log-probability): of all `log_probs` (the ids and </s>) for the
// sentence; of each target word's ids for that word (`words` words).
float SentenceConfidence(const std::vector<float>& log_probs);
std::vector<float> WordConfidences(const std::vector<float>& log_probs, const std::vector<int32_t>& target_words,
                                   size_t words);

}  // namespace edgemt
