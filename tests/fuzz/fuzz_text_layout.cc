// libFuzzer target of the document and HTML layers' text handling, model-free:
// whatever the bytes, the document layout and the HTML layout give the
// input back byte for byte, sentences start and end on non-space
// characters inside their line, inline elements surround spans of their
// flow's text and nest, long-text parts fit their limit, and escaping
// then decoding gives text back. Built and run by tests/fuzz/run.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "document/document_layout.h"
#include "html/html_layout.h"
#include "html/html_scanner.h"
#include "text/long_text.h"
#include "text/sentence_splitter.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();  // a broken promise: libFuzzer reports it
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace edgemt;

  std::string rebuilt;
  for (const DocumentPiece& piece : LayOutDocument(text, "en")) {
    Require(piece.span.begin <= piece.span.end && piece.span.end <= text.size());
    Require(piece.span.begin == rebuilt.size());
    rebuilt.append(text.substr(piece.span.begin, piece.span.end - piece.span.begin));
    if (piece.sentence) {
      Require(piece.span.begin < piece.span.end);
      size_t length = 0;
      Require(!IsUnicodeSpace(DecodeUtf8(text, piece.span.begin, &length)));
    }
  }
  Require(rebuilt == text);

  const HtmlLayout layout = LayOutHtml(text);
  rebuilt.clear();
  for (const HtmlSegment& segment : layout.segments) {
    Require(segment.flow < static_cast<int>(layout.flows.size()));
    rebuilt.append(segment.flow < 0 ? segment.verbatim : layout.flows[static_cast<size_t>(segment.flow)].raw);
  }
  Require(rebuilt == text);
  for (const HtmlFlow& flow : layout.flows) {
    for (size_t e = 0; e < flow.elements.size(); ++e) {
      const HtmlElement& element = flow.elements[e];
      Require(element.begin <= element.end && element.end <= flow.text.size());
      Require(element.parent < static_cast<int>(e));
      if (element.parent >= 0) {
        const HtmlElement& parent = flow.elements[static_cast<size_t>(element.parent)];
        Require(parent.begin <= element.begin && element.end <= parent.end);
      }
    }
  }

  Require(DecodeHtmlText(EscapeHtmlText(text)) == text);

  const size_t limit = size > 0 ? 1 + data[0] % 40 : 1;
  const std::string_view head = text.substr(0, 2048);
  for (const std::string& part : SplitLongText(head, limit, [](std::string_view s) { return s.size(); })) {
    size_t length = 0;
    DecodeUtf8(part, 0, &length);
    Require(!part.empty());
    Require(part.size() <= limit || length == part.size());
  }
  return 0;
}
