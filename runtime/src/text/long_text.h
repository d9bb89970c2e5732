// A sentence too long for the model's positions, split into parts that fit
// at its best inner boundaries, so that it is translated whole rather than
// truncated (LongInput::kSplit): after a semicolon or colon first, then
// after a comma, then at a space, each time the one nearest the middle;
// a part with no space left is cut between characters. The parts, joined
// with one space, are the text without the whitespace at the cuts. A part
// far over the limit (by the whole text's tokens per byte) is cut without
// being measured, so it may be cut where a measure would not have.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace edgemt {

// `length(part)`: its length as the limit counts it (source ids, framing
// included). Every returned part has length <= limit, or is one character.
std::vector<std::string> SplitLongText(std::string_view text, size_t limit,
                                       const std::function<size_t(std::string_view)>& length);

}  // namespace edgemt
