// A document cut into what is translated (sentences) and what is kept byte
// for byte (line breaks, blank lines, indentation, the spaces between
// sentences), in order: concatenating every piece gives the document back.
#pragma once

#include <string_view>
#include <vector>

#include "text/sentence_splitter.h"

namespace edgemt {

struct DocumentPiece {
  TextSpan span;
  bool sentence = false;  // else kept as it is
};

// The sentences are SplitTextSentences(document, language)'s: each line's,
// and everything between them is kept.
std::vector<DocumentPiece> LayOutDocument(std::string_view document, std::string_view language);

}  // namespace edgemt
