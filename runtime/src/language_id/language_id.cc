#include "edgemt/language_id.h"

#include <cctype>
#include <climits>

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

namespace edgemt {
namespace {

// CLD2 keeps a few codes ISO 639-1 has since replaced.
std::string IsoCode(CLD2::Language language) {
  const std::string code = CLD2::LanguageCode(language);
  if (code == "iw") return "he";
  if (code == "jw") return "jv";
  if (code == "zh-Hant") return "zt";  // LibreTranslate's and Argos's code for traditional Chinese
  return code;
}

}  // namespace

std::string LanguageName(std::string_view code) {
  std::string cld2_code(code);
  if (cld2_code == "he") cld2_code = "iw";
  if (cld2_code == "jv") cld2_code = "jw";
  if (cld2_code == "zt") cld2_code = "zh-Hant";
  const CLD2::Language language = CLD2::GetLanguageFromName(cld2_code.c_str());
  if (language == CLD2::UNKNOWN_LANGUAGE) return std::string(code);
  std::string name = CLD2::LanguageName(language);  // "GERMAN"
  for (size_t i = 1; i < name.size(); ++i) {
    if (name[i - 1] != ' ' && name[i - 1] != '_') name[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  for (char& c : name) c = c == '_' ? ' ' : c;
  return name;
}

Status DetectLanguage(std::string_view text, bool html, std::vector<DetectedLanguage>* candidates) {
  candidates->clear();
  if (text.size() > static_cast<size_t>(INT_MAX))
    return Status(StatusCode::kInvalidArgument, "the text is too long to detect its language");
  CLD2::Language languages[3];
  int percents[3];
  double scores[3];
  int text_bytes = 0;
  bool reliable = false;
  int valid_prefix = 0;
  // Best effort: an answer for short texts too (a sentence), which CLD2 otherwise leaves unknown.
  CLD2::ExtDetectLanguageSummaryCheckUTF8(text.data(), static_cast<int>(text.size()), !html, nullptr,
                                          CLD2::kCLDFlagBestEffort,
                                          languages, percents, scores, nullptr, &text_bytes, &reliable,
                                          &valid_prefix);
  if (valid_prefix < static_cast<int>(text.size()))
    return Status(StatusCode::kInvalidArgument,
                  "the text is not valid UTF-8 (at byte " + std::to_string(valid_prefix) + ")");
  for (int i = 0; i < 3; ++i) {
    if (languages[i] == CLD2::UNKNOWN_LANGUAGE || percents[i] <= 0) continue;
    DetectedLanguage detected;
    detected.code = IsoCode(languages[i]);
    detected.name = CLD2::LanguageName(languages[i]);
    detected.confidence = static_cast<float>(percents[i]);
    detected.reliable = i == 0 && reliable;
    candidates->push_back(std::move(detected));
  }
  if (candidates->empty()) return Status(StatusCode::kNotFound, "the text has too few letters to tell its language");
  return Status::Ok();
}

}  // namespace edgemt
