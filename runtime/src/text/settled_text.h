// The text of a translation while it is produced: ids come one at a time,
// and each time the part of the text that can no longer change goes out as
// a piece, so that the pieces add up to exactly the final text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgemt/status.h"
#include "edgemt/types.h"

namespace edgemt {

// Length of the prefix of `text` that later ids cannot change: it ends on a
// whole UTF-8 character and before any trailing U+FFFD (SentencePiece's
// stand-in for the bytes of a character whose other bytes are still to come).
size_t SettledLength(const std::string& text);

class SettledText {
 public:
  // The detokenized text of ids[0..count).
  using TextOf = std::function<Status(const int32_t* ids, size_t count, std::string* text)>;

  SettledText(TextOf text_of, const PieceCallback& on_piece) : text_of_(std::move(text_of)), on_piece_(on_piece) {}

  // The next id; false stops decoding (on_piece said so, or detokenizing failed).
  bool Add(int32_t id);
  // After the last id: sends what is left of `final_text`, the text of all
  // ids. Fails (a bug) if the pieces sent are not a prefix of it.
  Status Finish(const std::string& final_text);
  bool stopped() const { return stopped_; }

 private:
  TextOf text_of_;
  const PieceCallback& on_piece_;
  std::vector<int32_t> ids_;
  std::string text_;  // of ids_
  std::string sent_;  // what the pieces so far add up to
  bool stopped_ = false;
};

}  // namespace edgemt
