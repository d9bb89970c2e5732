// A document cut into pieces (runtime/src/document/document_layout.h) is
// the document again, whitespace and line breaks included, with sentences
// only inside lines.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "document/document_layout.h"
#include "lcg.h"

TEST_CASE("a document's pieces are the document, sentences only inside lines") {
  edgemt::testing::Lcg random(28);
  const std::string_view parts[] = {"A dog runs.", " ", "  ", "\t", "\u00A0", "\u3000", "\n", "\r\n", "\n\n",
                                    "Two women sit!", "Mr. Smith", "no end", "?", "\xFF", "\r"};
  for (int round = 0; round < 2000; ++round) {
    std::string document;
    const int count = static_cast<int>(random.Next() % 12);
    for (int i = 0; i < count; ++i) document += parts[random.Next() % (sizeof(parts) / sizeof(parts[0]))];
    const std::vector<edgemt::DocumentPiece> pieces = edgemt::LayOutDocument(document, "en");
    std::string joined;
    size_t expected_begin = 0;
    for (const edgemt::DocumentPiece& piece : pieces) {
      REQUIRE(piece.span.begin == expected_begin);
      REQUIRE(piece.span.end > piece.span.begin);
      const std::string_view text = std::string_view(document).substr(piece.span.begin, piece.span.end - piece.span.begin);
      if (piece.sentence) {
        CHECK(text.find('\n') == std::string_view::npos);
        size_t length = 0;
        CHECK(!edgemt::IsUnicodeSpace(edgemt::DecodeUtf8(text, 0, &length)));
        CHECK(text.back() != ' ');
        CHECK(text.back() != '\r');
      }
      joined += text;
      expected_begin = piece.span.end;
    }
    CHECK(joined == document);
  }
}
