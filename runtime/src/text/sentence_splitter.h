// Where the sentences of a text are: the splitter the text layer (a
// paragraph translated sentence by sentence) and the document layer share
// (built-in rules; no dependency).
//
// A sentence ends after a run of terminators (. ! ? and their Unicode
// forms: … ‼ ⁇ ⁈ ⁉ ؟ ।), with the closing quotes and brackets after it,
// when whitespace follows and the next text does not start with a
// lowercase letter. Not after a period that ends a known abbreviation of
// the language ("Mr.", "Nr."), a single letter (an initial), or a word of
// short parts between periods ("U.S.", "e.g.", "z.B."). The full-width terminators 。！？
// end a sentence without whitespace after them. A line without any of
// these is one sentence. A sentence that lacks final punctuation cannot be
// seen: "a man sleeps A dog runs" stays one.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace edgemt {

// Bytes [begin, end) of a text.
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;
};

// The sentences of `text` (one line: no line breaks), in order: each starts
// and ends with a non-space character; what lies between two (whitespace)
// belongs to neither. Text without any non-space character has none.
// `language`: an ISO 639 code ("en", "de"; "" or an unknown one: the
// abbreviations of no language, the rest alike). Invalid UTF-8 bytes count
// as letters of no case.
std::vector<TextSpan> SplitSentences(std::string_view text, std::string_view language);

// The same for a text that may hold line breaks: a line break ends a
// sentence. Lines end at "\n" (a "\r" before it belongs to the break);
// the spans are of `text`, each line's SplitSentences in order.
std::vector<TextSpan> SplitTextSentences(std::string_view text, std::string_view language);

// Whether the code point is a space: the Unicode White_Space characters
// (ASCII space and tab, no-break spaces, the U+2000 block, ideographic space...).
bool IsUnicodeSpace(char32_t c);

// The first position at or after `pos` that is not a space (text.size() if none).
size_t SkipSpaces(std::string_view text, size_t pos);

// The code point at text[pos] and its length in bytes (1 for an invalid byte,
// whose code point is then U+FFFD).
char32_t DecodeUtf8(std::string_view text, size_t pos, size_t* length);

}  // namespace edgemt
