// Which target ids a row of logits holds. Without a shortlist, all of them
// in id order (column c is id c); with one (docs/shortlist.md), a
// sentence's shortlist in ascending id order (column c is ids[c]), so that
// the lowest column on a tie is the lowest id either way. The output
// projection fills them; the decoding loops choose columns and turn them
// into ids here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

struct OutputColumns {
  size_t count = 0;
  const int32_t* ids = nullptr;  // [count] ascending; null: every id, in order

  int32_t IdAt(size_t column) const { return ids != nullptr ? ids[column] : static_cast<int32_t>(column); }
  // The column of `id`, or -1 when the row has none for it.
  int64_t ColumnOf(int32_t id) const;
};

}  // namespace edgemt
