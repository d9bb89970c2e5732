#include "text/settled_text.h"

namespace edgemt {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// Bytes of a UTF-8 sequence that starts with `lead`; 0 for a continuation byte.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return (lead & 0xC0) == 0x80 ? 0 : 1;  // an invalid lead byte stands alone
}

}  // namespace

size_t SettledLength(const std::string& text) {
  size_t end = text.size();
  // A trailing sequence cut short waits for its other bytes.
  for (size_t back = 1; back <= 4 && back <= end; ++back) {
    const size_t length = SequenceLength(static_cast<unsigned char>(text[end - back]));
    if (length == 0) continue;
    if (length > back) end -= back;
    break;
  }
  while (end >= 3 && text.compare(end - 3, 3, kReplacement) == 0) end -= 3;
  return end;
}

bool SettledText::Add(int32_t id) {
  if (stopped_) return false;
  ids_.push_back(id);
  if (!text_of_(ids_.data(), ids_.size(), &text_).ok()) {
    stopped_ = true;
    return false;
  }
  const size_t settled = SettledLength(text_);
  // Text already sent never changes; if it ever did, Finish reports it.
  if (settled <= sent_.size() || text_.compare(0, sent_.size(), sent_) != 0) return true;
  const std::string_view piece = std::string_view(text_).substr(sent_.size(), settled - sent_.size());
  sent_.append(piece);
  if (!on_piece_(piece)) stopped_ = true;
  return !stopped_;
}

Status SettledText::Finish(const std::string& final_text) {
  if (final_text.compare(0, sent_.size(), sent_) != 0 || final_text.size() < sent_.size())
    return Status(StatusCode::kInternal, "the streamed pieces are not a prefix of the translation");
  if (final_text.size() > sent_.size()) on_piece_(std::string_view(final_text).substr(sent_.size()));
  sent_ = final_text;
  return Status::Ok();
}

}  // namespace edgemt
