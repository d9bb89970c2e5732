// The document layer's pieces (runtime/src/sentence_splitter.h,
// document_layout.h): where sentences end, and that a document cut into
// pieces is the document again, whitespace and line breaks included.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "document_layout.h"
#include "lcg.h"
#include "long_text.h"
#include "sentence_splitter.h"

namespace {

std::vector<std::string> Sentences(std::string_view text, std::string_view language = "en") {
  std::vector<std::string> out;
  for (const edgemt::TextSpan& s : edgemt::SplitSentences(text, language))
    out.emplace_back(text.substr(s.begin, s.end - s.begin));
  return out;
}

using Split = std::vector<std::string>;

}  // namespace

TEST_CASE("sentences end at terminators followed by space and a sentence start") {
  CHECK(Sentences("A dog runs. Two women sit.") == Split{"A dog runs.", "Two women sit."});
  CHECK(Sentences("  Is it? Yes!  No...  \t") == Split{"Is it?", "Yes!", "No..."});
  CHECK(Sentences("He said \"Stop.\" Then he left.") == Split{"He said \"Stop.\"", "Then he left."});
  CHECK(Sentences("(It rained.) We stayed.") == Split{"(It rained.)", "We stayed."});
  CHECK(Sentences("It cost 3.50 dollars. 2 men paid.") == Split{"It cost 3.50 dollars.", "2 men paid."});
  // Not before a lowercase letter, not without a space.
  CHECK(Sentences("See the fig. below. It is clear.") == Split{"See the fig. below.", "It is clear."});
  CHECK(Sentences("Visit example.com. Now.") == Split{"Visit example.com.", "Now."});
  CHECK(Sentences("one.two three") == Split{"one.two three"});
  // Unicode spaces and terminators; Latin, Greek and Cyrillic case.
  CHECK(Sentences("Ja.\u00A0Nein\u2026\u3000Gut.") == Split{"Ja.", "Nein\u2026", "Gut."});
  CHECK(Sentences("\u00C9t\u00E9. \u00C9cole. \u00E9t\u00E9") == Split{"\u00C9t\u00E9.", "\u00C9cole. \u00E9t\u00E9"});
  CHECK(Sentences("\u0414\u0430. \u041D\u0435\u0442. \u0434\u0430") ==
        Split{"\u0414\u0430.", "\u041D\u0435\u0442. \u0434\u0430"});
  CHECK(Sentences("\u4ECA\u65E5\u306F\u3002\u660E\u65E5\uFF01\u5F8C") ==
        Split{"\u4ECA\u65E5\u306F\u3002", "\u660E\u65E5\uFF01", "\u5F8C"});
  CHECK(Sentences("\u0647\u0644\u061F \u0646\u0639\u0645") == Split{"\u0647\u0644\u061F", "\u0646\u0639\u0645"});
  // Without final punctuation a boundary cannot be seen.
  CHECK(Sentences("A man sleeps A dog runs") == Split{"A man sleeps A dog runs"});
  CHECK(Sentences("").empty());
  CHECK(Sentences(" \t\u00A0").empty());
}

TEST_CASE("abbreviations, initials and dotted words do not end sentences") {
  CHECK(Sentences("Mr. Smith met Dr. Jones. They left.") == Split{"Mr. Smith met Dr. Jones.", "They left."});
  CHECK(Sentences("J. R. R. Tolkien wrote it. Read it.") == Split{"J. R. R. Tolkien wrote it.", "Read it."});
  CHECK(Sentences("The U.S. Army came. It won.") == Split{"The U.S. Army came.", "It won."});
  CHECK(Sentences("Er kam z.B. Montag. Sie nicht.", "de") == Split{"Er kam z.B. Montag.", "Sie nicht."});
  CHECK(Sentences("Sie wohnt in der Str. Berlin. Er nicht.", "de") ==
        Split{"Sie wohnt in der Str. Berlin.", "Er nicht."});
  // The abbreviations are the language's: "Str." is not English.
  CHECK(Sentences("Walk along Str. Berlin is near.", "en") == Split{"Walk along Str.", "Berlin is near."});
  CHECK(Sentences("Mr. Smith came.", "") == Split{"Mr.", "Smith came."});
}

TEST_CASE("invalid UTF-8 is split like letters of no case, never read past the end") {
  const std::string bad = "Ok. \xC3 \xFF\xFE. \xE2\x80";
  const std::vector<std::string> split = Sentences(bad);
  CHECK(split == Split{"Ok.", "\xC3 \xFF\xFE.", "\xE2\x80"});
}

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

TEST_CASE("a long sentence is split at its best inner boundaries into parts that fit") {
  // Length: words (the framing's </s> counts one more).
  auto words = [](std::string_view s) {
    size_t n = 1;
    bool in_word = false;
    for (char c : s) {
      const bool space = c == ' ';
      if (!space && !in_word) ++n;
      in_word = !space;
    }
    return n;
  };
  using Parts = std::vector<std::string>;
  CHECK(edgemt::SplitLongText("a b c", 10, words) == Parts{"a b c"});
  // A semicolon before a comma, a comma before a plain space.
  CHECK(edgemt::SplitLongText("one two, three four; five six seven", 4, words) ==
        Parts{"one two,", "three four;", "five six seven"});
  CHECK(edgemt::SplitLongText("one two three, four five six", 4, words) == Parts{"one two three,", "four five six"});
  // Only spaces: near the middle, again and again.
  const Parts spaces = edgemt::SplitLongText("a b c d e f g h", 3, words);
  CHECK(spaces == Parts{"a b", "c d", "e f", "g h"});
  // Every part fits, and the parts are the text without the whitespace at the cuts.
  std::string text;
  for (int i = 0; i < 200; ++i) text += "w" + std::to_string(i) + (i % 17 == 16 ? ", " : i % 41 == 40 ? "; " : " ");
  const Parts parts = edgemt::SplitLongText(text, 12, words);
  std::string joined;
  for (const std::string& p : parts) {
    CHECK(words(p) <= 12);
    joined += (joined.empty() ? "" : " ") + p;
  }
  CHECK(joined + " " == text);
  // No space at all: cut between characters (whole UTF-8 characters), each part fitting.
  auto bytes = [](std::string_view s) { return s.size(); };
  const Parts cut = edgemt::SplitLongText("\u00e4\u00e4\u00e4\u00e4\u00e4\u00e4", 4, bytes);
  CHECK(cut == Parts{"\u00e4", "\u00e4\u00e4", "\u00e4", "\u00e4\u00e4"});
  CHECK(edgemt::SplitLongText("   ", 1, bytes).empty());
}

TEST_CASE("invalid UTF-8 in a long word is cut between bytes, each part fitting") {
  auto bytes = [](std::string_view s) { return s.size(); };
  const std::string junk(40, '\x9c');  // continuation bytes only
  for (const std::string& part : edgemt::SplitLongText(junk, 4, bytes)) CHECK(part.size() <= 4);
}
