#include "long_text.h"

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

void Split(std::string_view text, size_t limit, const std::function<size_t(std::string_view)>& length,
           std::vector<std::string>* parts) {
  text = Trim(text);
  if (text.empty()) return;
  if (length(text) <= limit) {
    parts->emplace_back(text);
    return;
  }
  const size_t at = CutPoint(text);
  if (at >= text.size()) {  // one character: nothing to cut
    parts->emplace_back(text);
    return;
  }
  Split(text.substr(0, at), limit, length, parts);
  Split(text.substr(at), limit, length, parts);
}

}  // namespace

std::vector<std::string> SplitLongText(std::string_view text, size_t limit,
                                       const std::function<size_t(std::string_view)>& length) {
  std::vector<std::string> parts;
  Split(text, limit, length, &parts);
  return parts;
}

}  // namespace edgemt
