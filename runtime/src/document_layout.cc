#include "document_layout.h"

namespace edgemt {

std::vector<DocumentPiece> LayOutDocument(std::string_view document, std::string_view language) {
  std::vector<DocumentPiece> pieces;
  size_t kept_from = 0;  // start of the bytes not yet in a piece
  auto keep_until = [&](size_t end) {
    if (end > kept_from) pieces.push_back({{kept_from, end}, false});
    kept_from = end;
  };
  size_t line_start = 0;
  while (line_start < document.size()) {
    size_t line_end = document.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = document.size();
    size_t content_end = line_end;
    if (content_end > line_start && document[content_end - 1] == '\r') --content_end;
    const std::string_view line = document.substr(line_start, content_end - line_start);
    for (const TextSpan& s : SplitSentences(line, language)) {
      keep_until(line_start + s.begin);
      pieces.push_back({{line_start + s.begin, line_start + s.end}, true});
      kept_from = line_start + s.end;
    }
    line_start = line_end + 1;
  }
  keep_until(document.size());
  return pieces;
}

}  // namespace edgemt
