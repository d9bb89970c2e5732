// The ids a decoding choice never makes: a model's banned ids (the file's
// Config.banned_ids, or pad, unk and <s> for beam search and sampling in
// files without them) and </s> before min_length. A handful at most, so a
// linear scan is the fastest lookup.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/output_columns.h"

namespace edgemt {

struct BannedIds {
  // A model's at most 4 (ModelConfig::kMaxBannedIds), and </s>.
  static constexpr size_t kCapacity = 5;
  int32_t ids[kCapacity] = {-1, -1, -1, -1, -1};
  size_t count = 0;

  // Negative ids are ignored; so is an id beyond the capacity (never: the
  // model reader bounds a file's list).
  void Add(int32_t id) {
    if (id >= 0 && count < kCapacity) ids[count++] = id;
  }
  bool Contains(int32_t id) const {
    for (size_t i = 0; i < count; ++i) {
      if (ids[i] == id) return true;
    }
    return false;
  }
};

// The columns of `ids` in a row of `columns` (ids without one left out).
inline BannedIds ColumnsOf(const BannedIds& ids, const OutputColumns& columns) {
  if (columns.ids == nullptr) return ids;
  BannedIds out;
  for (size_t i = 0; i < ids.count; ++i) {
    const int64_t column = columns.ColumnOf(ids.ids[i]);
    if (column >= 0) out.Add(static_cast<int32_t>(column));
  }
  return out;
}

}  // namespace edgemt
