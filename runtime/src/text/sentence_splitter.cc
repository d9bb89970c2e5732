#include "text/sentence_splitter.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace edgemt {
namespace {

// Words that end with a period without ending a sentence, lowercase, without
// that period. Dotted ones ("e.g") are IsDottedAbbreviation's.
constexpr std::string_view kEnglish[] = {
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "inc", "ltd", "co", "corp", "no",
    "nos", "vol", "fig", "figs", "approx", "dept", "est", "gen", "gov", "sen", "rep", "rev", "sgt", "capt",
    "col", "lt", "mt", "ft", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "ave", "blvd", "rd", "al", "cf", "ca", "ed"};
constexpr std::string_view kGerman[] = {
    "bzw", "ca", "dr", "fr", "hr", "hrn", "nr", "prof", "str", "usw", "vgl", "z", "zb", "evtl", "ggf", "inkl",
    "max", "min", "mio", "mrd", "abs", "abt", "bd", "bsp", "jh", "jhd", "tel", "u", "v", "geb", "gest", "st",
    "sog", "allg", "bzgl", "etc", "ev", "exkl", "jan", "feb", "mär", "apr", "jun", "jul", "aug", "sep", "sept",
    "okt", "nov", "dez", "mo", "di", "mi", "do", "so"};
constexpr std::string_view kFrench[] = {"m", "mm", "mme", "mlle", "dr", "pr", "st", "ste", "etc", "cf", "env",
                                        "av", "bd", "janv", "févr", "avr", "juil", "sept", "oct", "nov", "déc"};
constexpr std::string_view kSpanish[] = {"sr", "sra", "srta", "dr", "dra", "etc", "ud", "uds", "av", "pág", "núm",
                                         "aprox", "ej", "ene", "feb", "abr", "jun", "jul", "ago", "sept", "oct",
                                         "nov", "dic"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(list, list + N, word) != list + N;
}

bool IsAbbreviation(std::string_view language, std::string_view word) {
  const std::string_view base = language.substr(0, language.find_first_of("-_"));
  if (base == "en") return Contains(kEnglish, word);
  if (base == "de") return Contains(kGerman, word);
  if (base == "fr") return Contains(kFrench, word);
  if (base == "es") return Contains(kSpanish, word);
  return false;
}

bool IsTerminator(char32_t c) {
  switch (c) {
    case U'.': case U'!': case U'?': case U'\u2026': case U'\u203C': case U'\u2047': case U'\u2048':
    case U'\u2049': case U'\u061F': case U'\u0964': case U'\u3002': case U'\uFF01': case U'\uFF1F':
      return true;
    default:
      return false;
  }
}

bool IsFullWidthTerminator(char32_t c) { return c == U'\u3002' || c == U'\uFF01' || c == U'\uFF1F'; }

bool IsClosing(char32_t c) {
  switch (c) {
    case U'"': case U'\'': case U')': case U']': case U'}': case U'\u2019': case U'\u201D': case U'\u00BB':
    case U'\u203A': case U'\u300D': case U'\u300F': case U'\uFF09':
      return true;
    default:
      return false;
  }
}

// Lowercase letters of the Latin, Greek and Cyrillic scripts (where case
// tells a sentence's start); every other character counts as not lowercase.
bool IsLowercase(char32_t c) {
  if (c >= U'a' && c <= U'z') return true;
  if (c >= 0xDF && c <= 0xFF) return c != 0xF7;
  // Latin Extended-A alternates upper and lower case, in four runs.
  if (c >= 0x100 && c <= 0x137) return c % 2 == 1;
  if (c >= 0x139 && c <= 0x148) return c % 2 == 0;
  if (c >= 0x14A && c <= 0x177) return c % 2 == 1;
  if (c >= 0x179 && c <= 0x17E) return c % 2 == 0;
  if (c == 0x138 || c == 0x149 || c == 0x17F) return true;
  if (c >= 0x3AC && c <= 0x3CE) return true;
  if (c >= 0x430 && c <= 0x45F) return true;
  return false;
}

bool IsAsciiLetter(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); }

std::string AsciiLower(std::string_view word) {
  std::string out(word);
  for (char& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

// "e.g", "U.S", "z.B", "Ph.D": every part between periods at most 3 bytes
// long (so "example.com" is a word, and its period may end a sentence).
bool IsDottedAbbreviation(std::string_view word) {
  size_t part = 0;
  for (char ch : word) {
    part = ch == '.' ? 0 : part + 1;
    if (part > 3) return false;
  }
  return true;
}

// Whether the period at `dot` ends a word that does not end a sentence: an
// abbreviation of the language, a single letter, or a dotted abbreviation.
bool PeriodEndsAbbreviation(std::string_view text, size_t dot, std::string_view language) {
  size_t start = dot;
  while (start > 0) {
    const unsigned char prev = static_cast<unsigned char>(text[start - 1]);
    if (prev == ' ' || prev == '\t' || prev == '(' || prev == '"' || prev == '\'' || prev == '[') break;
    --start;
  }
  const std::string_view word = text.substr(start, dot - start);
  if (word.empty()) return false;
  if (word.find('.') != std::string_view::npos) return IsDottedAbbreviation(word);
  size_t length = 0;
  const char32_t first = DecodeUtf8(word, 0, &length);
  if (length == word.size() && (IsAsciiLetter(first) || first > 0x7F)) return true;  // an initial
  return IsAbbreviation(language, AsciiLower(word));
}

}  // namespace

// The first position at or after `pos` that is not a space (text.size() if none).
size_t SkipSpaces(std::string_view text, size_t pos) {
  size_t length = 0;
  while (pos < text.size() && IsUnicodeSpace(DecodeUtf8(text, pos, &length))) pos += length;
  return pos;
}

char32_t DecodeUtf8(std::string_view text, size_t pos, size_t* length) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  *length = 1;
  if (lead < 0x80) return lead;
  int extra = 0;
  char32_t c = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    extra = 1;
    c = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    extra = 2;
    c = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    extra = 3;
    c = lead & 0x07;
  } else {
    return 0xFFFD;
  }
  if (pos + static_cast<size_t>(extra) >= text.size()) return 0xFFFD;  // cut short
  for (int i = 1; i <= extra; ++i) {
    const unsigned char next = byte(pos + static_cast<size_t>(i));
    if ((next & 0xC0) != 0x80) return 0xFFFD;
    c = (c << 6) | (next & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((extra == 2 && c < 0x800) || (extra == 3 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF))
    return 0xFFFD;
  *length = static_cast<size_t>(extra) + 1;
  return c;
}

bool IsUnicodeSpace(char32_t c) {
  return c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<TextSpan> SplitSentences(std::string_view text, std::string_view language) {
  std::vector<TextSpan> sentences;
  size_t begin = std::string_view::npos;  // the current sentence's first byte
  size_t last_end = 0;                    // one past its last non-space character so far
  size_t pos = 0;
  auto close = [&](size_t end) {
    if (begin != std::string_view::npos) sentences.push_back({begin, end});
    begin = std::string_view::npos;
  };
  while ((pos = SkipSpaces(text, pos)) < text.size()) {
    size_t length = 0;
    const char32_t c = DecodeUtf8(text, pos, &length);
    if (begin == std::string_view::npos) begin = pos;
    if (!IsTerminator(c)) {
      pos += length;
      last_end = pos;
      continue;
    }
    // A run of terminators, then closing quotes and brackets.
    const size_t run_start = pos;
    bool full_width = false;
    char32_t t = 0;
    while (pos < text.size() && IsTerminator(t = DecodeUtf8(text, pos, &length))) {
      full_width = full_width || IsFullWidthTerminator(t);
      pos += length;
    }
    while (pos < text.size() && IsClosing(DecodeUtf8(text, pos, &length))) pos += length;
    last_end = pos;
    const size_t after = SkipSpaces(text, pos);
    if (after >= text.size()) break;  // the line's end (after trailing whitespace) closes it
    const bool spaced = after > pos;
    const bool single_period = pos - run_start == 1 && text[run_start] == '.';
    bool ends = false;
    if (full_width) {
      ends = true;
    } else if (spaced && !IsLowercase(DecodeUtf8(text, after, &length))) {
      ends = !(single_period && PeriodEndsAbbreviation(text, run_start, language));
    }
    if (ends) close(last_end);
  }
  close(last_end);
  return sentences;
}

std::vector<TextSpan> SplitTextSentences(std::string_view text, std::string_view language) {
  std::vector<TextSpan> sentences;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    size_t content_end = line_end;
    if (content_end > line_start && text[content_end - 1] == '\r') --content_end;
    for (const TextSpan& s : SplitSentences(text.substr(line_start, content_end - line_start), language))
      sentences.push_back({line_start + s.begin, line_start + s.end});
    line_start = line_end + 1;
  }
  return sentences;
}

}  // namespace edgemt
