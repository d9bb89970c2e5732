// A sentence too long for the model (runtime/src/text/long_text.h), split
// at its best inner boundaries into parts that fit.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "text/long_text.h"

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
