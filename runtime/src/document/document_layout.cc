#include "document/document_layout.h"

namespace edgemt {

std::vector<DocumentPiece> LayOutDocument(std::string_view document, std::string_view language) {
  std::vector<DocumentPiece> pieces;
  size_t kept_from = 0;  // start of the bytes not yet in a piece
  for (const TextSpan& s : SplitTextSentences(document, language)) {
    if (s.begin > kept_from) pieces.push_back({{kept_from, s.begin}, false});
    pieces.push_back({s, true});
    kept_from = s.end;
  }
  if (document.size() > kept_from) pieces.push_back({{kept_from, document.size()}, false});
  return pieces;
}

}  // namespace edgemt
