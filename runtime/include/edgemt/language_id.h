// Which language a text is in: CLD2 (Chrome's Compact Language Detector 2,
// built into libedgemt with its tables), for `--from auto` and the
// catalog's and server's "auto" source.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "edgemt/status.h"

namespace edgemt {

struct DetectedLanguage {
  std::string code;        // ISO 639-1 where there is one ("en", "de", "he"), else CLD2's code
  std::string name;        // CLD2's English name ("ENGLISH")
  float confidence = 0;    // the share of the text's letters in this language, 0-100
  bool reliable = false;   // CLD2's own judgement: enough text, a clear margin
};

// Up to three candidates, best first, into *candidates. An empty text, or
// one with too few letters to tell (digits, punctuation), gives none and
// kNotFound; text that is not UTF-8, kInvalidArgument. `html`: tags and
// entities are skipped.
Status DetectLanguage(std::string_view text, bool html, std::vector<DetectedLanguage>* candidates);

// A language's English name ("German" for "de"); the code itself for one
// CLD2 does not know.
std::string LanguageName(std::string_view code);

}  // namespace edgemt
