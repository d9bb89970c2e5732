// Where the inline elements of a translated flow go (html.h): around the
// target words aligned to the source words they surrounded, nested as
// their tags are. Every query is logarithmic in the sentence, so that a
// hostile page (a 1 MB sentence, 100,000 tags) costs no more than its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "html/html_layout.h"
#include "text/sentence_splitter.h"

namespace edgemt {

// One sentence of a flow, translated: where its source and its translation
// lie, and which target words each source word aligns to.
struct PlacedSentence {
  TextSpan source;                          // in the flow's text
  TextSpan target;                          // in the flow's output text
  std::vector<TextSpan> source_words;       // in the flow's text, in order
  std::vector<TextSpan> target_words;       // in the flow's output text, in order
  std::vector<std::vector<int32_t>> links;  // per source word, its target words

  // Filled by Index(): per target word, the first and last source word
  // linked to it (-1: none); per source word, the next one at or after it
  // that has links (size: none); and a tree of each source word's lowest
  // and highest linked target word, for ranges of source words.
  std::vector<int32_t> first_source, last_source;
  std::vector<size_t> next_linked;
  std::vector<int32_t> tree_low, tree_high;
  void Index();
};

// The output span of each element (flow.elements' order), nested: each
// inside its parent's, after its previous sibling's, without spaces at its
// edges. `sentences` are in the flow's order.
std::vector<TextSpan> PlaceElements(const HtmlFlow& flow, const std::vector<PlacedSentence>& sentences,
                                    const std::string& output);

}  // namespace edgemt
