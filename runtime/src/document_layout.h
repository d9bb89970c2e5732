// A document cut into what is translated (sentences) and what is kept byte
// for byte (line breaks, blank lines, indentation, the spaces between
// sentences), in order: concatenating every piece gives the document back.
#pragma once

#include <string_view>
#include <vector>

#include "sentence_splitter.h"

namespace edgemt {

struct DocumentPiece {
  TextSpan span;
  bool sentence = false;  // else kept as it is
};

// Lines end at "\n" (a "\r" before it belongs to the line break); each
// line's sentences come from SplitSentences(line, language).
std::vector<DocumentPiece> LayOutDocument(std::string_view document, std::string_view language);

}  // namespace edgemt
