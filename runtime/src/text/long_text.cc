#include "text/long_text.h"

namespace edgemt {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where to cut `text` (a byte offset inside it): after the boundary of the
// best class nearest the middle, else between two characters at the middle.
size_t CutPoint(std::string_view text) {
  constexpr int kClasses = 3;  // ; and :, then a comma, then a space
  size_t best[kClasses] = {0, 0, 0};
  const size_t middle = text.size() / 2;
  auto distance = [middle](size_t at) { return at > middle ? at - middle : middle - at; };
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (!IsSpace(text[i + 1])) continue;
    const char c = text[i];
    const int cls = (c == ';' || c == ':') ? 0 : c == ',' ? 1 : IsSpace(c) ? -1 : 2;
    if (cls < 0) continue;  // inside a run of spaces: its first one counts
    const size_t at = i + 1;
    if (best[cls] == 0 || distance(at) < distance(best[cls])) best[cls] = at;
  }
  for (size_t at : best) {
    if (at > 0) return at;
  }
  // No space at all: between two characters near the middle (back over at
  // most three continuation bytes; invalid UTF-8 is cut between bytes).
  auto continuation = [&text](size_t at) { return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80; };
  size_t at = middle;
  for (int k = 0; k < 3 && at > 0 && continuation(at); ++k) --at;
  if (at == 0 || continuation(at)) at = middle;
  if (at == 0) {  // a character at the start: after it
    at = 1;
    for (int k = 0; k < 3 && at < text.size() && continuation(at); ++k) ++at;
  }
  return at;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// `per_byte`: the whole text's length per byte. A part whose estimate
// (its bytes x per_byte) is over twice the limit is cut without measuring:
// only parts near the limit are tokenized, so a 1 MB sentence costs a few
// passes of the tokenizer, not one per level of cutting.
void Split(std::string_view text, size_t limit, double per_byte,
           const std::function<size_t(std::string_view)>& length, std::vector<std::string>* parts) {
  text = Trim(text);
  if (text.empty()) return;
  const bool surely_long = static_cast<double>(text.size()) * per_byte > 2.0 * static_cast<double>(limit);
  if (!surely_long && length(text) <= limit) {
    parts->emplace_back(text);
    return;
  }
  const size_t at = CutPoint(text);
  if (at >= text.size()) {  // one character: nothing to cut
    parts->emplace_back(text);
    return;
  }
  Split(text.substr(0, at), limit, per_byte, length, parts);
  Split(text.substr(at), limit, per_byte, length, parts);
}

}  // namespace

std::vector<std::string> SplitLongText(std::string_view text, size_t limit,
                                       const std::function<size_t(std::string_view)>& length) {
  std::vector<std::string> parts;
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return parts;
  const size_t whole = length(trimmed);
  if (whole <= limit) {
    parts.emplace_back(trimmed);
    return parts;
  }
  Split(trimmed, limit, static_cast<double>(whole) / static_cast<double>(trimmed.size()), length, &parts);
  return parts;
}

}  // namespace edgemt
