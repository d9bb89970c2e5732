// Where a text's sentences end (runtime/src/text/sentence_splitter.h):
// terminators, abbreviations, initials, invalid UTF-8.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "text/sentence_splitter.h"

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
